// The skin's limits against its own core (core_contact.h): the CPU reference.
#include "sim/contact/core_contact.h"

#include <algorithm>

namespace d2t {

void findCoreContacts(const BakedBody& m, const std::vector<Vec3>& q, double keep, double margin, double reach,
                      std::vector<CoreContact>* out) {
  out->clear();
  const int n = m.nodeCount();
  for (int i = 0; i < n; ++i) {
    double h = 0;
    const Vec3 d = restDirection(m, i, &h);
    const Vec3& qi = q[size_t(i)];
    const double crush = d.dot(qi) + (1 - keep) * h;
    if (crush < margin * h + reach) out->push_back({i, -crush, d, false});
    const Vec3 si = stretchPart(qi, d);
    const double length = si.norm(), stretch = kMaxStretch * h - length;
    if (stretch < margin * h + reach && length > 0) out->push_back({i, -stretch, Vec3(-si / length), true});
  }
}

std::vector<std::pair<int, Mat3>> heldBlocks(const std::vector<Mat3>& hinv,
                                             const std::vector<std::pair<int, Vec3>>& held) {
  std::vector<std::pair<int, Vec3>> sorted = held;
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::pair<int, Mat3>> out;
  for (const auto& [i, n] : sorted) {
    if (out.empty() || out.back().first != i) out.emplace_back(i, hinv[size_t(i)]);
    out.back().second = heldInverse(out.back().second, n);
  }
  return out;
}

}  // namespace d2t
