#pragma once
// The layered body in motion: a rigid core and a deformable skin whose
// displacements live on the D2T atlas, integrated with the decoupled
// linearised backward Euler of the DDT paper (sec. 4-5, Fig. 5; dissertation
// 3.2-3.4, appendices A-B; docs/design.md sec. 2-7). This is the CPU reference of
// every stage the GPU solver runs.
//
// Generalised coordinates: core position c (world) and orientation R, skin
// displacements q_i (body frame). Velocities v = [cdot (world); omega (body);
// qdot (body)]. Node i: u_i = ub_i + q_i (body frame), x_i = c + R u_i.
//
// Sections: the state (TouchingNode, LayeredState; the core's, CoreState, and its
// operations are core/rigid_core.h); contacts and rows
// (NodeContact, ContactRow, RowResult, RowSums, ImpulseSums); the backend
// interfaces (SkinResponse and its CPU reference CpuSkinResponse,
// FreeMotionSolver); the solver's constants and settings (SolverMethod, the support's
// relaxation, LayeredSettings, LayeredStepInfo); LayeredBody.
#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sim/model/baked_body.h"
#include "sim/body/body_view.h"
#include "sim/body/core/core_springs.h"
#include "sim/body/core_point_rows.h"
#include "sim/body/implicit_operator.h"
#include "sim/body/skin_residency.h"
#include "sim/body/skin_summary.h"
#include "sim/contact/core_contact.h"
#include "sim/loads/node_load.h"
#include "sim/morph/morph_elasticity.h"
#include "sim/base/profile.h"
#include "sim/scene/scene.h"

namespace d2t {

/// A skin node that the response held on a collider or on another body in a step
/// (its impulse was positive): the collider or body supports it in the next step's
/// free update (LayeredBody::computeSupport).
struct TouchingNode {
  int node = -1;
  Vec3 normal = Vec3::UnitY();  ///< world unit normal of the other surface there
  double force = 0;             ///< normal force the other surface gave it in that step [N]
  Vec3 surfaceVelocity = Vec3::Zero();  ///< world velocity of the other surface there [m/s]
  int other = -1;               ///< the other body (world index); -1: a collider
};

/// Mutable state of one layered body: the core's, the skin's, and the contacts it rests on.
struct LayeredState : CoreState {
  std::vector<Vec3> q;                   ///< (nnode) skin displacements, body frame [m]
  std::vector<Vec3> qdot;                ///< (nnode) skin velocities, body frame [m/s]
  std::vector<TouchingNode> touching;    ///< skin nodes held on colliders or bodies in the last step
};

/// A colliding skin node, found by collision detection (steps 6-8 / 14).
struct NodeContact {
  int node = -1;                    ///< node index
  Vec3 normal = Vec3::UnitY();      ///< world unit normal, pointing out of the other surface
  double depth = 0;                 ///< penetration depth [m] (> 0: penetrating, < 0: a gap)
  Vec3 surfaceVelocity = Vec3::Zero();  ///< world velocity of the other surface at the contact [m/s]
  double friction = 0.5;            ///< Coulomb coefficient of the pair [-]
  double restitution = 0.2;         ///< coefficient of restitution of the pair [-]
  double stiffnessShare = 1.0;      ///< k_j / (k_i + k_j): this node's share of the position correction
  int other = -1;                   ///< the other body (world index) of a contact between bodies; -1: a collider
  double startGap = -1;             ///< gap at the start of the step [m], set by the response's first sweep
  double impulse = 0;               ///< normal impulse the response gave this node in the step [N s]
  Vec3 frictionImpulse = Vec3::Zero();  ///< eq. 14's tangential impulse on this node in the step [N s]
  bool release = false;             ///< a supported node that left the collider: its support is taken back
};

/// A node's contact support in a step (LayeredBody::computeSupport): the force a collider
/// or another body gives it in the free update, relaxed from the last step's.
struct SupportedNode {
  int node = -1;
  Vec3 normal = Vec3::UnitY();  ///< world unit normal of the supporting surface
  double force = 0;             ///< along normal, > 0 [N]
  int other = -1;               ///< the supporting body (world index); -1: a collider
};

/// The mouse's spring from a skin node to a world target (see LayeredBody::beginDrag).
struct DragSpring {
  int node = -1;               ///< dragged skin node; -1: no drag
  Vec3 target = Vec3::Zero();  ///< world target [m]
  double stiffness = 0;        ///< k [N/m]
  double damping = 0;          ///< c [N s/m]
};

/// What the collision-free update (steps 1-5) hands to the contact stages.
struct FreeStepResult {
  Core::Matrix coreMass = Core::Matrix::Zero();  ///< M_c at the start of the step (core block of the mass matrix)
  /// The condensed core matrix of (3.8) as solved, core springs included (Mcond + S)
  Core::Matrix condensedMass = Core::Matrix::Zero();
  Vec3 springImpulse = Vec3::Zero();  ///< impulse of the core springs over the step (world) [N s]
  int cgIterations = 0;          ///< CG iterations of the y solve
  double cgResidual = 0;         ///< its final relative residual
  /// Keeps what step 3's core solve gives besides dv_c, and returns dv_c.
  Core::Vector keep(const CoreSolve& core) {
    condensedMass = core.condensedMass;
    springImpulse = core.springImpulse;
    return core.dv;
  }
};

/// One row of the contact response (steps 9-12, eq. (12)-(14)): a node against a
/// surface. A node may have several rows (several surfaces); `previous` and `next` link
/// the rows of the same node in list order, so that its friction is applied row after
/// row as on the CPU.
struct ContactRow {
  int node = -1;
  Vec3 normal = Vec3::UnitY();           ///< world unit normal, pushing the node out
  Vec3 surfaceVelocity = Vec3::Zero();   ///< world velocity of the surface there [m/s]
  double depth = 0;                      ///< penetration at the predicted state [m]
  double startGap = -1;                  ///< gap at the start of the step; < 0: from the row
  double lo = 0;                         ///< the lowest multiplier (minus what the row has) [N s]
  double friction = 0;                   ///< Coulomb coefficient
  bool release = false;                  ///< a support taken back: starts and stays at lo
  /// A row against the body's own core (core_contact.h): its surface is the core, which
  /// moves with the body, so it constrains the node's velocity relative to the core,
  /// nb . qdot_i, and its force on the node and its reaction on the core cancel on the
  /// core's dofs (RigidCore::skinRowCoupling); surfaceVelocity is unused.
  bool onCore = false;
  int previous = -1, next = -1;          ///< the rows of the same node around this one
};

/// What a row gave: its multiplier (exactly lo for a row out of the active set), its
/// start gap and the friction impulse on the node (world).
struct RowResult {
  double lambda = 0;
  double startGap = 0;
  Vec3 frictionImpulse = Vec3::Zero();  ///< [N s]
};

/// The sums over the rows of one active-set round (SkinResponse::roundRows), with U_k
/// the coupling row, D_k the diagonal term and b_k the target of row k:
///   S = sum_active U_k U_k^T / D_k,  rhs = sum_active U_k b_k / D_k + sum_out U_k lambda_k
/// so that the core's velocity change is dv = (Mh_cond + S)^-1 rhs (the SMW form).
struct RowSums {
  Core::Matrix S = Core::Matrix::Zero();
  Core::Vector rhs = Core::Vector::Zero();
  int below = 0;  ///< rows whose multiplier came out below lo in this round
};

/// The impulse of the rows on the core and its sums through Mh_e (step 11), body frame
/// but fc's linear part (world): fc = sum (lambda n, u x R^T lambda n), mt = sum m_i
/// Mh_i^-1 r_i, mr = sum m_i u_i x Mh_i^-1 r_i with r_i = R^T lambda n.
struct ImpulseSums {
  Core::Vector fc = Core::Vector::Zero();
  Vec3 mt = Vec3::Zero(), mr = Vec3::Zero();
};

/// The contact response's passes over every skin node and contact row (steps 9-13): on
/// the CPU (CpuSkinResponse, the reference) or where a backend keeps the skin state (the
/// GPU solver). The rows go in, the core's sums and the rows' results come out; the core's
/// solves are the caller's (LayeredBody::respondThrough).
class SkinResponse {
 public:
  virtual ~SkinResponse() = default;
  /// The condensation sums at the skin state s.
  virtual CondensedSums condense(const BodyView& body, const LayeredState& s) = 0;

