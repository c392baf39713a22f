#pragma once
// The GPU solver of one layered body (DDT paper sec. 6, dissertation 3.5): the
// collision-free update (steps 1-5 of Fig. 3.5) and the contact response's passes over
// every node (SkinResponse, steps 9-15) as fragment-shader passes over float textures of
// the D2T atlas (shaders/d2t/*.frag). GpuSkin holds the skin state in its textures from
// step to step and runs the passes through its parts, each a type of its own:
//
//   AtlasPasses      the plumbing: draws, the textures every pass reads, the reduction
//                    pyramids, node vectors in and out, the GPU timers   (atlas_passes.h)
//   GpuOperators     K_e's blocks, Mh_e^-1, the coupling columns, Mt_e's scales, the
//                    rest shape's sums in double                          (gpu_operators.h)
//   GpuCg            Mt_e y' = Ft_e' by PCG on the stencil: a multigrid V-cycle
//                    (GpuMultigrid) or block Jacobi                      (gpu_cg.h)
//   GpuContactRows   the rows of steps 9-12: D_k, U_k, b_k, the SMW rounds, the impulse
//                    and friction scattered by node                       (gpu_contact_rows.h)
//   GpuDetection     contacts with planes and height fields (steps 8, 14) (gpu_detection.h)
//   GpuSummary       SkinSummary: the end-of-step sums and maxima          (gpu_summary.h)
//
// and, here, the passes on its state:
//
//   forces (T)      z = q + (beta + dt) qdot, m (alpha qdot + a), core sums
//   rhs (T)         Ft_e' = -K_e z - m (alpha qdot + a)          (stencil pass)
//   solve (T)       GpuCg
//   coupling (T)    sums for M_ce y and M_ce Y (4x4 reduction pyramids)
//   core (s)        the condensed core system on the CPU, in double (the rigid core's:
//                   Core = RigidCore, D2T_CORE_DOFS)
//   velocities (T)  dv_e = dt y - Y dv_c, q = q(t) + dt qdot, momentum sums
//   condense (T)    sums for Mh_cond = M_c - sum M_ce(i) Mh_i^-1 M_ec(i)
//   energy (T)      the kinetic energy along the impulse (its share, LayeredBody::respond)
//   apply (T)       qdot += share dq + the friction's, q = q(t) + dt qdot
//   correct (T)     step 15: q += the correction, one point per corrected node blended
//                   into the resident q
//   gather (T)      the listed nodes' q, qdot into a small target, read back
//
// The parts of every core sum that do not depend on the skin state (sums over the rest
// shape and the cached coupling columns W_t, W_r) are summed once in double on the CPU;
// the GPU's float sums only carry the state-dependent parts, so a rigid motion (free
// fall, a spinning body at rest shape) is as exact as on the CPU. Only 6-vectors,
// 3x3/6x6 matrices, reduction results, the rows and the detection's hits cross.
// The skin state stays in the textures from step to step (and is drawn from there);
// it is uploaded whole only when the CPU wrote it (LayeredBody::editState, a reset, a
// drag), and read back whole only when the CPU asks for all of it (LayeredBody::state():
// the pair stages, a drag, the UI). The step's own readers on the CPU take the nodes
// they read by the gather pass (the restitution's impact: the penetrating nodes; the
// contact support: the touching nodes and their stencils; the friction patches).
//
// Needs a current OpenGL 4.3+ context with float render targets; the
// constructor throws GlError (naming the shader file and line, or the missing
// capability) otherwise, and the caller falls back to the CPU.
#include <memory>
#include <string>
#include <vector>

#include "gpu/gl/gl.h"
#include "gpu/gl/shader.h"
#include "gpu/skin/atlas_passes.h"
#include "gpu/skin/gpu_cg.h"
#include "gpu/skin/gpu_contact_rows.h"
#include "gpu/skin/gpu_detection.h"
#include "gpu/skin/gpu_summary.h"
#include "gpu/skin/gpu_operators.h"
#include "sim/contact/collider.h"
#include "sim/body/layered_body.h"

