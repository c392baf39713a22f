#include "sim/scene/scene.h"

namespace d2t {

Material BodyDesc::materialAt(const Vec3& x) const {
  // regions in order; a later region overrides an earlier one where they overlap
  Material m = material;
  for (const MaterialRegion& r : regions) {
    if (!r.contains(x)) continue;
    m.young = r.young;
    m.poisson = r.poisson;
    m.density = r.density;
  }
  return m;
}

}  // namespace d2t
