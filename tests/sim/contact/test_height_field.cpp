// Ridged terrain: the interpolated height agrees with the mesh everywhere, the
// mesh is closed, the pattern has the requested amplitude and wavelength.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>

#include "sim/contact/height_field.h"

using namespace d2t;

namespace {

HeightField testField() { return HeightField(4.0, 0.2, 0.8, 40, Vec3(1, -0.5, 2)); }

}  // namespace

TEST(HeightField, HeightEqualsTheMeshTrianglesEverywhere) {
  const HeightField f = testField();
  const TriMesh m = f.mesh();
  const double cell = f.size() / f.resolution();
  std::mt19937 rng(4);
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  for (int s = 0; s < 5000; ++s) {
    const double x = 1 + u(rng), z = 2 + u(rng);
    // the grid cell and its triangle (a, b, c) for fx + fz <= 1, else (c, b, d)
    const double gx = (x - (1 - 2)) / cell, gz = (z - (2 - 2)) / cell;
    const int i = std::min(static_cast<int>(gx), f.resolution() - 1);
    const int j = std::min(static_cast<int>(gz), f.resolution() - 1);
    const double fx = gx - i, fz = gz - j;
    const int row = f.resolution() + 1;
    const int a = j * row + i, b = a + row, c = a + 1, d = b + 1;
    double h;
    if (fx + fz <= 1) {
      h = m.positions[a].y() + fx * (m.positions[c].y() - m.positions[a].y()) +
          fz * (m.positions[b].y() - m.positions[a].y());
    } else {
      h = m.positions[d].y() + (1 - fx) * (m.positions[b].y() - m.positions[d].y()) +
          (1 - fz) * (m.positions[c].y() - m.positions[d].y());
    }
    EXPECT_NEAR(f.height(x, z), h, 1e-13) << x << " " << z;
  }
  // at the grid vertices the mesh holds the grid heights
  for (int j = 0; j <= f.resolution(); j += 7)
    for (int i = 0; i <= f.resolution(); i += 5) {
      const Vec3& p = m.positions[j * (f.resolution() + 1) + i];
      EXPECT_EQ(p.y(), f.gridHeight(i, j));
      EXPECT_NEAR(f.height(p.x(), p.z()), p.y(), 1e-15);
    }
}

TEST(HeightField, MeshIsClosedWithTheVolumeUnderTheSurface) {
  const HeightField f = testField();
  const TriMesh m = f.mesh();
  EXPECT_TRUE(m.isClosed());
  // planar cells: the volume over each cell is its area times the mean corner height
  const double bottom = -0.5 - std::max(0.2, 4.0 / 20);
  const double cell = f.size() / f.resolution();
  double V = 0;
  for (int j = 0; j < f.resolution(); ++j)
    for (int i = 0; i < f.resolution(); ++i)
      V += cell * cell *
           (0.25 * (f.gridHeight(i, j) + f.gridHeight(i + 1, j) + f.gridHeight(i, j + 1) +
                    f.gridHeight(i + 1, j + 1)) - bottom);
  EXPECT_NEAR(m.volume() / V, 1.0, 1e-12);
  const Aabb box = m.bounds();
  EXPECT_NEAR(box.lo.x(), -1.0, 1e-12);
  EXPECT_NEAR(box.hi.z(), 4.0, 1e-12);
  EXPECT_NEAR(box.lo.y(), bottom, 1e-12);
}

