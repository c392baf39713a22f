#pragma once
// A ball with dynamic morph targets (ch. 5), for the sim and GPU tests.
#include <string>

#include <nlohmann/json.hpp>

#include "sim/scene/scene.h"
#include "sim/test_shapes.h"

namespace d2t::test {

constexpr double kMorphBallRadius = 0.5;

// A 32^2 ball with the scene's "morph_targets" object `json` (read as a scene's).
inline BodyDesc morphBall(const std::string& json, double young = 1e5) {
  BodyDesc d = ball(kMorphBallRadius, 32, young);
  const nlohmann::json j = nlohmann::json::parse(json);
  JsonReader r(j, "test.json", "/bodies/0/morph_targets");
  d.morph = readMorphTargets(r, d);
  return d;
}

// That ball alone, its core held, without gravity (the settling tests).
inline Scene heldMorphBall(const std::string& json) {
  BodyDesc d = morphBall(json);
  d.fixedCore = true;
  Scene s;
  s.simulation.gravity = Vec3::Zero();
  s.bodies.push_back(d);
  return s;
}

// The body itself at a = 0, a bulge on its top at a = 1 (4x stiffer), squashed at a = 2.
inline const char* kTargets = R"({
  "pose": { "channels": ["a"], "track": [ { "time": 0, "value": [0] }, { "time": 1, "value": [2] } ] },
  "targets": [ { "name": "body", "pose": [0] },
               { "name": "bulge", "pose": [1], "material": { "young": 4e5 },
                 "shape": [ { "type": "bulge", "center": [0, 0.5, 0], "amplitude": 0.04, "width": 0.15 } ] },
               { "name": "squash", "pose": [2], "shape": [ { "type": "scale", "factor": [1.05, 0.9, 1.05] } ] } ] })";

}  // namespace d2t::test
