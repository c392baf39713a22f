#pragma once
// 64-bit FNV-1a (over bytes, or over 64-bit words for doubles): the fingerprints of
// baked models and of world states.
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace d2t {

class Fnv1a {
 public:
  void bytes(const void* p, size_t n) {
    const auto* c = static_cast<const unsigned char*>(p);
    for (size_t i = 0; i < n; ++i) h_ = (h_ ^ c[i]) * 1099511628211ull;
  }
  /// Doubles by their bits, -0 as +0 (the same value), a 64-bit word a round (eight
  /// times fewer rounds than byte by byte: a 256^2 model's K_e is 20 MB).
  void numbers(const double* x, size_t count) {
    for (size_t i = 0; i < count; ++i) {
      const double v = x[i] == 0 ? 0.0 : x[i];
      uint64_t bits;
      std::memcpy(&bits, &v, sizeof bits);
      h_ = (h_ ^ bits) * 1099511628211ull;
    }
  }
  uint64_t value() const { return h_; }

 private:
  uint64_t h_ = 14695981039346656037ull;
};

}  // namespace d2t