TEST(HeightField, RidgesHaveTheAmplitudeAndWavelength) {
  // grid spacing 0.1 divides the wavelength 0.8: crests on grid lines
  const HeightField f = testField();
  const double z = 2.0;  // the swell along z is at its top at the origin
  double lo = 1e300, hi = -1e300;
  for (double x = -1; x <= 3; x += 0.01) {
    lo = std::min(lo, f.height(x, z));
    hi = std::max(hi, f.height(x, z));
  }
  EXPECT_NEAR(hi, -0.5 + 0.2 + 0.2 * 0.2, 1e-12);  // crest + swell
  EXPECT_NEAR(hi - lo, 0.2, 0.01);               // crest to trough, within grid sampling
  for (double x = -0.6; x < 2.2; x += 0.1)
    EXPECT_NEAR(f.height(x, z), f.height(x + 0.8, z), 1e-12) << x;
  EXPECT_NEAR(f.height(1.0, z), hi, 1e-12);  // a crest at the origin
}

TEST(HeightField, NormalIsTheUnitUpwardGradientNormal) {
  const HeightField f = testField();
  std::mt19937 rng(6);
  std::uniform_real_distribution<double> u(-1.9, 1.9);
  const double e = 1e-7;
  for (int s = 0; s < 500; ++s) {
    const double x = 1 + u(rng), z = 2 + u(rng);
    const Vec3 n = f.normal(x, z);
    EXPECT_NEAR(n.norm(), 1.0, 1e-14);
    EXPECT_GT(n.y(), 0.0);
    // perpendicular to the surface tangents (one-sided differences inside the cell)
    const double cell = f.size() / f.resolution();
    const double fx = std::fmod(x + 1, cell) / cell, fz = std::fmod(z, cell) / cell;
    const double sx = fx < 0.5 ? e : -e, sz = fz < 0.5 ? e : -e;
    const Vec3 tx(sx, f.height(x + sx, z) - f.height(x, z), 0);
    const Vec3 tz(0, f.height(x, z + sz) - f.height(x, z), sz);
    EXPECT_NEAR(n.dot(tx.normalized()), 0.0, 1e-7);
    EXPECT_NEAR(n.dot(tz.normalized()), 0.0, 1e-7);
  }
  // outside the square the edge height is held: flat across the border
  EXPECT_NEAR(f.height(10, 2), f.height(3, 2), 1e-15);
  EXPECT_NEAR(f.normal(10, 2).x(), 0.0, 1e-15);
}

TEST(HeightField, SignedDistanceIsVertical) {
  const HeightField f = testField();
  EXPECT_NEAR(f.signedDistance(Vec3(0.3, f.height(0.3, 1.7) + 0.25, 1.7)), 0.25, 1e-14);
  EXPECT_NEAR(f.signedDistance(Vec3(0.3, f.height(0.3, 1.7) - 0.1, 1.7)), -0.1, 1e-14);
}

TEST(HeightField, RejectsBadParameters) {
  EXPECT_THROW(HeightField(0, 0.1, 1, 8, Vec3::Zero()), std::invalid_argument);
  EXPECT_THROW(HeightField(1, -0.1, 1, 8, Vec3::Zero()), std::invalid_argument);
  EXPECT_THROW(HeightField(1, 0.1, 0, 8, Vec3::Zero()), std::invalid_argument);
  EXPECT_THROW(HeightField(1, 0.1, 1, 0, Vec3::Zero()), std::invalid_argument);
}

// The bound the contact culling relies on (Collider::boundingHalfSpace): no point of
// the surface, inside the square or beyond it (edge held), is above maxHeight, and
// the top grid vertex reaches it.
TEST(HeightField, MaxHeightBoundsTheSurfaceAndIsReached) {
  const HeightField f = testField();
  double top = -1e300;
  for (int j = 0; j <= f.resolution(); ++j)
    for (int i = 0; i <= f.resolution(); ++i) top = std::max(top, f.gridHeight(i, j));
  EXPECT_EQ(f.maxHeight(), top);
  EXPECT_NEAR(f.maxHeight() - f.origin().y(), 1.2 * 0.2, 0.01);  // ridge crest plus the swell
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-3.0, 3.0);
  for (int s = 0; s < 5000; ++s) EXPECT_LE(f.height(1 + u(rng), 2 + u(rng)), f.maxHeight() + 1e-12);
}
