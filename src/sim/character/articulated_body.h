#pragma once
// A soft articulated character's step (dissertation 4.2, Fig. 4.4's collision-free update):
// the bones (skeleton.h, maximal coordinates) and the skin's displacement q in pose space
// (character_model.h) solved implicitly together, the skin condensed onto the bones:
//
//   [Mt_c   M_bs] [dv_c]   [dt Ft_c]  + joint rows J^T mu
//   [M_bs^T Mt_s] [dv_s] = [dt Ft_s]
//
//   setup  Mh_cond = Mt_c - sum_p m_p^2 sum_{i,j in I(p)} w_pi w_pj B_pi Mh_p^-1 B_pj^T  (4.24)
//          b_c     = dt (Ft_c - sum_p m_p w_pi B_pi Mh_p^-1 Ft_s,p)                       (4.25)
//   bones  [Mh_cond, -J^T; -J, -eps I] (dv_c, mu) = (b_c, J v_c + (0.2/dt) g)            (4.25, 4.17)
//   skin   Mt_s dv_s = dt Ft_s - M_bs^T dv_c                                               (4.26)
//
// with B_pi = A_pi^T P_p, A_pi = [I, -R_i [u_pi]x], P_p = sum_i w_pi P_i, Mh_p the diagonal
// block of Mt_s = (1 + dt alpha) m_p I + (dt beta + dt^2) K_s, factored once (it does not
// change with the pose: pose-space strain). The same Mh_p^-1 on both sides of the
// condensation (not the printed (4.25)'s Mt_s^-1) keeps free fall exact: a falling character
// whose joints rest in its pose does not bend (docs/decisions/0030, D4). Joint springs enter
// implicitly through G = [0, -R_i | 0, R_j], the relative world angular velocity: K_b = k G^T
// G, D_b = c G^T G (the exact Jacobian of appendix C at theta -> 0, positive semi-definite at
// every angle). The linear momentum is projected back after the step to what gravity and the
// contact rows' impulses give (the condensation and M_s = m I are approximate) unless a
// joint pins the character to the world. The colliders' support of the last step loads the
// free update as ch. 3's bodies' does (CharacterState::support), so that a character at rest
// dents its skin as the static solve does.
#include <Eigen/SparseCore>

#include <memory>
#include <vector>

#include "sim/base/supernodal_ldlt.h"
#include "sim/character/character_model.h"
#include "sim/character/contact_targets.h"
#include "sim/contact/collider.h"

