// Compiled (not run) for every architecture from sm_75 to sm_120 by the portability.* tests:
// every policy's sort through the front door must build for each. The cluster sort, which
// needs sm_90, is compiled out below it and never launched there (cluster_sort_runs_on).
#include <gpusort/sort.cuh>

#include <cstddef>
#include <cstdint>

namespace {

struct by_magnitude {
  __host__ __device__ bool operator()(int a, int b) const {
    return (a < 0 ? -a : a) < (b < 0 ? -b : b);
  }
};

}  // namespace

void sort_with_every_policy(std::uint32_t* keys, std::uint64_t* wide, int* signed_keys,
                            float* values, std::size_t n) {
  gpusort::sort(gpusort::par, keys, keys + n);
  gpusort::stable_sort_by_key(gpusort::par, wide, wide + n, values);
  gpusort::sort(gpusort::par, signed_keys, signed_keys + n, by_magnitude{});
  gpusort::sort(gpusort::radix, keys, keys + n, gpusort::greater<>{});
  gpusort::sort_by_key(gpusort::bucket_bitonic, keys, keys + n, values);
  gpusort::stable_sort(gpusort::merge, signed_keys, signed_keys + n, by_magnitude{});
  gpusort::sort(gpusort::par, signed_keys, signed_keys + n,
                [] __device__(int a, int b) { return a % 7 < b % 7; });
}

void segmented_sort_with_every_policy(std::uint32_t* keys, std::uint64_t* wide,
                                      int* signed_keys, float* values, std::size_t n,
                                      const int* offsets, std::size_t segments) {
  gpusort::segmented_sort(gpusort::par, keys, keys + n, offsets, offsets + segments + 1);
  gpusort::stable_segmented_sort_by_key(gpusort::radix, wide, wide + n, values, offsets,
                                        offsets + 1, segments);
  gpusort::segmented_sort(gpusort::merge, signed_keys, signed_keys + n, offsets,
                          offsets + segments + 1, by_magnitude{});
}
