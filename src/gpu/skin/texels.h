#pragma once
// Node vectors to and from the atlas's RGBA32F texels (what the GPU solver's files share).
#include <vector>

#include "gpu/gl/texture.h"
#include "sim/model/atlas.h"
#include "sim/base/math.h"

namespace d2t::gpu_detail {

// Uploads N x N x 4 floats into a 2-D texture or one layer of an array.
inline void uploadTexels(const GlTexture& t, int layer, const std::vector<float>& texels) {
  if (t.layers() > 0) {
    glBindTexture(GL_TEXTURE_2D_ARRAY, t.id());
    glTexSubImage3D(GL_TEXTURE_2D_ARRAY, 0, 0, 0, layer, t.width(), t.height(), 1, GL_RGBA, GL_FLOAT,
                    texels.data());
  } else {
    glBindTexture(GL_TEXTURE_2D, t.id());
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, t.width(), t.height(), GL_RGBA, GL_FLOAT, texels.data());
  }
  checkGl("uploading a D2T texture");
}

// Node vectors (3 per node) into texels; unused texels 0, gutters filled.
inline std::vector<float> nodeTexels(const Atlas& a, const std::vector<Vec3>& x, bool fill = true) {
  std::vector<float> t(size_t(a.texelCount()) * 4, 0.0f);
  for (int i = 0; i < a.nodeCount(); ++i)
    for (int c = 0; c < 3; ++c) t[size_t(a.nodeTexel[i]) * 4 + c] = float(x[i][c]);
  if (fill) fillGutter(a, t.data(), 4);
  return t;
}

}  // namespace d2t::gpu_detail
