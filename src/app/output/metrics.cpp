#include "app/output/metrics.h"

#include <fstream>
#include <stdexcept>

#include "sim/morph/modal_basis.h"
#include "sim/world/recording.h"

namespace d2t {

namespace {
nlohmann::json vec(const Vec3& v) { return {v.x(), v.y(), v.z()}; }
}  // namespace

nlohmann::json runMetrics(World& world, const StepLog& log, const std::string& renderer,
                          const std::string& backend) {
  nlohmann::json j;
  j["scene"] = world.scene().file;
  j["backend"] = backend;
  j["renderer"] = renderer;
  j["steps"] = world.steps();
  j["dt"] = world.settings().dt;
  j["time"] = world.time();
  // the whole physical state after the last step (stateHash), 16 hex digits: the same scene
  // and inputs give the same hash, on any number of CPU threads
  j["state_hash"] = hexHash(stateHash(world.capture()));
  nlohmann::json timing;
  timing["step"] = log.medianStep();
  for (const StageClock& s : log.clocks()) timing[s.name()] = log.medianStage(s);
  j["timing_ms"] = timing;
  nlohmann::json bodies = nlohmann::json::array();
  for (Body& b : world.bodies()) {
    nlohmann::json o;
    o["name"] = b.desc.name;
    o["nodes"] = b.nodes();
    o["tets"] = b.tets();
    o["mass"] = b.mass();
    o["com"] = vec(b.state.position);
    o["velocity"] = vec(b.state.velocity);
    o["angular_velocity"] = vec(b.state.angularVelocity);
    o["min_height"] = b.stats.minHeight;
    o["core_min_height"] = b.stats.coreMinHeight;
    o["core_limit_steps"] = b.stats.coreLimitSteps;
    o["max_penetration"] = b.stats.maxPenetration;
    o["final_max_penetration"] = b.stats.finalMaxPenetration;
    o["max_penetration_detected"] = b.stats.maxPenetrationDetected;
    o["contacts"] = b.stats.contacts;
    o["cg_iterations"] = b.stats.cgIterations;
    o["cg_residual"] = b.stats.cgResidual;
    o["cg_capped_steps"] = b.stats.cappedSolves;
    const Energy e = world.energy(b);
    o["energy"] = {{"kinetic", e.kinetic}, {"gravitational", e.gravitational},
                   {"elastic", e.elastic}, {"spring", e.spring}, {"total", e.total()}};
    o["resets"] = b.stats.resets;
    if (const MorphElasticity* m = b.layered.morphTargets()) {  // (ch. 5: the last step's pose and weights)
      o["pose"] = m->pose();
      o["morph_weights"] = std::vector<double>(m->weights().data(), m->weights().data() + m->weights().size());
      if (const ImplicitOperator& op = b.layered.implicitOperator(); op.reduced()) {  // (ch. 5.4-5.5: its basis)
        o["reduced_modes"] = op.basis()->r;
        o["reduced_elasticity"] = op.basis()->stvk.empty() ? "linear" : "stvk";
      }
    }
    o["trajectory"] = b.stats.trajectory;
    bodies.push_back(o);
  }
  for (Character& c : world.characters()) {  // (soft articulated characters, ch. 4)
    const ArticulatedBody& a = *c.body;
    nlohmann::json o;
    o["name"] = c.spec.name;
    o["model"] = c.spec.model;
    o["nodes"] = c.model->nodeCount();
    o["tets"] = int(c.model->tets.size());
    o["mass"] = c.model->totalMass;
    o["bones"] = c.model->boneCount();
    o["com"] = vec(a.centreOfMass());
    o["velocity"] = vec(a.linearMomentum() / c.model->totalMass);
    const CoreState& root = a.state().bones.front();
    o["angular_velocity"] = vec(root.orientation * root.angularVelocity);
    o["min_height"] = c.stats.minHeight;
    o["max_penetration"] = c.stats.maxPenetration;
    o["contacts"] = c.stats.contacts;
    o["self_contacts"] = c.stats.selfContacts;  // (nodes in contact with its own skin, last step)
    o["max_joint_error"] = c.stats.maxJointError;
    o["max_joint_angle"] = c.stats.maxJointAngle;
    o["max_displacement"] = c.stats.maxDisplacement;
    const double kinetic = a.kineticEnergy(), potential = a.potentialEnergy(world.settings().gravity);
    o["energy"] = {{"kinetic", kinetic}, {"potential", potential}, {"total", kinetic + potential}};
    o["resets"] = c.stats.resets;
    o["trajectory"] = c.stats.trajectory;
    bodies.push_back(o);
  }
  j["bodies"] = bodies;
  return j;
}

void writeJson(const std::string& path, const nlohmann::json& j) {
  std::ofstream f(path);
  if (!f) throw std::runtime_error(path + ": cannot write");
  f << j.dump(2) << "\n";
  if (!f) throw std::runtime_error(path + ": write failed");
}

}  // namespace d2t
