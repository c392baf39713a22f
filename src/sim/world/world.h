#pragma once
// The simulated world: layered bodies, colliders, time, and one fixed-dt step.
// Each body runs the D2T step of Fig. 3.5 (LayeredBody); the world supplies
// collision detection against the colliders and catches numerical blow-ups.
#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "sim/model/baked_body.h"
#include "sim/contact/body_contact.h"
#include "sim/contact/collider.h"
#include "sim/body/layered_body.h"
#include "sim/character/character_scene.h"
#include "sim/base/profile.h"
#include "sim/scene/scene.h"
#include "sim/world/body_stats.h"
#include "sim/world/world_state.h"

namespace d2t {

/// Nodes closer than this to a collider are reported as (speculative) contacts,
/// with a negative depth when outside [m].
constexpr double kContactMargin = 0.01;

/// A body that blows up again within this many steps of its last reset is reset to
/// the scene's initial state rather than to its last good state (World::step).
constexpr long kResetRepeatSteps = 10;

/// The share of a body's kinetic energy that its energy may grow by in a step without outside
/// work before the blow-up check calls it a blow-up (on top of Body::energyTolerance). The
/// position correction is not conservative, and its energy scales with the body's: a ball at
/// 8 m/s clipping a bowl's rim, its skin pushed back 13 mm, gains 2 J of its 138 J
/// (docs/decisions/0038). A blow-up's growth outruns any share below 1.
constexpr double kKineticTolerance = 0.05;

struct Body {
  Body(const BodyDesc& d, BakedBodyPtr m);
  BodyDesc desc;
  BakedBodyPtr model;      ///< the baked D2T model (atlas, mesh, masses, K_e)
  LayeredBody layered;     ///< core + skin state and the step
  long lastResetStep = -1;  ///< world step of the last blow-up (-1: none yet)
  ConvexProxy proxy;       ///< stage 1 proxy for contacts with other bodies
  BodyState state;         ///< world summary, refreshed after every step
  BodyStats stats;
  PoseControl pose;               ///< its morph targets' pose (World::setPoseControl)
  bool poseChanged = false;       ///< the pose's weights changed before this step (outside work)
  double energyFloor = 1e300;     ///< lowest total energy seen since the last outside work [J]
  double energyTolerance = 0;     ///< energy growth taken as a blow-up beyond the floor [J],
                                  ///< with kKineticTolerance of the body's kinetic energy
  /// The energyTolerance of a body of model m as d gives it (its mass, size and speed).
  static double baseTolerance(const BakedBody& m, const BodyDesc& d);

  /// Sets its morph targets' pose at `time` as `pose` says (nothing without targets);
  /// returns whether the weights changed.
  bool applyPose(double time);

  int nodes() const { return model->nodeCount(); }
  int tets() const { return model->tetCount(); }
  double mass() const { return model->totalMass; }
  /// World positions of the skin nodes (nnode).
  std::vector<Vec3> skinPositions() const;
  /// state from the skin's summary at the current state (LayeredBody::summarize).
  void refreshState(const SkinSummary& skin);
  void refreshState() { refreshState(layered.skinSummary()); }  // (the skin read back)
};

class World {
 public:
  explicit World(const Scene& scene);

  /// Advances by one time step of dt [s] (Fig. 3.5: World::step reads as its list of stages).
  void step(double dt);
  /// ... of the scene's `settings().dt`, the panels' and the command line's.
  void step() { step(settings().dt); }
  /// Back to the scene's initial state (time 0, stats cleared).
  void reset();
  /// The state at this instant: all that the next step reads (world_state.h; the skins
  /// read back from a GPU solver that holds them).
  WorldState capture();
  /// Back to a captured state of this world: the steps from there repeat bit for bit
  /// those that followed the capture (with the same settings and input). The bodies'
  /// trajectories are cut back to the state's time. Throws std::invalid_argument for a
  /// state of another world (other bodies or colliders, or a material changed since).
  void restore(const WorldState& state);

