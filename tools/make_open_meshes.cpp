// Writes the open collider meshes the shipped scenes load (assets/README.md):
//   build/make_open_meshes assets
// assets/bowl.obj (scenes/bowl.json) and assets/stairs.obj (scenes/stairs.json, banana.json).
#include <iostream>
#include <string>

#include "sim/scene/obj_loader.h"
#include "sim/scene/open_meshes.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: make_open_meshes DIRECTORY (writes DIRECTORY/bowl.obj and DIRECTORY/stairs.obj)\n";
    return 2;
  }
  const std::string dir = argv[1];
  try {
    d2t::writeObj(d2t::hemisphereBowl(0.6, 64), dir + "/bowl.obj",
                  "an open hemisphere bowl, inner radius 0.6 m, 64 segments: written by make_open_meshes");
    d2t::writeObj(d2t::staircase(5, 0.15, 0.35, 1.2), dir + "/stairs.obj",
                  "an open staircase, 5 steps of 0.15 m x 0.35 m, 1.2 m wide: written by make_open_meshes");
  } catch (const std::exception& e) {
    std::cerr << "make_open_meshes: " << e.what() << "\n";
    return 1;
  }
  std::cout << "wrote " << dir << "/bowl.obj and " << dir << "/stairs.obj\n";
  return 0;
}
