#pragma once
// The characters' tests' flesh: soft (E = 50 kPa unless given), nearly incompressible, water's
// density, Rayleigh damping 0.1 / 0.01.
#include "sim/scene/scene.h"

namespace d2t {

inline Material softMaterial(double young = 5e4) {
  Material m;
  m.young = young;
  m.poisson = 0.4;
  m.density = 1000;
  m.alpha = 0.1;
  m.beta = 0.01;
  return m;
}

}  // namespace d2t