  const Scene& scene() const { return scene_; }
  SimulationSettings& settings() { return scene_.simulation; }
  const SimulationSettings& settings() const { return scene_.simulation; }
  double time() const { return time_; }
  long steps() const { return steps_; }
  std::vector<Body>& bodies() { return bodies_; }
  const std::vector<Body>& bodies() const { return bodies_; }
  /// The soft articulated characters (ch. 4), stepped after the bodies, against the planes
  /// and height fields (part 1: not yet against bodies or mesh colliders).
  /// Stage 1 per bone for the characters (bone_proxies.h; on by default). Off, every surface
  /// is paired with every bone (the reference the pruning is checked against).
  void setCharacterPruning(bool on) { characterPruning_ = on; }
  /// The control metaphors (metaphor.h): the scene's, or the last setMetaphors's, in order,
  /// each a load on its body.
  const std::vector<std::shared_ptr<Metaphor>>& metaphors() const { return metaphors_; }
  /// Replaces the metaphors by `list` (each checked as a scene's: InputError naming it and
  /// the field, the world unchanged); the state is untouched. A timeline records it.
  void setMetaphors(const std::vector<MetaphorDesc>& list);
  std::vector<MetaphorDesc> metaphorDescs() const;
  std::vector<Character>& characters() { return characters_; }
  const std::vector<Character>& characters() const { return characters_; }
  std::vector<Collider>& colliders() { return colliders_; }
  const std::vector<Collider>& colliders() const { return colliders_; }
  /// Stage timings of the last step.
  const Profile& profile() const { return profile_; }
  /// A body's energies at its current state (its skin read back from a GPU solver).
  Energy energy(Body& b) const { return energy(b, b.layered.skinSummary()); }
  /// ... from the summary of its current skin state.
  Energy energy(const Body& b, const SkinSummary& skin) const;
  /// Warnings since the last call (numerical resets, a capped solve, ...), oldest first.
  std::vector<std::string> takeWarnings();
  /// The free-motion solvers (the GPU's) that failed so far, each warned and replaced by the
  /// CPU for its body.
  size_t backendFailures() const { return backendFailures_; }
  /// The words that a capped solve's warning holds (once per body: "the CG stopped at its
  /// cap of N iterations ..."; the steps are counted in BodyStats::cappedSolves).
  static constexpr const char* kCappedSolveWarning = "the CG stopped at its cap";
  /// Call after changing a body's state from outside (a kick, a drag, a panel):
  /// the energy bound of the blow-up check restarts from the new energy.
  void rebaseEnergy() {
    for (Body& b : bodies_) b.energyFloor = 1e300;
    groupFloors_.clear();
  }
  /// ... of one body only (and of the groups of bodies in contact that hold it).
  void rebaseEnergy(size_t body) {
    bodies_.at(body).energyFloor = 1e300;
    std::erase_if(groupFloors_, [body](const auto& g) {
      return std::find(g.first.begin(), g.first.end(), body) != g.first.end();
    });
  }
  /// Changes a body's material while it runs: K_e and the masses are re-assembled
  /// from the same shape and atlas (regions keep the scene's ratios of Young's modulus
  /// and density to the body's; the scene's material again gives the scene's model). The skin keeps its world positions and velocities.
  /// Returns the re-assembly time [ms]. Throws InputError for an invalid material.
  double setMaterial(size_t body, const Material& material);
  /// How body `body`'s morph targets take their pose (PoseControl), from the next step on.
  /// Throws std::out_of_range for a body that is not there, InputError for a body without
  /// morph targets or a manual pose of another length or not finite. A timeline records it.
  void setPoseControl(size_t body, const PoseControl& control);
  /// Pulls skin node `node` of body `body` toward the world point `target` with an
  /// implicit spring (LayeredBody::beginDrag). stiffness <= 0 picks the default:
  /// k = m (2 pi kDragFrequency)^2 for the rigidified body, at most the node's own
  /// skin stiffness (the mean diagonal of its 3x3 block of K_e), so that a pull moves
  /// the body rather than tearing one node out of a soft skin. damping < 0: that many
  /// times critical damping (-1: critical). One drag at a time: a new one ends the
  /// last. Throws std::out_of_range for a bad body or node.
  void beginSkinDrag(size_t body, int node, const Vec3& target, double stiffness = 0, double damping = -1);
  void moveSkinDrag(const Vec3& target);
  void endSkinDrag();
  /// The body being dragged, -1: none.
  int skinDragBody() const { return skinDrag_; }
  /// The same for a character's skin node (ArticulatedBody::beginDrag: three implicit rows
  /// at the node); the default k is that of a body, m the character's whole mass, at most
  /// the node's own skin stiffness; critically damped for the whole mass. moveSkinDrag and
  /// endSkinDrag move and end it. Throws std::out_of_range for a bad character or node.
  void beginCharacterDrag(size_t character, int node, const Vec3& target, double stiffness = 0);
  /// The character being dragged, -1: none.
  int characterDrag() const { return characterDrag_; }
  /// Natural frequency of a body on the default drag spring [Hz].
  static constexpr double kDragFrequency = 1.5;
  /// Keep a per-step trajectory in the stats (off by default: it grows with the run).
  void recordTrajectory(bool on) { recordTrajectory_ = on; }