  // ---- the contact rows (steps 9-12): set, solved in rounds, applied; kept in between ----
  /// Step 9 for every row at state s (the predicted one; its core velocities are the ones
  /// before the response): the diagonal term D_k = nb^T Mh_i^-1 nb, the coupling row U_k
  /// (0 with a fixed core), the target b_k = -v_n - gap / dt (0 for a release row) and the
  /// start gap. Rows start in the active set with lambda = 0, release rows out at lo.
  virtual void setRows(const BodyView& body, const LayeredState& s, const std::vector<ContactRow>& rows,
                       double dt, bool fixedCore) = 0;
  /// One active-set round. With dv (the core's velocity change of the last round's sums),
  /// the active rows take lambda_k = (b_k - U_k . dv) / D_k, and those below lo leave the
  /// set at lo if oneSided; then the sums over the set as it is. Without dv: the sums only.
  virtual RowSums roundRows(const Core::Vector* dv, bool oneSided) = 0;
  /// Step 11: the rows' impulses r_i = R^T lambda_k n_k summed by node, and their sums.
  virtual ImpulseSums impulse(const BodyView& body, const LayeredState& s) = 0;
  /// The kinetic energy along the impulse, KE(t) = k0 + ka t + kb t^2 for skin velocities
  /// qdot_i + t dq_i and core velocities v + t dv: the skin's part, (k0, ka, kb) = sum_i
  /// m_i (|v_i|^2 / 2, v_i . d_i, |d_i|^2 / 2) with v_i = vb + w x u_i + qdot_i, d_i = dvt +
  /// dw x u_i + dq_i, dq_i = Mh_i^-1 (r_i - m_i (dvt - u_i x dw)) (vb = R^T cdot, w: the
  /// state's, body frame; dvt = R^T dv_t, dw: the core's change, body frame).
  virtual Vec3 energy(const BodyView& body, const LayeredState& s, const Vec3& dvt, const Vec3& dw) = 0;
  /// Step 12, friction (14) at the rows with a positive total impulse, in row order per
  /// node: xt the node's tangential velocity after share dq_i and the core's new velocity
  /// (s's), the impulse f = -m_i min(1, mu |after - before| / |xt|) xt (world), before:
  /// the node's velocity when the rows were set; a node's later rows see qdot_i +=
  /// Mh_i^-1 R^T f. The impulses act through the whole response as the rows' do (step
  /// 11), so what the node's Mh_i^-1 does not take moves the core: their sums come back
  /// (as impulse()'s), the impulses by node are kept for apply().
  virtual ImpulseSums friction(const BodyView& body, const LayeredState& s, double share, const Vec3& dvt,
                               const Vec3& dw) = 0;
  /// The rows' results, in row order.
  virtual std::vector<RowResult> rowResults() = 0;
  /// qdot_i += share dq_i + Mh_i^-1 (f_i - m_i (fdvt - u_i x fdw)) with f_i the friction's
  /// impulse on the node (body frame) and (fdvt, fdw) the core's change from the
  /// friction's sums (body frame), then q_i = startQ_i + dt qdot_i, into s.
  virtual void apply(const BodyView& body, const std::vector<Vec3>& startQ, const Vec3& dvt,
                     const Vec3& dw, double share, const Vec3& frictionDvt, const Vec3& frictionDw, double dt,
                     LayeredState& s) = 0;