namespace d2t {


/// The triangles around each node of an atlas, for passes that need a node's own
/// mesh triangles: a 2-layer RGBA32I array, up to 8 triangle ids per node texel, -1: none.
GlTexture nodeTriangleTexture(const Atlas& atlas);

/// Sums of the forces pass (the state-dependent parts, see forces.frag).
struct GpuForceSums {
  Vec3 mq, mqdot, ma, muxa;
  Mat3 uu;  ///< sum m (u u^T - ub ub^T)
};

class GpuSkin final : public FreeMotionSolver, public SkinResponse {
 public:
  /// Allocates the body's textures and compiles the passes. Throws GlError.
  explicit GpuSkin(BakedBodyPtr model);
  ~GpuSkin() override;
  GpuSkin(const GpuSkin&) = delete;
  GpuSkin& operator=(const GpuSkin&) = delete;

  FreeStepResult integrate(const BodyView& body, LayeredState& s, double dt, const Vec3& gravity,
                           Profile& profile) override;
  void readSkin(const BodyView& body, LayeredState& s) override;
  /// From the sums of the pass that last changed the state (the velocities pass, the
  /// apply pass; the correction adds its own change), else by the summary pass.
  SkinSummary moments(const BodyView& body) override;
  /// A gather pass: one point per node copies its texels into the first texels of two
  /// small targets, and those are read back.
  void readNodes(const BodyView& body, const std::vector<int>& nodes, LayeredState& s) override;
  /// Texture copies on the GPU.
  void saveGood(const BodyView& body) override;
  void restoreGood(const BodyView& body) override;
  /// How many times the skin state was read back whole (readSkin), how many nodes
  /// were gathered (readNodes), and how many summary passes ran (summarize).
  int stateDownloads() const { return stateDownloads_; }
  long gatheredNodes() const { return gatheredNodes_; }
  long summaries() const { return summaries_; }

  // ---- the contact response's passes (SkinResponse) on the state in the textures ------------
  SkinResponse* response() override { return this; }
  void load(const BodyView& body, const LayeredState& s, const std::vector<Vec3>& startQ) override;
  bool holds(BodyId body) const override { return holder_ == body; }
  /// How many impulses apply() has put on the skin (statistics, tests).
  int appliedImpulses() const { return appliedImpulses_; }
  /// How many times the skin state was uploaded whole (integrate() from a state written
  /// on the CPU, load()); a step that starts from the resident state uploads nothing.
  int stateUploads() const { return stateUploads_; }
  CondensedSums condense(const BodyView& body, const LayeredState& s) override;
  /// Throws GlError for more rows than the atlas has texels.
  void setRows(const BodyView& body, const LayeredState& s, const std::vector<ContactRow>& rows, double dt,
               bool fixedCore) override;
  RowSums roundRows(const Core::Vector* dv, bool oneSided) override;
  ImpulseSums impulse(const BodyView& body, const LayeredState& s) override;
  Vec3 energy(const BodyView& body, const LayeredState& s, const Vec3& dvt, const Vec3& dw) override;
  ImpulseSums friction(const BodyView& body, const LayeredState& s, double share, const Vec3& dvt,
                       const Vec3& dw) override;
  std::vector<RowResult> rowResults() override;
  void apply(const BodyView& body, const std::vector<Vec3>& startQ, const Vec3& dvt, const Vec3& dw,
             double share, const Vec3& frictionDvt, const Vec3& frictionDw, double dt, LayeredState& s) override;
  /// The response's Mh_e^-1 texture with the nodes' blocks replaced (GpuOperators::hold).
  void holdOnCore(const BodyView& body, const std::vector<std::pair<int, Vec3>>& held) override;
  /// The core contact pass (shaders/d2t/core_contact.frag) on the resident q.
  void findCoreContacts(const BodyView& body, const LayeredState& s, double keep, double margin, double reach,
                        std::vector<CoreContact>* out) override;
  /// A scatter: one point per node adds its dq_i into the resident q (blending).
  void correct(const BodyView& body, const std::vector<std::pair<int, Vec3>>& dq, LayeredState& s) override;
  void changeVelocities(const BodyView& body, const std::vector<std::pair<int, Vec3>>& dqdot, double dt,
                        LayeredState& s) override;
  /// The GPU time of the passes since the last call (gpu_* stages; integrate() takes its
  /// own into its profile).
  void takeTimes(Profile& profile) override { passes_.takeTimes(profile); }
  /// The summary pass (shaders/d2t/summary.frag) on the resident state: sums and maxima
  /// by reduction, the rest shape's parts added in double.
  SkinSummary summarize(const BodyView& body, const LayeredState& s, const Vec3& up) override;
  /// The summary pass with its max |q| alone (one target to reduce, not seven).
  double maxDisplacement(const BodyView& body, const LayeredState& s) override;
  /// The detection pass (shaders/d2t/detect.frag) on the resident state, any number of
  /// planes and height fields (a pass per kMaxDetectedColliders); true.
  bool detectColliders(const BodyView& body, const std::vector<const Collider*>& colliders, double margin,
                       std::vector<ColliderHit>* hits, Profile& profile) override;