namespace d2t {

struct CharacterState {
  std::vector<CoreState> bones;  ///< (k) c_i, R_i, cdot_i (world), omega_i (bone frame)
  std::vector<Vec3> q, qdot;     ///< (n) the skin's displacement in pose space [m], [m/s]
  /// (n) the nodes with an active contact row in the last step: where the next step's active
  /// set starts (part of the state, so that a restored run repeats its steps bit for bit)
  std::vector<char> touching;
  /// (n) the colliders' support of each node (world force [N]; zero where a node was not
  /// held): the normal force a collider carried in the last step, a load of the next free
  /// update (ch. 3's contact support: the skin settles to the static dent under the weight,
  /// which the block-diagonal response alone does not reach), which that step's response may
  /// take back but not turn into a pull (respond)
  std::vector<Vec3> support;
  /// (n) the side of an open collider (a surface without an inside) each node was last found
  /// clearly on, within 2 cm of it: that side's unit normal (zero: none that near). What a
  /// node a little inside the sheet, or lying along it, is judged by (contact_targets.h).
  std::vector<Vec3> openSide;
};

/// Where a character starts: its bind pose moved rigidly.
struct CharacterPlacement {
  Vec3 position = Vec3::Zero();          ///< world position of the bind frame's origin [m]
  Quat orientation = Quat::Identity();
  Vec3 velocity = Vec3::Zero();          ///< world velocity of the origin [m/s]
  Vec3 angularVelocity = Vec3::Zero();   ///< world [rad/s]
};

/// A node in contact (the last step's response, at the predicted state).
struct CharacterContact {
  int node = -1;
  Vec3 normal = Vec3::UnitY();  ///< the collider's outward normal
  double depth = 0;             ///< below the surface at the predicted state [m] (> 0)
  double lambda = 0;            ///< the normal impulse [N s], >= 0 (the support's share included)
  /// n . (xdot+ - xdot_o) - target after the normal rows' response (before friction), the
  /// target being -gap/dt for a node that started above the surface (it may land on it), 0
  /// otherwise [m/s]
  double residual = 0;
  bool landing = false;  ///< the node started the step more than kLandingGap above the surface
  /// The surface touched: -1 a plane or height field, else an index into the step's targets
  /// (with the nearest point's triangle and barycentric coordinates there)
  int target = -1;
  int triangle = -1;
  std::array<double, 3> bary{};
  bool movable = false;          ///< the target is a body or a character (it takes -impulse)
  Vec3 impulse = Vec3::Zero();   ///< the step's impulse on the node, normal and friction [N s]
};

/// A node that starts a step this far above a surface lands in it [m]: its contact force is an
/// impact's, not carried into the next step's support.
constexpr double kLandingGap = 1e-3;

/// The free update's stages as Table 4.1 names them [ms], summed over the steps taken.
struct CharacterTimes {
  double setup = 0, bones = 0, skin = 0, response = 0;
  /// the response's (and its correction's and given impulses') bone solves (4.31) and skin
  /// updates (4.32), both within `response`; the rest of it is its setup (detection, rows)
  double responseBones = 0, responseSkin = 0;
  int steps = 0;
  int maxContacts = 0;  ///< the most nodes in contact in a step
  int kktFactorizations = 0;  ///< the bones' KKT systems factored (free update, active-set rounds)
  /// the KKT's pattern analysed (its elimination order and supernodes): once while contacts
  /// come and go, their rows folded into the bones' blocks
  int kktAnalyses = 0;
};

class ArticulatedBody {
 public:
  explicit ArticulatedBody(CharacterModelPtr model, const CharacterPlacement& placement = {});

  const CharacterModel& model() const { return *model_; }
  const CharacterModelPtr& modelPtr() const { return model_; }
  CharacterState& state() { return state_; }
  const CharacterState& state() const { return state_; }
  const CharacterPlacement& placement() const { return placement_; }

  /// Poses the bones by forward kinematics from each joint's relative rotation rho (world
  /// bind frame; identity: bind), the roots where the placement puts them, every bone at
  /// the placement's rigid velocity, q = qdot = 0.
  void pose(const std::vector<Quat>& relative);
  /// A joint spring's target relative rotation (keyframed control: held over a step).
  void setJointTarget(int joint, const Quat& target) { targets_[size_t(joint)] = target; }
  const Quat& jointTarget(int joint) const { return targets_[size_t(joint)]; }
  /// A joint spring's stiffness [N m/rad] and damping [N m s/rad] (the model's at the start;
  /// the panels change them live).
  void setJointGains(int joint, double stiffness, double damping);
  double jointStiffness(int joint) const { return gains_[size_t(joint)].first; }
  double jointDamping(int joint) const { return gains_[size_t(joint)].second; }

  /// A spring from a point of a bone to a world anchor, f = -k (x - a) - c xdot, implicit
  /// in the bones' solve (stiff springs are stable).
  struct BoneSpring {
    int bone = 0;
    Vec3 point = Vec3::Zero();   ///< world bind coordinates (where the point is at bind) [m]
    Vec3 anchor = Vec3::Zero();  ///< world [m]
    double stiffness = 0;        ///< [N/m]
    double damping = 0;          ///< [N s/m]
  };
  void setBoneSprings(std::vector<BoneSpring> springs) { springs_ = std::move(springs); }
  const std::vector<BoneSpring>& boneSprings() const { return springs_; }
  Vec3 boneSpringPoint(const BoneSpring& s) const;  ///< the point's world position now