  /// Contacts of a body's skin nodes with the planes and height fields, queried
  /// exactly, at its current state (deepest collider per node; nodes within
  /// kContactMargin outside included). Mesh colliders are not among them. On the CPU
  /// (the reference of the GPU solver's detection pass, which findAllContacts uses for
  /// bodies on the GPU backend).
  void findContacts(LayeredBody& body, std::vector<NodeContact>* out) const {
    findContacts(body, body.maxDisplacement(), out);
  }
  /// Contacts of every body at the bodies' current states: planes and height fields
  /// (findContacts), then the two-stage detection against the other bodies and the
  /// mesh colliders; one contact per node, the deepest.
  /// `again`: the detection of step 14 (timed as one stage) instead of steps 6-8.
  std::vector<std::vector<NodeContact>> findAllContacts(bool again = false);
  /// Stage 2 (between bodies, and between a body and a mesh collider) runs on
  /// `finder` (null: the CPU reference). A finder that throws is dropped with a
  /// warning and the CPU takes over.
  void setPairFinder(std::shared_ptr<PairContactFinder> finder) { pairFinder_ = std::move(finder); }
  /// Contacts with planes and height fields found by the bodies' free-motion solvers
  /// (the GPU's detection pass) where they hold the body's state (default), or all on
  /// the CPU. A solver that throws is dropped from detection with a warning.
  void setSolverDetection(bool on) { solverDetection_ = on; }
  bool solverDetection() const { return solverDetection_; }
  /// How often the world's GPU stages ran since it was made (what a test of a GPU path
  /// asserts, timer queries or not): the detection pass (a body's contacts with planes
  /// and height fields found on its solver) and the contact camera (a pair's stage 2).
  struct GpuStageRuns {
    long detection = 0, camera = 0;
  };
  const GpuStageRuns& gpuStageRuns() const { return gpuRuns_; }
  bool hasPairFinder() const { return bool(pairFinder_); }
  /// Whether the scene can have pairs for the two-stage detection: two bodies, or a
  /// body and a mesh collider.
  bool hasPairs() const {
    bool pairs = bodies_.size() > 1;
    for (const Collider& c : colliders_) pairs = pairs || (!bodies_.empty() && c.detectedInStages());
    return pairs;
  }
  /// What the two-stage detection (between bodies, and with mesh colliders) did in the
  /// last pass of the last step.
  const PairStats& pairStats() const { return pairStats_; }
  /// The contacts the last step responded to, per body (found at the predicted state,
  /// those with depth > 0): for drawing. Empty before the first step.
  const std::vector<std::vector<NodeContact>>& lastContacts() const { return lastContacts_; }