  // ---- single stages on node arrays (the tests compare them with the CPU) ---------------
  /// Texels of `x` (N*N x 4, row-major) after the gutter fill pass.
  std::vector<float> gutterFill(const std::vector<float>& texels);
  /// scaleK K_e x + scaleM M_e x, through the stencil pass.
  std::vector<Vec3> stencilProduct(const std::vector<Vec3>& x, double scaleK, double scaleM);
  /// Sum over nodes of x_i (the reduction pyramid).
  Vec3 sum(const std::vector<Vec3>& x);
  /// The forces pass at state (q, qdot) with body angular velocity w; z and ma per node.
  GpuForceSums forces(const std::vector<Vec3>& q, const std::vector<Vec3>& qdot, const Vec3& w,
                      double alpha, double beta, double dt, std::vector<Vec3>* z, std::vector<Vec3>* ma);
  /// Solves Mt_e x = b for the operators of `body` (prepared for dt) from the guess x.
  int solve(const BodyView& body, const std::vector<Vec3>& b, std::vector<Vec3>& x, int maxIterations,
            double tolerance, double* residual);

  /// M_ce Y and M_ce y (y = y' + W_t R^T g) as step 3 sums them, at displacements q and
  /// y' for the operators of `body` (the coupling pass).
  struct CouplingProducts {
    Core::Matrix MceY;
    Core::Vector Mcey;
  };
  CouplingProducts coupling(const BodyView& body, const std::vector<Vec3>& q, const std::vector<Vec3>& y,
                            const Quat& orientation, const Vec3& gravity);
  /// Steps 4-5 (the velocities pass) from (q, qdot) and y' with the core's change dvc
  /// over dt: the new qdot and q, and sum m qdot, sum m q.
  void velocities(const BodyView& body, const std::vector<Vec3>& q, const std::vector<Vec3>& qdot,
                  const std::vector<Vec3>& y, const Quat& orientation, const Vec3& gravity,
                  const Core::Vector& dvc, double dt, LayeredState& out, Vec3* mqdot, Vec3* mq);

  const std::string& renderer() const { return renderer_; }

  // ---- drawing straight from the textures -------------------------------------------------
  /// Computes in textures the deformed surface u = ub + q (body frame, w = 1 on nodes)
  /// and its unit vertex normals: from the resident state when it is body's current one
  /// (no transfer), else from body.state().q uploaded.
  void updateSurface(const LayeredBody& body);
  /// ... from displacements q, uploaded (into a scratch texture: the state stays).
  void updateSurface(const std::vector<Vec3>& q);
  const GlTexture& surfaceTexture() const { return surface_; }
  const GlTexture& normalTexture() const { return normals_; }
  /// Buffer texture (RG32I) of each node's texel, for a vertex shader indexed by node.
  GLuint nodeTexelTexture() const { return nodeTexelTex_; }
  /// The normals of the last updateSurface, per node (tests).
  std::vector<Vec3> readNormals() const { return downloadNodes(normals_); }
  /// ... and its surface u, per node (tests).
  std::vector<Vec3> readSurface() const { return downloadNodes(surface_); }
  /// The resident displacements q, per node (tests).
  std::vector<Vec3> readResidentQ() const { return downloadNodes(qNew_); }