  /// From now until the next call: the listed nodes (node, d_i: body frame, unit) are
  /// held on the core along d_i, as a crushed layer is: every pass below takes their
  /// Mh_i^-1 as heldInverse(Mh_i^-1, d_i), so no impulse moves them along d_i relative
  /// to the core and what pushes them along d_i pushes the core (core_contact.h).
  virtual void holdOnCore(const BodyView& body, const std::vector<std::pair<int, Vec3>>& held) = 0;
  /// The nodes past their limits on the core at state s, or within margin h_i + reach
  /// [m] of them (findCoreContacts with Material::minLayer = keep), by node.
  virtual void findCoreContacts(const BodyView& body, const LayeredState& s, double keep, double margin,
                                double reach, std::vector<CoreContact>* out) = 0;
  /// The position correction (step 15): q_i += dq_i at the listed nodes (sorted by node,
  /// each node once; body frame [m]), into s.
  virtual void correct(const BodyView& body, const std::vector<std::pair<int, Vec3>>& dq,
                       LayeredState& s) = 0;
  /// The loads' velocity corrections (node_load.h): qdot_i += dqdot_i and q_i += dt
  /// dqdot_i at the listed nodes (sorted by node, each node once; body frame), into s.
  virtual void changeVelocities(const BodyView& body, const std::vector<std::pair<int, Vec3>>& dqdot, double dt,
                                LayeredState& s) = 0;
  /// The skin's summary at state s, `up` a unit direction (body frame) for `lowest`.
  virtual SkinSummary summarize(const BodyView& body, const LayeredState& s, const Vec3& up) = 0;
  /// The largest skin displacement max |q_i| at state s (SkinSummary::maxQ alone).
  virtual double maxDisplacement(const BodyView& body, const LayeredState& s) {
    return summarize(body, s, Vec3::UnitY()).maxQ;
  }
  /// Adds the time the backend measured for these passes since the last call (GPU timer
  /// queries) to `profile`.
  virtual void takeTimes(Profile& profile) { (void)profile; }
};

/// The CPU reference of SkinResponse: loops over the nodes and rows in double.
class CpuSkinResponse final : public SkinResponse {
 public:
  CondensedSums condense(const BodyView& body, const LayeredState& s) override;
  void setRows(const BodyView& body, const LayeredState& s, const std::vector<ContactRow>& rows, double dt,
               bool fixedCore) override;
  RowSums roundRows(const Core::Vector* dv, bool oneSided) override;
  ImpulseSums impulse(const BodyView& body, const LayeredState& s) override;
  Vec3 energy(const BodyView& body, const LayeredState& s, const Vec3& dvt, const Vec3& dw) override;
  ImpulseSums friction(const BodyView& body, const LayeredState& s, double share, const Vec3& dvt,
                       const Vec3& dw) override;
  std::vector<RowResult> rowResults() override;
  void apply(const BodyView& body, const std::vector<Vec3>& startQ, const Vec3& dvt, const Vec3& dw,
             double share, const Vec3& frictionDvt, const Vec3& frictionDw, double dt,
             LayeredState& s) override;
  void holdOnCore(const BodyView& body, const std::vector<std::pair<int, Vec3>>& held) override;
  void findCoreContacts(const BodyView& body, const LayeredState& s, double keep, double margin, double reach,
                        std::vector<CoreContact>* out) override;
  void correct(const BodyView& body, const std::vector<std::pair<int, Vec3>>& dq,
               LayeredState& s) override;
  void changeVelocities(const BodyView& body, const std::vector<std::pair<int, Vec3>>& dqdot, double dt,
                        LayeredState& s) override;
  SkinSummary summarize(const BodyView& body, const LayeredState& s, const Vec3& up) override;