  /// A spring pulling skin node p towards a world target (the mouse), implicit: three rows
  /// at the node in the contact response with the spring's compliance 1 / (dt c + dt^2 k).
  void beginDrag(int node, const Vec3& target, double stiffness, double damping);
  void moveDrag(const Vec3& target) { drag_.target = target; }
  void endDrag() { drag_.node = -1; }
  struct NodeDrag {
    int node = -1;
    Vec3 target = Vec3::Zero();
    double stiffness = 0, damping = 0;
  };
  const NodeDrag& drag() const { return drag_; }
  void setDrag(const NodeDrag& drag) { drag_ = drag; }  ///< (World::restore)

  /// One step: the collision-free update (stages 1-6 of Fig. 4.4), then, against planes and
  /// height fields, the contact response with the skeleton's response anticipated
  /// ((4.27)-(4.32): one row per node in contact, one-sided, friction on the node) and the
  /// position correction; the joints' drift projected out.
  /// `targets`: the mesh colliders, bodies and other characters as they were before the
  /// characters stepped (contact_targets.h); against a movable one, a row's surface moves at
  /// the pair's common velocity there (effective-mass weighted), and the impulses it takes are
  /// given back to the other side afterwards (the World's exchange: applyNodeImpulses), its
  /// correction too (correctAgainst).
  void step(double dt, const Vec3& gravity, const std::vector<const Collider*>& colliders = {},
            const std::vector<const SurfaceTarget*>& targets = {});
  /// Impulses [N s] at skin nodes, as the step's response takes a given impulse (the skeleton's
  /// response anticipated, (4.30)-(4.32)): velocities change; with moveDt > 0 (the step's
  /// positions already integrated) the positions move with the change.
  void applyNodeImpulses(const std::vector<std::pair<int, Vec3>>& impulses, double moveDt);
  /// Stage 18 again, at the end states of the movable targets (with the colliders and the
  /// rigid targets, so that a node pushed out of one is not pushed into another): the nodes
  /// under another character are moved out by `share` of their depth (the other side
  /// corrects its own nodes likewise), those under anything else by all of it.
  void correctAgainst(const std::vector<const Collider*>& colliders, const std::vector<const SurfaceTarget*>& targets,
                      double share);
  /// Carry the colliders' support inside the free update (on by default; off: the thesis's
  /// block-diagonal response (4.27)-(4.32) alone, which holds a resting skin less deep).
  void setContactSupport(bool on) {
    supportOn_ = on;
    if (!on) std::fill(state_.support.begin(), state_.support.end(), Vec3::Zero());
  }
  bool contactSupport() const { return supportOn_; }
  /// The deepest any node is now inside a plane, height field or target [m] (0: none).
  double deepestPenetration(const std::vector<const Collider*>& colliders,
                            const std::vector<const SurfaceTarget*>& targets) const;
  /// The nodes in contact in the last step, as the response left them.
  const std::vector<CharacterContact>& contacts() const { return contacts_; }

  /// The condensation with Mt_s^-1 itself instead of its block diagonal Mh_p^-1 (design D4's
  /// "full"; 6k + 1 skin solves a step): the step then solves (4.22) exactly, as ch. 3's body
  /// does at k = 1. Off by default (the block diagonal keeps the step O(n + k)).
  void setExactCondensation(bool exact) {
    exact_ = exact;
    prepareBones();
  }
  bool exactCondensation() const { return exact_; }

  /// The rigid-skin comparison mode (dissertation Fig. 4.7): q held at zero (a pure linear-blend
  /// skin moving with the bones), the bones carrying the skin's mass, contacts solved on the
  /// bones alone (each row's M_lambda a compliance of 1e-6 / m_p instead of the skin's, which is
  /// zero), no contact support.
  void setRigidSkin(bool rigid);
  bool rigidSkin() const { return rigidSkin_; }

  // ---- what a step leaves ------------------------------------------------------------
  /// The joint impulses mu of the last step (N s), joint by joint, row by row.
  const Eigen::VectorXd& jointImpulses() const { return mu_; }
  const CharacterTimes& times() const { return times_; }