 private:
  using Target = AtlasPasses::Target;
  using PassTimer = AtlasPasses::PassTimer;
  // A vertex of the scatter pass: a node texel and a value for it.
  struct ScatterPoint {
    GLint texel[2];
    GLfloat value[4];
  };
  // the constructor's parts (gpu_skin.cpp), in its order
  void compilePrograms();
  void createBuffers();
  void createWorkFields();
  void createDrawingMaps();
  /// Draws the points (scatter_) into the bound targets.
  void drawPoints(const std::vector<ScatterPoint>& points);
  /// Streams `bytes` of vertices into `buffer` and draws `count` points with `vao` (the
  /// program used, the targets bound).
  void streamPoints(GLuint vao, GLuint buffer, const void* data, size_t bytes, int count);
  /// The surface and normals passes from displacements in q.
  void surfacePasses(const GlTexture& q);
  /// Throws GlError unless this solver holds body's skin state (holds(body)): every pass
  /// on that state starts with it.
  void requireHeld(const BodyView& body) const;
  void uploadNodes(const GlTexture& t, const std::vector<Vec3>& x) { passes_.uploadNodes(t, x); }
  std::vector<Vec3> downloadNodes(const GlTexture& t) const { return passes_.downloadNodes(t); }
  GlTexture newField() const { return passes_.newField(); }
  GpuForceSums forcesPass(const Vec3& w, double alpha, double beta, double dt, bool nodeForces = false);
  CouplingProducts couplingProducts(const Mat3& R, const Vec3& gb);
  void velocitiesPass(const Vec3& tr, const Vec3& rot, double dt, Vec3* mqdotNew, Vec3* mqNew);
  BakedBodyPtr model_;
  AtlasPasses passes_;  // the plumbing of every pass below
  GpuOperators ops_;    // the operators of the body's time step
  GpuCg cg_;            // Mt_e y = b
  GpuContactRows rows_;  // the contact response's rows
  GpuDetection detection_;  // against planes and height fields
  GpuSummary summary_;  // the end-of-step summary
  int n_ = 0;  // atlas resolution
  std::string renderer_;

  ShaderProgram forces_, coupling_, velocities_,
      copy_, surfaceProgram_, normalsProgram_, condense_, responseEnergy_, apply_, scatter_,
      gather_;
  GlTexture q_, qdot_, qNew_, qdotNew_, z_, ma_;
  GlTexture nodeForces_;  // the external forces on each node, body frame (LayeredBody::nodeForces: support, loads)
  GlTexture impulseR_, impulseExtra_;  // the contact texture: r_i, the friction's f_i by node (body frame), 0 off contacts
  GLuint scatterVao_ = 0, scatterBuffer_ = 0;
  BodyId holder_ = nullptr;  // the body whose state q_ (start), qNew_, qdotNew_ hold
  int appliedImpulses_ = 0, stateUploads_ = 0, stateDownloads_ = 0;
  long gatheredNodes_ = 0, summaries_ = 0;
  GlTexture gatherQ_, gatherQdot_;  // the gather's targets (made at its first use)
  GLuint gatherVao_ = 0, gatherBuffer_ = 0;
  GlTexture goodQ_;                 // saveGood's copy of q (qdot: restored as 0)
  // the moments (mu, mqdot) of the state in qNew_, qdotNew_: moments_ plus the
  // corrections' shifts of mu and mqdot since, moments_ known, or still in momentSums_ (the apply
  // pass's reductions, read when asked for), or unknown (the summary pass then)
  enum class Moments { Unknown, Known, InTextures };
  Moments momentsAre_ = Moments::Unknown;
  SkinSummary moments_;
  Vec3 momentShift_ = Vec3::Zero(), momentQdotShift_ = Vec3::Zero();
  void scatterAdd(const GlTexture& target, const std::vector<std::pair<int, Vec3>>& values, double scale);
  GlTexture momentSums_[2];
  BodyId goodOf_ = nullptr;
  GlTexture surface_, normals_, around_;  // drawing: u, n, triangles around each node
  GLuint triangleBuffer_ = 0, triangleTex_ = 0, nodeTexelBuffer_ = 0, nodeTexelTex_ = 0;

};

}  // namespace d2t