 private:
  // Mh_i^-1 of every node as the passes take it: the operator's, or held_ (holdOnCore)
  const std::vector<Mat3>& hinv(const BodyView& body) const { return holding_ ? held_ : body.op.diagInverse(); }
  std::vector<Mat3> held_;
  bool holding_ = false;
  struct Row {
    Core::Vector U = Core::Vector::Zero();
    double D = 1, b = 0, lambda = 0, startGap = 0;
    bool active = true;
    Vec3 before = Vec3::Zero();  // the node's velocity when set (world)
    Vec3 frictionImpulse = Vec3::Zero();
  };
  std::vector<ContactRow> in_;
  std::vector<Row> rows_;
  std::vector<std::pair<int, Vec3>> r_, extra_;  // (node, r_i), (node, friction f_i), by node, body frame
  std::vector<Vec3> dq_;  // dq_i of energy()'s (dvt, dw), reused by apply() when unchanged
  Vec3 dqDvt_ = Vec3::Zero(), dqDw_ = Vec3::Zero();
  bool cached_ = false;
};

/// A skin node within the margin of a plane or height field (World::findContacts):
/// the deepest such collider of the node.
struct ColliderHit {
  int node = -1;
  int collider = -1;                ///< index into the colliders queried
  double depth = 0;                 ///< -signed distance [m] (> 0: penetrating)
  Vec3 normal = Vec3::UnitY();      ///< world unit normal of the collider there
  Vec3 velocity = Vec3::Zero();     ///< world velocity of the collider's surface there [m/s]
};

/// Steps 1-5 done by another backend (the GPU solver): advances the body's state s
/// from its start-of-step value by the collision-free update of dt. The core's state
/// is written into s; the skin's (q, qdot) stays on the backend, and the body reads it
/// back when something asks for it (readSkin, readNodes: LayeredBody::state()).
class FreeMotionSolver {
 public:
  virtual ~FreeMotionSolver() = default;
  virtual FreeStepResult integrate(const BodyView& body, LayeredState& s, double dt,
                                   const Vec3& gravity, Profile& profile) = 0;
  /// The skin state the backend holds for body (holds(body)), into s.q and s.qdot: the
  /// whole field crosses.
  virtual void readSkin(const BodyView& body, LayeredState& s) = 0;
  /// ... at the listed nodes only (a gather; the other nodes of s are left as they are).
  virtual void readNodes(const BodyView& body, const std::vector<int>& nodes, LayeredState& s) = 0;
  /// The skin's first moments of the state it holds for body: SkinSummary::mu and mqdot
  /// (the rest of the summary may be left out). For the centre of mass and momentum.
  virtual SkinSummary moments(const BodyView& body) = 0;
  /// Keeps a copy of the skin state it holds for body, on the backend (the last good
  /// state of the blow-up check); restoreGood() makes it the state again, with qdot = 0.
  virtual void saveGood(const BodyView& body) = 0;
  virtual void restoreGood(const BodyView& body) = 0;
  /// The backend's contact response passes, or nullptr (the CPU runs them). They work
  /// on the backend's copy of the skin state, which integrate() leaves as the body's
  /// state and load() makes equal to s (and the start displacements) again;
  /// holds(body): the copy is body's (another use of the backend may have replaced it).
  /// The copy outlives the step: while body.skinResident(), integrate() starts from it
  /// instead of uploading the state again.
  virtual SkinResponse* response() { return nullptr; }
  virtual void load(const BodyView& body, const LayeredState& s, const std::vector<Vec3>& startQ) {
    (void)body, (void)s, (void)startQ;
  }
  virtual bool holds(BodyId body) const {
    (void)body;
    return false;
  }
  /// Collision detection of the resident skin state (body.skinResident()) against planes
  /// and height fields, as Collider::query: the nodes within `margin` of one, deepest
  /// collider each, sorted by node, into hits. False: this backend does not detect (the
  /// CPU does). Adds its time to `profile`.
  virtual bool detectColliders(const BodyView& body, const std::vector<const class Collider*>& colliders,
                               double margin, std::vector<ColliderHit>* hits, Profile& profile) {
    (void)body, (void)colliders, (void)margin, (void)hits, (void)profile;
    return false;
  }
};

/// The contact support (LayeredBody::computeSupport) follows the force that holds each
/// touching node, F_n = F_{n-1} + theta (target - F_{n-1}), a Jacobi iteration on the
/// contact forces, one sweep per step (the block-diagonal response finishes each step).
/// Undamped it diverges where the skin couples neighbouring contacts strongly, so
///   theta_i = min(1, max(kSupportRelaxation / sqrt(r_i), kSupportPatchRelaxation / sqrt(N)))
/// with r_i = n.Mt_ii n / ((1 + dt alpha) m_i), how much stiffer the node's implicit
/// diagonal is than its mass, and N the body's touching nodes: a load spread over a
/// patch of N nodes meets about sqrt(N) times less stiffness per node (Boussinesq), which
/// bounds the patch's collective mode too. Both constants are half the measured onset
/// of divergence (docs/decisions/0013-support-relaxation.md).
constexpr double kSupportRelaxation = 1.0;
constexpr double kSupportPatchRelaxation = 2.5;
/// ... times this between two bodies: both sides iterate at once and the world passes
/// the smaller total to both (World::balancePairSupport), so one side's overshoot
/// reaches the other in the same step (docs/decisions/0015-pair-support-balance.md).
constexpr double kPairSupportRelaxation = 0.5;

/// The free update's rotational coupling columns are solved exactly in a step whose skin
/// has a node displaced by more than this fraction of its rest distance from the body's
/// centre (its frame's origin; the core's centre for a ball)
/// (the low end of the 30-40% of the radius that the paper gives linear elasticity in the
/// body frame); below it the cache holds (docs/decisions/0007, 0027).
constexpr double kCachedCouplingReach = 0.3;

/// Solver settings that a scene or a panel may change.
struct LayeredSettings {
  SolverMethod method = SolverMethod::Auto;

  int cgIterations = 50;        ///< maximum CG iterations per solve
  double cgTolerance = 1e-6;    ///< CG relative residual
  bool exactCoupling = false;   ///< solve Mt_e Y = M_ec every step instead of the cache
  bool fixedCore = false;       ///< hold the core still (tests; a head held at the neck)
  /// (tests) a reduced skin with a linear force steps as the Galerkin projection of the nodal
  /// step (integrateFree through the reduced operator), the reference of the step in z
  /// (integrateReduced); reduced StVK, whose force exists only in z, always steps in z.
  bool reducedNodal = false;
  /// The contact response's units, each on or off (the world's, set every step).
  ResponsePolicies response;
};

/// Statistics of the last step.
struct LayeredStepInfo {
  int cgIterations = 0;       ///< CG iterations of the y solve
  double cgResidual = 0;      ///< final relative residual of the y solve
  int contacts = 0;           ///< colliding nodes (step 7-8), and supported ones in contact
  int activeContacts = 0;     ///< contacts with lambda > 0 after the one-sided iteration
  int pulling = 0;            ///< contacts whose equality multiplier would pull (lambda < 0)
  double leastImpulse = 0;    ///< min(0, the smallest normal impulse of a contact row) [N s]: < 0 where a row pulled
  int corrected = 0;          ///< nodes moved by the position correction (step 15)
  double maxCorrection = 0;   ///< largest position correction of the step [m]
  double finalPenetration = 0;  ///< deepest penetration left after the correction [m]
  double maxPenetration = 0;  ///< deepest penetration before the correction [m]
  int coreContacts = 0;       ///< nodes crushed onto the core at the predicted state (rows on the core)
  double coreCorrection = 0;  ///< largest correction out of the core of the step [m]
};

class LayeredBody {
 public:
  LayeredBody(BakedBodyPtr model, const BodyDesc& desc);

