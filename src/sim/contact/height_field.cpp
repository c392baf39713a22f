#include "sim/contact/height_field.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace d2t {

HeightField::HeightField(double size, double amplitude, double wavelength, int resolution,
                         Vec3 origin)
    : size_(size), amplitude_(amplitude), wavelength_(wavelength), n_(resolution),
      origin_(origin) {
  if (!(size > 0) || !(amplitude >= 0) || !(wavelength > 0) || resolution < 1)
    throw std::invalid_argument(
        "HeightField: need size > 0, amplitude >= 0, wavelength > 0, resolution >= 1");
  cell_ = size_ / n_;
  // separable ridged pattern (see the header): rounded crests along x, a swell along z
  constexpr double e = 0.2;
  const double top = std::sqrt(1 + e * e), norm = top - e;
  auto ridge = [&](double x) {
    const double s = std::sin(kPi * x / wavelength_);
    return (top - std::sqrt(s * s + e * e)) / norm;
  };
  auto bump = [&](double z) { return 0.5 * (1 + std::cos(2 * kPi * z / (4 * wavelength_))); };
  std::vector<double> fx(n_ + 1), gz(n_ + 1);
  for (int k = 0; k <= n_; ++k) {
    const double c = -0.5 * size_ + k * cell_;  // relative to the origin
    fx[k] = amplitude_ * ridge(c);
    gz[k] = 0.2 * amplitude_ * bump(c);
  }
  heights_.resize(size_t(n_ + 1) * (n_ + 1));
  for (int j = 0; j <= n_; ++j)
    for (int i = 0; i <= n_; ++i) heights_[j * (n_ + 1) + i] = origin_.y() + fx[i] + gz[j];
  maxHeight_ = *std::max_element(heights_.begin(), heights_.end());
}

void HeightField::locate(double x, double z, int* i, int* j, double* fx, double* fz) const {
  const double u = std::clamp((x - origin_.x()) / cell_ + 0.5 * n_, 0.0, double(n_));
  const double v = std::clamp((z - origin_.z()) / cell_ + 0.5 * n_, 0.0, double(n_));
  *i = std::min(static_cast<int>(u), n_ - 1);
  *j = std::min(static_cast<int>(v), n_ - 1);
  *fx = u - *i;
  *fz = v - *j;
}

HeightField::Sample HeightField::sample(double x, double z) const {
  int i, j;
  double fx, fz;
  locate(x, z, &i, &j, &fx, &fz);
  const double h00 = gridHeight(i, j), h10 = gridHeight(i + 1, j);
  const double h01 = gridHeight(i, j + 1), h11 = gridHeight(i + 1, j + 1);
  Sample r;
  r.height = (1 - fz) * ((1 - fx) * h00 + fx * h10) + fz * ((1 - fx) * h01 + fx * h11);
  // gradient of the bilinear patch; zero across a clamped (outside) coordinate
  const double half = 0.5 * size_;
  const bool inX = std::abs(x - origin_.x()) <= half, inZ = std::abs(z - origin_.z()) <= half;
  const double hx = inX ? ((1 - fz) * (h10 - h00) + fz * (h11 - h01)) / cell_ : 0.0;
  const double hz = inZ ? ((1 - fx) * (h01 - h00) + fx * (h11 - h10)) / cell_ : 0.0;
  r.normal = Vec3(-hx, 1.0, -hz).normalized();
  return r;
}

double HeightField::height(double x, double z) const { return sample(x, z).height; }

Vec3 HeightField::normal(double x, double z) const { return sample(x, z).normal; }

double HeightField::signedDistance(const Vec3& p) const { return p.y() - height(p.x(), p.z()); }

TriMesh HeightField::mesh() const {
  TriMesh m;
  const int row = n_ + 1;
  const double x0 = origin_.x() - 0.5 * size_, z0 = origin_.z() - 0.5 * size_;
  // top surface: vertex (i, j) at index j * (n + 1) + i
  for (int j = 0; j <= n_; ++j)
    for (int i = 0; i <= n_; ++i)
      m.positions.emplace_back(x0 + i * cell_, gridHeight(i, j), z0 + j * cell_);
  for (int j = 0; j < n_; ++j)
    for (int i = 0; i < n_; ++i) {
      const int a = j * row + i, b = a + row, c = a + 1, d = b + 1;
      // (b - a) x (c - a) = +z x +x = +y: counter-clockwise seen from above
      m.triangles.emplace_back(a, b, c);
      m.triangles.emplace_back(c, b, d);
    }
  // boundary loop: along z = min (+x), x = max (+z), z = max (-x), x = min (-z)
  std::vector<int> loop;
  for (int i = 0; i < n_; ++i) loop.push_back(i);
  for (int j = 0; j < n_; ++j) loop.push_back(j * row + n_);
  for (int i = n_; i > 0; --i) loop.push_back(n_ * row + i);
  for (int j = n_; j > 0; --j) loop.push_back(j * row);
  // skirt down to a flat bottom, closed by a fan around the bottom centre
  const double bottom = origin_.y() - std::max(amplitude_, size_ / 20);
  const int first = static_cast<int>(m.positions.size());
  for (int v : loop) m.positions.emplace_back(m.positions[v].x(), bottom, m.positions[v].z());
  const int centre = static_cast<int>(m.positions.size());
  m.positions.emplace_back(origin_.x(), bottom, origin_.z());
  const int nl = static_cast<int>(loop.size());
  for (int k = 0; k < nl; ++k) {
    const int A = loop[k], B = loop[(k + 1) % nl];
    const int A2 = first + k, B2 = first + (k + 1) % nl;
    m.triangles.emplace_back(A, B2, A2);  // wall, facing out of the square
    m.triangles.emplace_back(A, B, B2);
    m.triangles.emplace_back(centre, A2, B2);  // bottom, facing down
  }
  return m;
}

}  // namespace d2t