  // ---- queries -------------------------------------------------------------------------
  Vec3 nodePosition(int p) const;
  Vec3 nodeVelocity(int p) const;
  std::vector<Vec3> skinPositions() const;
  /// The skin's positions and velocities (one pass over the nodes).
  void skinState(std::vector<Vec3>& positions, std::vector<Vec3>& velocities) const;
  /// The world position of joint j's anchor on its child bone (on its parent: parentAnchor).
  Vec3 childAnchor(int j) const;
  Vec3 parentAnchor(int j) const;
  /// |parentAnchor - childAnchor| [m].
  double jointPositionError(int j) const { return (parentAnchor(j) - childAnchor(j)).norm(); }
  double jointAngle(int j) const;
  /// Bone b's block of the mass matrix used, M_c(b,b) (the link and the lumped skin by the
  /// weights, D2), at the current state, in the bone's dofs (cdot world, omega bone frame).
  Eigen::Matrix<double, 6, 6> boneMassMatrix(int b) const;
  /// Every bone's (one pass over the nodes).
  std::vector<Eigen::Matrix<double, 6, 6>> boneMassMatrices() const;
  Vec3 linearMomentum() const;
  /// About the world origin.
  Vec3 angularMomentum() const;
  Vec3 centreOfMass() const;
  /// 1/2 v^T M v with the skin nodes as point masses and the links as rigid bodies.
  double kineticEnergy() const;
  /// Gravity's, the skin's elastic (1/2 q^T K_s q) and the joint springs' (1/2 k |phi|^2).
  double potentialEnergy(const Vec3& gravity) const;

 private:
  struct NodeFrame;  // a node's pose quantities
  /// One constraint row: J on the parent's and the child's 6 dofs (cdot world, omega bone
  /// frame), and its value g (J v = dg/dt).
  struct JointRow {
    int parent, child;
    Eigen::Matrix<double, 1, 6> jp, jc;
    double g;
  };
  std::vector<JointRow> jointRows() const;
  void projectJoints(int nv, int size);
  void freeVelocities(double dt, const Vec3& gravity);
  void integratePositions(const CharacterState& start, double dt);
  void factorKkt(const std::vector<Eigen::Matrix<double, 6, 6>>& blocks);
  void respond(double dt, const CharacterState& start, const std::vector<const Collider*>& colliders,
               const std::vector<const SurfaceTarget*>& targets);
  void correct(const std::vector<const Collider*>& colliders, const std::vector<const SurfaceTarget*>& targets,
               double share);
  void updateSupport(double dt);
  /// The bones' rotations R_i, pose rotations P_i = R_i R_b,i^T and world angular velocities at
  /// the current state, for the loops over the nodes.
  struct BoneFrames {
    std::vector<Mat3> R, P;
    std::vector<Vec3> W;
  };
  BoneFrames frames() const;
  /// A node's position, velocity and P_p from the frames (null: not wanted).
  void nodeAt(const BoneFrames& f, int p, Vec3* x, Vec3* v, Mat3* P) const;
  /// Node p's inner (core) point f_p at the frames f, moved by its bones' weights.
  Vec3 innerPointAt(const BoneFrames& f, int p) const;
  /// The side of the open colliders among `targets` each node is on now, into
  /// state_.openSide (at the end of a step: the nodes where the correction left them).
  void rememberOpenSides(const std::vector<const SurfaceTarget*>& targets);
  struct ContactRow;
  ContactRow contactRow(const BoneFrames& f, int p, const Vec3& normal) const;
  std::array<Vec3, 3> conjugateDirections(const BoneFrames& f, int p, const Vec3& a, const Vec3& b, const Vec3& c) const;
  std::vector<ContactRow> detect(const std::vector<const Collider*>& colliders,
                                 const std::vector<const SurfaceTarget*>& targets, double dt, bool speculative,
                                 double reach = 0) const;
  /// The node's side of a contact's mass along n: its dominant bone with its skin, rigid
  /// (the surface target's rule for characters), from M_c(b, b)^-1 (`inverse`, by bone).
  double nodeEffectiveMass(const std::vector<Eigen::Matrix<double, 6, 6>>& inverse, int p, const Vec3& x,
                           const Vec3& n) const;
  /// The joint limits' rows: for the step's velocities from `start`, or (null) at the position level.
  std::vector<ContactRow> limitRows(const CharacterState* start, double dt) const;
  /// The mouse's drag spring's rows (none when not dragging).
  std::vector<ContactRow> dragRows(const CharacterState& start, double dt) const;
  /// The rows' solve: dv_c (6k); the rows' impulses added node by node to `impulse` (n).
  Eigen::VectorXd solveRows(std::vector<ContactRow>& rows, std::vector<Vec3>& impulse);
  /// The skin's change (4.32) for a change dv_c of the bones and node impulses, added to `to`
  /// (n): at every node, or at `nodes` only.
  void addSkinChange(const Eigen::VectorXd& dvc, const std::vector<Vec3>& impulse, std::vector<Vec3>& to,
                     const std::vector<int>* nodes = nullptr);
  Vec3 nodePositionIn(const CharacterState& st, int p) const;
  void prepareSkin(double dt);
  // stage 3's sums W (per bone pair, world) and bw, with Mh_p^-1 or with Mt_s^-1 itself
  using Mat6 = Eigen::Matrix<double, 6, 6>;
  using Vec6 = Eigen::Matrix<double, 6, 1>;
  void condenseBlockDiagonal(const std::vector<NodeFrame>& frame, const std::vector<Vec3>& Fs, std::vector<Mat6>& W,
                             std::vector<Vec6>& bw) const;
  void condenseExactly(const std::vector<NodeFrame>& frame, const std::vector<Vec3>& Fs, std::vector<Mat6>& W,
                       std::vector<Vec6>& bw) const;
  void prepareBones();
  Eigen::Matrix<double, 6, 6> massBlock(int i, double Sm, const Vec3& Sv, const Mat3& Svv, const Mat3& R) const;