  const BakedBody& model() const { return *model_; }
  const BakedBodyPtr& modelPtr() const { return model_; }
  const BodyDesc& desc() const { return desc_; }
  int nodeCount() const { return model_->nodeCount(); }
  /// This body's identity for its backends (FreeMotionSolver::holds).
  BodyId id() const { return this; }
  /// What a backend reads of this body (body_view.h): valid while the body lives and
  /// its operators are not rebuilt, i.e. within the call it is made for.
  BodyView view() const {
    return BodyView{.id = id(), .model = *model_, .elastic = *elastic_, .op = op_, .settings = settings_,
                    .material = desc_.material, .forces = forces_, .core = state_, .springs = springs_,
                    .skinResident = skinResident()};
  }

  /// The state. Where the free-motion solver holds the skin (skinResident()), the CPU's
  /// q and qdot are a mirror (skin_residency.h): this reads it back first (whole,
  /// FreeMotionSolver::readSkin) if the solver changed it since.
  const LayeredState& state() {
    syncSkin();
    return state_;
  }
  /// ... as it is: throws std::logic_error while the mirror is stale (a const body
  /// cannot read the skin back; syncSkin() it first).
  const LayeredState& state() const {
    requireMirror("state");
    return state_;
  }
  /// The core's state: never waits for the skin.
  const CoreState& core() const { return state_; }
  /// The state, to write: this also tells the free-motion solver that its copy of the
  /// skin is stale (it is loaded again before its next use).
  LayeredState& editState() {
    syncSkin();
    skin_.writtenOnCpu();
    return state_;
  }
  /// Reads the skin back from the free-motion solver if it changed it since the last
  /// read (whole): state() const and every node's reads are current afterwards.
  void syncSkin();
  /// ... these nodes only (one gather), so that their reads after it (nodePosition,
  /// ...) do not read back the whole skin.
  void syncNodes(const std::vector<int>& nodes);
  /// The skin's first moments (sum m u, sum m qdot) from the solver where it holds the
  /// skin (a reduction there, no transfer of the skin): centerOfMass() const and
  /// linearMomentum() const are current afterwards.
  void syncMoments();
  /// True while the CPU's copy of the skin is behind the solver's: a read of a node not
  /// synced reads the whole skin back (worth knowing before a syncNodes).
  bool skinMirrorStale() const { return skin_.mirrorStale(); }
  /// Everything of this body that its next step reads: the state, and what the
  /// solver carries from one step to the next (the support's forces, which the next
  /// step relaxes from; the warm starts of the y solve; the restitution episode; the
  /// drag). restore(snapshot()) makes the next steps bit for bit the same.
  struct Snapshot {
    uint64_t model = 0;  ///< the fingerprint of the model it was taken with (restore() needs it)
    double dt = -1;      ///< the time step its operators were prepared for (-1: none yet)
    SolverMethod method = SolverMethod::Auto;  ///< ... and the solver method
    LayeredState state;
    std::vector<SupportedNode> supported;
    ProjectedWarmStart::History warmStart;
    int previousContacts = 0;
    DragSpring drag;
    MorphElasticity::Memory morph;  ///< the morph targets' blend (ch. 5; empty without them)
  };
  Snapshot snapshot();
  /// Back to a snapshot of this body (on the free-motion solver, the skin is loaded
  /// again at the next step). Throws std::invalid_argument for a snapshot taken with
  /// another model (a material changed since).
  void restore(const Snapshot& snapshot);
  /// Keeps the current state as the last good one (the World's blow-up check): on the
  /// free-motion solver where it holds the skin (no transfer).
  void saveGood();
  /// Back to the last good state, at rest (every velocity zero).
  void restoreGood();
  /// Puts the body at the scene's initial pose and velocity, skin at rest.
  void resetToDesc();
  /// Swaps in a model re-baked from the same shape and atlas with another
  /// material (`desc`): the skin keeps its world positions and velocities (the
  /// body frame follows the new centre of mass); the operators are rebuilt at
  /// the next step.
  void replaceModel(BakedBodyPtr model, const BodyDesc& desc);

  LayeredSettings& settings() { return settings_; }
  const LayeredSettings& settings() const { return settings_; }

  // ---- the step in phases, which World::step interleaves across bodies (Fig. 3.5) ------
  /// Keeps the start state and plans this step's contact support (computeSupport).
  void startStep(double dt, const Vec3& gravity, Profile& profile);
  /// Steps 1-5 after startStep: the collision-free update (CPU or the free-motion
  /// solver) from the start state to the predicted state, with the support as planned.
  void integrateStep(double dt, const Vec3& gravity, Profile& profile);
  /// A node's support in this step: its world position [m], the world unit normal of
  /// the supporting surface and the force along it [N].
  struct SupportEntry {
    int node = -1;
    Vec3 x = Vec3::Zero();
    Vec3 normal = Vec3::UnitY();
    double force = 0;
  };
  /// Between startStep and integrateStep: the nodes that body `other` (world index;
  /// -1: colliders) supports in this step, by node ...
  std::vector<SupportEntry> supportFrom(int other) const;
  /// The bodies (world indices, ascending) that support this one in this step.
  std::vector<int> supportPartners() const;
  /// ... and their forces changed to `forces` (in that order; <= 0: not supported). A
  /// world makes the two bodies of a pair support each other as Newton's third law
  /// says: equal and opposite totals along one line of action (World::balancePairSupport).
  void setSupportFrom(int other, const std::vector<double>& forces);
  /// Steps 6-13 with the contacts found at the predicted state (depth <= 0 ignored,
  /// and removed from `contacts`, unless the node is supported: see computeSupport).
  /// Finders must report nodes within a margin outside the surface as well
  /// (World: kContactMargin), so that a supported node that lifts a little keeps
  /// its row. A world may run further sweeps over the same contacts with updated
  /// surface velocities (firstSweep false): they re-solve the constraints from the
  /// current velocities, without the restitution impact and the episode
  /// bookkeeping of the first; each row's total impulse stays >= 0.
  void respond(std::vector<NodeContact>& contacts, double dt, const Vec3& gravity, Profile& profile,
               bool firstSweep = true);
  /// The core points within their crushed layer of a collider, found at the predicted
  /// state (before respond) or after the response (before correct): rows of the response
  /// on the core, and the correction's lift (core_point_rows.h).
  void setCorePointContacts(std::vector<CorePointContact> contacts) { corePoints_ = std::move(contacts); }
  /// Step 15 with the contacts found after the response, for a step of dt [s].
  void correct(const std::vector<NodeContact>& contacts, double dt, Profile& profile);
  /// ... and its end (policy `skin_on_core`): the nodes left past a limit on the core
  /// moved back onto it, where `skin` (the summary after correct) says there are any.
  /// True if it moved nodes (the summary is then out of date).
  bool correctLimits(const SkinSummary& skin, Profile& profile);

