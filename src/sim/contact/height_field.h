#pragma once
// Ridged terrain: a height field y = height(x, z) sampled on a regular grid.
#include <vector>

#include "sim/base/math.h"
#include "sim/scene/tri_mesh.h"

namespace d2t {

/// A square height field of side `size` centred at `origin` (in x and z) over
/// the base level origin.y. Grid vertex heights are sampled from a separable
/// ridged pattern
///   h(x, z) = amplitude * (ridge(x) + 0.2 * bump(z)),
///   ridge(x) = (sqrt(1 + e^2) - sqrt(sin^2(pi x / wavelength) + e^2)) / (sqrt(1 + e^2) - e),
///   bump(z)  = 0.5 (1 + cos(2 pi z / (4 wavelength))),
/// (x, z relative to the origin, e = 0.2: rounded crests of height `amplitude`
/// every `wavelength` along x, and a gentle swell along z).
/// Between vertices the height is the bilinear interpolant of the grid.
/// Because the pattern is a sum f(x) + g(z), every grid cell has zero twist,
/// so the bilinear patch is a plane and coincides (up to rounding) with the
/// two triangles of mesh(): height() and the rendered surface agree everywhere.
class HeightField {
 public:
  /// size: side of the square [m] (> 0); amplitude: ridge height [m];
  /// wavelength: ridge spacing [m] (> 0); resolution: grid cells per side (>= 1);
  /// origin: centre of the square at base level [m]. Throws std::invalid_argument.
  HeightField(double size, double amplitude, double wavelength, int resolution, Vec3 origin);

  /// Surface height [m] at (x, z): bilinear in the grid cell; outside the square
  /// the edge value is held (clamped coordinates).
  double height(double x, double z) const;
  /// Height [m] and upward unit normal at (x, z), from one cell lookup.
  struct Sample {
    double height = 0;
    Vec3 normal = Vec3::UnitY();
  };
  Sample sample(double x, double z) const;
  /// Upward unit normal of the interpolated surface at (x, z).
  Vec3 normal(double x, double z) const;
  /// Vertical signed distance p.y - height(p.x, p.z) [m], negative below the
  /// surface. It overestimates the true distance by 1 / cos(slope), which keeps
  /// the sign exact and is exact on flat parts.
  double signedDistance(const Vec3& p) const;
  /// Closed, outward mesh: the top surface (two triangles per grid cell), four
  /// side walls (skirt) down to a flat bottom at the base level minus a
  /// thickness of max(amplitude, size / 20).
  TriMesh mesh() const;

  double size() const { return size_; }
  double amplitude() const { return amplitude_; }
  double wavelength() const { return wavelength_; }
  int resolution() const { return n_; }
  const Vec3& origin() const { return origin_; }
  /// The highest grid vertex [m]: the surface, bilinear in each cell, is below it
  /// everywhere (also outside the square, where the edge is held).
  double maxHeight() const { return maxHeight_; }
  /// Height [m] of grid vertex (i, j), i along x and j along z, in [0, resolution].
  double gridHeight(int i, int j) const { return heights_[j * (n_ + 1) + i]; }

 private:
  /// Grid coordinates of (x, z): cell (i, j) and fractions (fx, fz) in [0, 1].
  void locate(double x, double z, int* i, int* j, double* fx, double* fz) const;

  double size_, amplitude_, wavelength_;
  int n_;
  Vec3 origin_;
  double maxHeight_ = 0;
  double cell_;                  ///< grid spacing [m]
  std::vector<double> heights_;  ///< ((n+1) x (n+1)) vertex heights [m], row-major in z
};

}  // namespace d2t