  CharacterModelPtr model_;
  CharacterPlacement placement_;
  CharacterState state_;
  std::vector<Quat> targets_;       // (joints) the springs' targets
  std::vector<std::pair<double, double>> gains_;  // (joints) the springs' stiffness, damping
  std::vector<BoneSpring> springs_;
  NodeDrag drag_;
  std::vector<Vec3> worldAnchor_;   // (joints) where a joint to the world holds its child
  bool pinned_ = false;             // a joint to the world
  bool limited_ = false;            // a joint with a limit (its rows: limitRows)
  bool exact_ = false;              // setExactCondensation
  bool supportOn_ = true;           // setContactSupport
  bool rigidSkin_ = false;          // setRigidSkin
  Vec3 gravity_ = Vec3::Zero();     // the step's

  // the skin system, factored once per dt
  double preparedDt_ = -1;
  SupernodalLdlt skinFactor_;          // (its lower triangle in the order skinOrder_)
  std::vector<int> skinOrder_;         // (n) a node's place in the elimination order (AMD)
  std::vector<int> skinSlots_;         // prepareSkin's entries' slots in the factor
  Eigen::VectorXd solveSkin(const Eigen::VectorXd& rhs) const;  // Mt_s^-1 rhs
  std::vector<Mat3> skinDiagInverse_;  // (n) Mh_p^-1
  // the bones' KKT: the bone pairs that share a node or a joint, the pattern analysed once
  std::vector<int> pairIndex_;  // (k x k) block index or -1
  std::vector<std::pair<int, int>> pairs_;
  // (in the elimination order order_: prepareBones) the lower triangle, factored by supernodes
  SupernodalLdlt kkt_;
  std::vector<int> order_;  // (6k + rows) a dof's or row's place in the KKT
  Eigen::VectorXd solveKkt(const Eigen::VectorXd& rhs) const;
  // the entries of factorKkt's fixed order, and their slots in the factor's storage (the
  // pattern is analysed again only when the entries' positions change)
  std::vector<std::pair<int, int>> kktKeys_;
  std::vector<int> kktSlots_;
  std::vector<Eigen::Matrix<double, 6, 6>> blocks_;      // the free step's Mh_cond, pair by pair
  std::vector<Eigen::Triplet<double>> rowTriplets_;      // the KKT's joint rows and -eps I
  std::vector<CharacterContact> contacts_;
  Vec3 rowImpulse_ = Vec3::Zero();  // the contact rows' impulses of this step (world, summed)
  Eigen::VectorXd mu_;
  CharacterTimes times_;
};

}  // namespace d2t