  const LayeredStepInfo& lastStep() const { return info_; }

  /// This step's external forces on the skin, which both backends add in the free
  /// update: the contact support and every attached load (addLoad).
  ///
  /// The support of the resting skin by colliders and other bodies. Each node that touched a collider
  /// or a body at the end of the last step (LayeredState::touching) is relieved of the
  /// part of its own force (elastic, damping, inertial, gravity) that pushes it into
  /// the other surface. Between bodies both sides are supported, each by its own force,
  /// and a world balances the two totals (scaleSupportFrom).
  /// At rest that is the contact force, so the implicit solve spreads it through
  /// Mt_e^-1 like every other force and the response (steps 9-11, block-diagonal)
  /// is left with the increments only; where it would pull, the response takes the
  /// support back.
  const NodeForces& nodeForces() const { return forces_; }
  /// Attaches an external load on the skin's nodes, from the next step on.
  void addLoad(std::shared_ptr<const NodeLoad> load) {
    if (load) loads_.push_back(std::move(load));
  }
  /// Detaches a load (nothing if it is not attached).
  void removeLoad(const NodeLoad* load) {
    std::erase_if(loads_, [&](const auto& l) { return l.get() == load; });
  }
  const std::vector<std::shared_ptr<const NodeLoad>>& loads() const { return loads_; }

  /// Runs steps 1-5 on `solver` instead of the CPU (nullptr: back to the CPU).
  void setFreeMotionSolver(std::shared_ptr<FreeMotionSolver> solver);
  const FreeMotionSolver* freeMotionSolver() const { return skin_.solver(); }
  /// The free-motion solver holds this body's current skin state (q, qdot): nothing
  /// wrote it on the CPU since the solver's last pass, so the solver need not load it.
  bool skinResident() const { return skin_.solverHolds() && skin_.solver()->holds(id()); }
  std::shared_ptr<FreeMotionSolver> freeMotionSolverShared() const { return skin_.sharedSolver(); }
  /// Why the free-motion solver was dropped during a step (then cleared); empty if it was not.
  std::string takeBackendFailure() { return skin_.takeFailure(); }
  /// Its node loops run across the CPU's threads (a skin of more than kParallelNodes,
  /// node_loops.h): the world steps it alone, not beside other bodies (World::eachBody).
  bool threadsNodeLoops() const;

  // ---- the operators of the current time step, for other backends -------------------------
  /// The implicit operator Mt_e of the current time step (built by startStep).
  const ImplicitOperator& implicitOperator() const { return op_; }
  /// The skin's elastic model (K_e).
  const ElasticModel& elastic() const { return *elastic_; }
  /// The dynamic morph targets' model (ch. 5) of a body that has them, else null: its pose
  /// is set before each step (World's pose stage); K_e and f0 follow.
  MorphElasticity* morphTargets() { return morph_; }
  const MorphElasticity* morphTargets() const { return morph_; }
  /// Changes the velocities as an impulse [N s] at world point `at` would change
  /// those of the rigidified body (skin velocities unchanged); moveDt as changeRigidVelocity.
  void applyRigidImpulse(const Vec3& impulse, const Vec3& at, double moveDt = 0);
  /// Changes the rigidified body's motion by dvCom (centre of mass) and dw (world
  /// angular velocity), skin velocities unchanged. moveDt > 0: the step's positions
  /// were already integrated from the velocities; they move with the change too.
  void changeRigidVelocity(const Vec3& dvCom, const Vec3& dw, double moveDt = 0);
  /// Step 15 on the core from outside (World::separateCores): the body, core and skin
  /// together, moves by d [m] (world), counted into the step's coreCorrection.
  void liftCoreBy(const Vec3& d) {
    state_.position += d;
    info_.coreCorrection = std::max(info_.coreCorrection, d.norm());
  }
  /// Core block M_c of the mass matrix at the current state.
  Core::Matrix coreMassMatrix() const;

  // ---- springs on the core (scene) and on the skin (the mouse) -------------------------
  /// The core springs (anchors resolved at the scene's initial pose).
  const std::vector<CoreSpring>& coreSprings() const { return springs_; }
  std::vector<CoreSpring>& coreSprings() { return springs_; }
  /// Potential energy of the core springs and of the drag spring [J].
  double springEnergy() const;

  /// Pulls skin node `node` toward the world point `target` with a spring of stiffness
  /// k [N/m] and damping c [N s/m] (c < 0: critically damped, c = 2 sqrt(k m_eff) with
  /// m_eff the rigidified body's effective mass at the node, or the skin's mass when the
  /// core is held). The spring is part of the implicit step: after the free update its
  /// impulse is solved with the node's exact compliance G = L_i Mt^-1 L_i^T (a rank-3
  /// Woodbury update of the decoupled solve), which is backward Euler with the spring
  /// inside Mt: stable for any k and dt. Throws std::out_of_range for a bad node and
  /// std::invalid_argument for a non-finite target or a stiffness that is not > 0.
  void beginDrag(int node, const Vec3& target, double stiffness, double damping = -1);
  /// Moves the spring's world target [m] (a non-finite one is ignored).
  void moveDrag(const Vec3& target) {
    if (target.allFinite()) drag_.target = target;
  }
  void endDrag() { drag_ = DragSpring{}; }
  bool dragging() const { return drag_.node >= 0; }
  const DragSpring& drag() const { return drag_; }
  /// Impulse of the drag spring over the last step (world) [N s].
  const Vec3& lastDragImpulse() const { return dragImpulse_; }

