// Writes the meshes the shipped scenes load (assets/README.md):
//   build/make_sample_meshes assets
// assets/bowl.obj (scenes/bowl.json), assets/stairs.obj (scenes/stairs.json, banana.json) and
// assets/banana.obj (scenes/banana.json).
#include <iostream>
#include <string>

#include "sim/scene/obj_loader.h"
#include "sim/scene/sample_meshes.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: make_sample_meshes DIRECTORY (writes DIRECTORY/bowl.obj, stairs.obj and banana.obj)\n";
    return 2;
  }
  const std::string dir = argv[1];
  try {
    d2t::writeObj(d2t::hemisphereBowl(0.6, 64), dir + "/bowl.obj",
                  "an open hemisphere bowl, inner radius 0.6 m, 64 segments: written by make_sample_meshes");
    d2t::writeObj(d2t::staircase(5, 0.15, 0.35, 1.2), dir + "/stairs.obj",
                  "an open staircase, 5 steps of 0.15 m x 0.35 m, 1.2 m wide: written by make_sample_meshes");
    d2t::writeObj(d2t::bentCapsule(0.3, 1.9, 0.05, 0.45, 900), dir + "/banana.obj",
                  "a banana: a tube 0.05 m thick tapering to 0.0225 m, bent along an arc of radius 0.3 m "
                  "through 1.9 rad, 900 vertices (closed, not star-shaped): written by make_sample_meshes");
  } catch (const std::exception& e) {
    std::cerr << "make_sample_meshes: " << e.what() << "\n";
    return 1;
  }
  std::cout << "wrote " << dir << "/bowl.obj, " << dir << "/stairs.obj and " << dir << "/banana.obj\n";
  return 0;
}