 private:
  /// Runs task(k, profile) for every k of `tasks`: across the CPU's threads, a task at a
  /// time each, where `parallel` and there are threads to spare, else in order. The
  /// tasks must touch disjoint state (a body each; no GPU: bodiesInParallel). Each
  /// thread times its stages in a profile of its own, merged into profile_ by
  /// Profile::mergeBusiest; an exception in a task is rethrown when all have run (the
  /// first in task order).
  void runTasks(const std::vector<size_t>& tasks, bool parallel, const std::function<void(size_t, Profile&)>& task);
  /// ... task(i, profile) for every body i of `which`: the bodies whose node loops use
  /// the threads themselves one after another, the others across the threads where
  /// bodiesInParallel() (the largest first, so that the threads end together).
  void eachBody(const std::vector<size_t>& which, const std::function<void(size_t, Profile&)>& task);
  void eachBody(const std::function<void(size_t, Profile&)>& task);  // (every body)
  /// Bodies may run the stages of their own at once: two or more, all on the CPU (a GPU
  /// solver's passes share one GL context).
  bool bodiesInParallel() const;
  /// findContacts for a body whose largest skin displacement is `grow` [m].
  void findContacts(LayeredBody& body, double grow, std::vector<NodeContact>* out) const;
  /// The planes and height fields (the colliders queried per node, not in two stages).
  std::vector<const Collider*> queriedColliders() const;
  /// The core points of the body within their crushed layer (keep h_i) plus `margin` of a
  /// plane or height field (policy skin_on_core; core_point_rows.h).
  std::vector<CorePointContact> findCorePoints(const LayeredBody& body, double margin) const;
  /// findContacts on the body's free-motion solver; false: the CPU must find them.
  bool detectOnSolver(LayeredBody& body, std::vector<NodeContact>* out);
  struct ColliderPieceRef {  // a mesh collider's piece in stage 1's list (after the bodies)
    const Collider* collider;
    int piece;
  };
  int findPairContacts(const ProxyContact& p, const std::vector<ColliderPieceRef>& pieces,
                       std::vector<NodeContact>* ca, std::vector<NodeContact>* cb);
  template <class F>
  bool onGpuStage(bool& on, const char* stage, const char* cpuFrom, F f);  // (detection.cpp)
  // the stages of step(), in order
  void moveColliders(double dt);
  void poseBodies(double dt);
  void beginBodies(double dt);
  void integrateFree(double dt);
  std::vector<std::vector<size_t>> contactGroups(const std::vector<std::vector<NodeContact>>& contacts) const;
  void respondAll(std::vector<std::vector<NodeContact>>& contacts, double dt);
  void correctAll(const std::vector<std::vector<NodeContact>>& contacts, double dt);
  void separateCores();  // (core_pairs.cpp)
  SkinSummary summarize(size_t body, Profile& profile);
  std::vector<SkinSummary> summarizeAll();
  void correctLimitsAll(std::vector<SkinSummary>* skins);
  void checkHealth(const std::vector<std::vector<size_t>>& groups, double dt, std::vector<SkinSummary>* skins);
  void updateStats(const std::vector<SkinSummary>& skins);
  /// The characters' steps (Stage::Characters) and their trajectories (character_coupling.cpp):
  /// each against the ground and the surfaces of the mesh colliders, bodies and other
  /// characters as they were before the characters stepped; then the impulses exchanged
  /// (Newton's third law) and the movable contacts corrected.
  void stepCharacters(double dt);
  /// Each character's surfaces (stage 1 per bone, bone_proxies.h: those its grown bone proxies
  /// come within reach of, in dt): the mesh colliders, the bodies, the other characters'
  /// paired patches and its own skin (self-contact), each with the character's bones that
  /// reach it.
  std::vector<std::vector<SurfaceTarget>> characterTargets(double dt);
  void exchangeCharacterImpulses(const std::vector<std::vector<SurfaceTarget>>& seen, double dt);
  void pairImpacts(const std::vector<std::vector<NodeContact>>& contacts, double dt);
  std::set<std::pair<int, int>> supportingPairs() const;  // (a < b) with support between them
  void balancePairSupport();
  void balancePairImpulses(const std::vector<std::vector<NodeContact>>& contacts, double dt);
  void patchFriction(const std::vector<std::vector<NodeContact>>& contacts, double dt);
  bool healthy(const Body& b, const SkinSummary& skin) const;
  /// The total energy of a group of bodies in contact (or of one body) has not grown
  /// beyond the lowest seen (+ their tolerances) while no outside work was done on
  /// them (no moving collider, no drag). Groups' floors for the next step go to `floors`.
  /// `kinetic`: each body's kinetic energy at the step's end (a share of it is tolerated).
  bool energyBounded(const std::vector<size_t>& group, bool outsideWork, const std::vector<double>& kinetic,
                     std::map<std::vector<size_t>, double>* floors);

  Scene scene_;
  std::vector<Body> bodies_;
  std::vector<Character> characters_;
  std::vector<std::shared_ptr<Metaphor>> metaphors_;  ///< each a load on its body
  Body* bodyNamed(const std::string& name);  ///< an atlas body by name, or nullptr
  std::vector<std::shared_ptr<Metaphor>> makeMetaphors(const std::vector<MetaphorDesc>& list, const std::string& where);
  bool characterPruning_ = true;
  std::vector<Collider> colliders_;
  Profile profile_;
  std::map<std::vector<size_t>, double> groupFloors_;  // energy floors of groups of bodies in contact [J]
  double time_ = 0;
  long steps_ = 0;
  bool recordTrajectory_ = false;
  std::vector<std::string> warnings_;
  size_t backendFailures_ = 0;
  PairStats pairStats_;
  std::shared_ptr<PairContactFinder> pairFinder_;
  bool solverDetection_ = true;
  GpuStageRuns gpuRuns_;
  std::set<std::pair<int, int>> pairsInContact_;  // body pairs touching in the last step
  std::vector<std::vector<NodeContact>> lastContacts_;  // (nbody) what the last response used
  int skinDrag_ = -1;  // body whose skin the mouse pulls
  int characterDrag_ = -1;  // character whose skin the mouse pulls
};

}  // namespace d2t