  // ---- kinematics and invariants (world frame) ----------------------------------------
  // Each read has two forms: on a body, it reads back what it needs from the solver
  // holding the skin (node i alone if synced, else the whole skin; the moments by a
  // reduction there); on a const body, it reads the CPU's copy and throws
  // std::logic_error where that is stale (see state()).
  Vec3 nodePosition(int i) const;   ///< x_i = c + R u_i [m]
  Vec3 nodeLocal(int i) const;      ///< u_i = rest_i + q_i (body frame) [m]
  Vec3 nodeVelocity(int i) const;   ///< xdot_i = cdot + R (omega x u_i + qdot_i) [m/s]
  Vec3 nodePosition(int i) { return syncNode(i).nodePosition(i); }
  Vec3 nodeLocal(int i) { return syncNode(i).nodeLocal(i); }
  Vec3 nodeVelocity(int i) { return syncNode(i).nodeVelocity(i); }
  double totalMass() const { return model_->totalMass; }
  Vec3 centerOfMass() const { return centerOfMass(moments()); }  ///< of core + skin nodes [m]
  /// The lowest point of the core's surface along the world unit direction `up`: min over
  /// the core points f_i of up . (c + R f_i) [m] (the core surface is their mesh).
  double coreLowest(const Vec3& up) const;
  /// The core's radius about the body-frame origin, max |f_i| [m], and the skin's
  /// thickest layer, max h_i [m] (computed once).
  std::pair<double, double> coreExtent() const;
  Vec3 linearMomentum() const { return linearMomentum(moments()); }  ///< [kg m/s]
  Vec3 centerOfMass() {
    syncMoments();
    return std::as_const(*this).centerOfMass();
  }
  Vec3 linearMomentum() {
    syncMoments();
    return std::as_const(*this).linearMomentum();
  }
  /// The largest skin displacement |q_i| [m] (a summary pass where the solver holds the skin).
  double maxDisplacement();
  Vec3 angularMomentum(const Vec3& about);  ///< [kg m^2/s]
  double kineticEnergy() { return kineticEnergy(skinSummary()); }  ///< [J]
  double elasticEnergy() { return skinSummary().elastic; }        ///< 1/2 q^T K q [J]
  double gravitationalEnergy(const Vec3& g) { return gravitationalEnergy(skinSummary(), g); }  ///< [J]
  /// The skin's summary at the current state, on the CPU in double (`up`: body frame).
  SkinSummary skinSummary(const Vec3& up = Vec3::UnitY());
  /// ... from the backend holding the skin state (body.skinResident(): a pass there, no
  /// transfer), else the CPU's; the backend's time goes to `profile`. A backend failure
  /// falls back to the CPU (takeBackendFailure()).
  SkinSummary summarize(const Vec3& up, Profile& profile);
  // the same quantities from a summary of the current skin state (world frame)
  Vec3 centerOfMass(const SkinSummary& s) const;
  Vec3 linearMomentum(const SkinSummary& s) const;
  double kineticEnergy(const SkinSummary& s) const;
  double gravitationalEnergy(const SkinSummary& s, const Vec3& g) const;

