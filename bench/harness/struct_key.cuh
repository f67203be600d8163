// The benchmarks' struct key: 16 bytes ordered on two of its fields by a comparator of the
// user's own, which is what a comparison sort is for (no radix traits, no named order).
#pragma once

#include <cstdint>
#include <type_traits>

namespace gpusort_bench {

// Ordered by (major, minor) through major_minor_less; id rides along and is not compared.
// The generated data (random_keys.cuh) gives major a few thousand distinct values and minor
// 24 random bits, so both fields decide comparisons, and keys that compare equal usually
// differ in id: an unstable sort may put those in either order.
struct s16_key {
  std::uint32_t major;
  float minor;
  std::uint64_t id;
};
static_assert(sizeof(s16_key) == 16 && std::is_trivially_copyable_v<s16_key>,
              "s16_key is 16 bytes without padding: outputs are compared byte for byte");

struct major_minor_less {
  __host__ __device__ bool operator()(const s16_key& a, const s16_key& b) const {
    return a.major < b.major || (a.major == b.major && a.minor < b.minor);
  }
};

}  // namespace gpusort_bench