 private:
  // the key of Mt_e for a step of dt by `method` with this body's model and material
  ImplicitOperator::Key operatorKey(double dt, SolverMethod method) const;
  void projectOnBasis();  // (a reduced operator) the skin state onto span U, z_ and zdot_ its coordinates
  bool stepsInZ() const;  // (a reduced operator) the free update runs in z (integrateReduced)
  void resolveSprings();    // core springs from desc_ (anchors at the initial pose)
  void applyDrag(double dt, Profile& profile);  // the drag spring's implicit impulse
  void solveDragColumns();  // dragZ_ for the dragged node and the current operator
  // steps 9-13 through the response backend r: the rows solved (the core's solves here),
  // the impulse and friction on the skin; the core's velocities set from v0, w0 (those
  // before the response: a backend failure reruns it all on the CPU)
  struct RowOutcome {
    std::vector<RowResult> rows;
    double share = 1;  // of the impulse that went in
    int pulling = 0;   // rows whose first multiplier pulled
  };
  // the energy guard's frame (policy `energy_guard`): on where no collider the rows touch
  // moves (a moving collider does work), the kinetic energy measured relative to the
  // rows' mean surface velocity (zero against colliders at rest)
  struct GuardFrame {
    bool on = true;
    bool againstBodies = false;    // a row against another body
    Vec3 velocity = Vec3::Zero();  // [m/s] world
  };
  RowOutcome respondThrough(SkinResponse& r, const std::vector<ContactRow>& rows,
                            const std::vector<CorePointContact>& corePoints, const Vec3& v0, const Vec3& w0,
                            double dt, const GuardFrame& guard, Profile& profile);
  // the units of respond (response_policies.h), in the order it calls them
  void addSupportRows(std::vector<NodeContact>& cs, double dt) const;
  struct ImpactMotion {  // the rigid motion before a restitution impact within the step
    Vec3 velocity = Vec3::Zero(), angularVelocity = Vec3::Zero();  // (world; body frame)
  };
  ImpactMotion colliderImpact(const std::vector<NodeContact>& cs, double dt, const Vec3& g);
  static std::vector<ContactRow> contactRows(const std::vector<NodeContact>& cs, bool onCore, bool friction,
                                             GuardFrame* guard);
  void respondRows(std::vector<NodeContact>& cs, bool onCore, double dt, Profile& profile);
  void takeRowResults(const RowOutcome& out, std::vector<NodeContact>& cs);
  // policy `skin_on_core` (core_contact.h): this step's rows against the core, found at
  // the predicted state by the first sweep, their impulses kept over the sweeps
  void findCoreRows(double dt, Profile& profile);
  // the nodes at a surface as step 15's detection found them (sorted by node):
  // correctLimits moves none of them into its surface
  struct SurfaceNode {
    int node = -1;
    Vec3 normal = Vec3::UnitY();  // the surface's, body frame
    double gap = 0;               // [m] the node's distance from it (0: in it)
  };
  std::vector<SurfaceNode> onSurfaces_;
  double coreReachSpeed() const;  // the fastest speed of a core point [m/s]
  void restoreLinearMomentum(const Vec3& before);  // back to `before` through the core
  // step 15's part: the core lifted off the colliders
  void liftCore();
  std::vector<NodeContact> coreContacts_;       // this step's rows on the core (findCoreRows)
  std::vector<std::pair<int, Vec3>> heldNodes_;  // ... the nodes and n_i held on the core (holdOnCore)
  std::vector<CorePointContact> corePoints_;     // the core's points near colliders (setCorePointContacts)
  CorePointRows corePointRows_;
  mutable double coreRadius_ = -1, maxLayer_ = 0;  // max |f_i|, max h_i (coreExtent; -1: not yet)
  // steps 1-5 on the CPU, from state_ (= start)
  FreeStepResult integrateFree(const LayeredState& start, double dt, const Vec3& g, Profile& profile);
  // ... of a reduced skin in its coordinates z (reduced_update.cpp), from z_, zdot_
  FreeStepResult integrateReduced(const LayeredState& start, double dt, const Vec3& g, Profile& profile);
  Eigen::VectorXd z_, zdot_;  // (a reduced operator) the skin's coordinates at the step's start: q = U z
  BakedBodyPtr model_;
  std::unique_ptr<ElasticModel> elastic_;  // K_e of model_
  MorphElasticity* morph_ = nullptr;        // elastic_, where it is the morph targets' model
  void makeElasticModel();
  BodyDesc desc_;
  LayeredSettings settings_;
  // ---- where the skin lives (skin_residency.h) and the one fallback to the CPU ----
  SkinResidency skin_;
  // f(solver) on the free-motion solver: false if there is none, or if f threw (the
  // solver is then dropped: dropSolver), so that the caller runs the CPU's instead
  template <class F>
  bool onSolver(F f);
  // the solver failed (why): back to the CPU; a skin state only the solver held is lost
  // (the skin restarts at rest, said in the failure)
  void dropSolver(const std::string& why);
  // node i read back (alone if synced, else the whole skin); *this, to read it
  const LayeredBody& syncNode(int i) {
    if (!skin_.nodeCurrent(i)) syncSkin();
    return *this;
  }
  void requireMirror(const char* what) const;  // throws if the CPU's copy of the skin is stale
  const Vec3& qAt(int i) const;
  const Vec3& qdotAt(int i) const;
  // sum m u and sum m qdot of the current skin (SkinSummary::mu, mqdot): the solver's
  // kept by syncMoments while the mirror is stale, else the CPU's
  SkinSummary moments() const;

  LayeredState state_;
  LayeredState good_;          // the last good state (saveGood); its q, qdot unused when
  bool goodOnSolver_ = false;  // the solver keeps them
  LayeredStepInfo info_;

  ImplicitOperator op_;         // Mt_e of the current time step
  ProjectedWarmStart ySolve_;   // the y solve's warm start
  LayeredState start_;          // state at the start of the current step (dropSolver may zero its skin)
  FreeStepResult free_;    // what the collision-free update of this step left
  CpuSkinResponse cpuResponse_;
  // f(SkinResponse&) with the contact response's all-node passes: the free-motion
  // solver's (its copy loaded when stale), or the CPU's (onSolver)
  template <class F>
  void withResponse(Profile& profile, F f);
  int previousContacts_ = 0;  // contacts found in the previous step (restitution episodes)
  std::vector<SupportedNode> supported_;  // this step's support, by node
  // the entry of `node` in a list sorted by node, or nullptr
  static const SupportedNode* findSupported(const std::vector<SupportedNode>& list, int node);
  std::vector<double> rowImpulse_;        // (nnode) normal impulse of this step's contact rows [N s]
  std::vector<int> rowOther_;             // (nnode) ... and the other body of the row (-1: a collider)
  static constexpr int kNoRow = -2;       // rowOther_ of a node without a row in this step
  std::vector<int> rowNodes_;             // the nodes with a row in this step, once each
  std::vector<std::shared_ptr<const NodeLoad>> loads_;  // the attached loads
  NodeForces forces_;                     // this step's support and loads, as the free update takes them
  void computeSupport(const Vec3& g, double dt);  // supported_ from the touching nodes
  std::vector<NodeForce> loadForces_;     // the loads' forces in this step (gatherLoadForces)
  void gatherLoadForces();                // loadForces_ from loads_, checked
  void applyCorrections(double dt, Profile& profile);  // the loads' velocity corrections after step 5
  void buildNodeForces();                 // forces_ from supported_ and loadForces_
  std::vector<CoreSpring> springs_;
  DragSpring drag_;
  Vec3 dragImpulse_ = Vec3::Zero();
  std::vector<Mat3> dragZ_;   // (nnode) Mt_e^-1 E_node: 3 columns per node (body frame)
  int dragZNode_ = -1;        // the node and operator version dragZ_ was solved for
  int dragZVersion_ = -1;
};

// The one place where a backend's failure falls back to the CPU.
template <class F>
inline bool LayeredBody::onSolver(F f) {
  if (!skin_.solver()) return false;
  try {
    f(*skin_.solver());
    return true;
  } catch (const std::exception& e) {
    dropSolver(e.what());
    return false;
  }
}

}  // namespace d2t
