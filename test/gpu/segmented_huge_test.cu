// The segmented sort at the sizes its 64-bit positions and 32-bit segment numbers are for:
//   - beyond 2^32 keys, with one segment of more than 2^32 keys among small ones and a gap;
//   - 2^31 segments (most of one key, some empty, every 2048th of 513 keys).
// Inputs are made and checked on the device (test/support/device_checks.cuh): too big to sort
// on the host.
#include "../support/device_checks.cuh"
#include "../support/gpu.cuh"
#include "../support/segments.cuh"

#include <gpusort/segmented_sort.cuh>

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

namespace gpusort::test {
namespace {

class SegmentedHuge : public SegmentedGpuTest {};

// ---- Beyond 2^32 keys ------------------------------------------------------------------

TEST_F(SegmentedHuge, BeyondTwoToThe32KeysWithASegmentOfMoreThanTwoToThe32) {
  using Key = std::uint8_t;
  const std::size_t n = (std::size_t(1) << 32) + (std::size_t(1) << 20) + 3;
  // Segments [begins[i], ends[i]): small ones at both ends, one of more than 2^32 keys, and
  // keys [n - 3000, n - 1000) in no segment.
  const std::vector<std::uint64_t> begins{0, 1000, 1033, n - 5000, n - 1000};
  const std::vector<std::uint64_t> ends{1000, 1033, n - 5000, n - 3000, n};
  // The keys, the alternate buffer of the multi-block segment, and room for the plan.
  if (!device_has_free(2 * n * sizeof(Key) + (std::size_t(2) << 30)))
    GTEST_SKIP() << "device memory too small for " << n << " keys";
  Key* keys = nullptr;
  ASSERT_EQ(cudaMalloc(&keys, n * sizeof(Key)), cudaSuccess);
  fill_keys_on_device(keys, n, 2026, 0);
  std::vector<multiset_fingerprint> before;
  for (std::size_t i = 0; i < begins.size(); ++i)
    before.push_back(fingerprint_of(keys + begins[i], ends[i] - begins[i]));
  const multiset_fingerprint gap_before = fingerprint_of(keys + (n - 3000), 2000);
  std::vector<Key> gap(2000);
  ASSERT_EQ(cudaMemcpy(gap.data(), keys + (n - 3000), gap.size() * sizeof(Key),
                       cudaMemcpyDeviceToHost),
            cudaSuccess);

  const device_array<std::uint64_t> device_begins(begins);
  const device_array<std::uint64_t> device_ends(ends);
  gpusort::segmented_sort(gpusort::par, keys, keys + n, device_begins.begin(),
                          device_ends.begin(), begins.size());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);

  for (std::size_t i = 0; i < begins.size(); ++i) {
    SCOPED_TRACE("segment " + std::to_string(i) + ": [" + std::to_string(begins[i]) + ", " +
                 std::to_string(ends[i]) + ")");
    const std::size_t size = ends[i] - begins[i];
    EXPECT_EQ(first_bad_position(keys + begins[i], size, false), size) << "out of order there";
    EXPECT_TRUE(fingerprint_of(keys + begins[i], size) == before[i])
        << "not a permutation of the segment";
  }
  std::vector<Key> gap_after(gap.size());
  ASSERT_EQ(cudaMemcpy(gap_after.data(), keys + (n - 3000), gap.size() * sizeof(Key),
                       cudaMemcpyDeviceToHost),
            cudaSuccess);
  EXPECT_EQ(gap_after, gap) << "keys in no segment changed";
  EXPECT_TRUE(fingerprint_of(keys + (n - 3000), 2000) == gap_before);
  cudaFree(keys);
}

// ---- 2^31 segments -----------------------------------------------------------------------

constexpr std::uint64_t big_every = 2048;  // segment i of big_size keys where i % big_every == 0
constexpr std::uint64_t big_size = 513;
constexpr std::uint64_t empty_every = 4096;  // empty where i % empty_every == 1; else one key

// The first key of segment i: the sizes above added up.
__host__ __device__ std::uint64_t offset_of_segment(std::uint64_t i) {
  const std::uint64_t big_before = (i + big_every - 1) / big_every;
  const std::uint64_t empty_before = (i + empty_every - 2) / empty_every;
  return i + (big_size - 1) * big_before - empty_before;
}

__global__ void fill_offsets(unsigned* offsets, std::uint64_t count) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < count;
       i += std::uint64_t(gridDim.x) * blockDim.x)
    offsets[i] = unsigned(offset_of_segment(i));
}

// One thread per segment: its keys ascend, equal keys with ascending values, and each value is
// the input position of its key, inside the segment. Values name distinct keys or ascend, so
// they are distinct: the segment holds a stable sorted permutation of its own input.
// *first_bad = the smallest segment that fails.
__global__ void find_first_bad_segment(const std::uint8_t* keys, const unsigned* values,
                                       const unsigned* offsets, std::uint64_t segments,
                                       std::uint64_t seed, unsigned long long* first_bad) {
  for (std::uint64_t s = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; s < segments;
       s += std::uint64_t(gridDim.x) * blockDim.x) {
    const std::uint64_t begin = offsets[s];
    const std::uint64_t end = offsets[s + 1];
    bool bad = false;
    for (std::uint64_t i = begin; i < end && !bad; ++i) {
      const unsigned value = values[i];
      bad = value < begin || value >= end ||
            key_at_position<std::uint8_t>(value, seed, 0) != keys[i];
      if (i > begin)
        bad = bad || keys[i] < keys[i - 1] || (keys[i] == keys[i - 1] && value <= values[i - 1]);
    }
    if (bad) atomicMin(first_bad, static_cast<unsigned long long>(s));
  }
}

TEST_F(SegmentedHuge, TwoToThe31Segments) {
  const std::uint64_t segments = std::uint64_t(1) << 31;
  const std::uint64_t n = offset_of_segment(segments);
  ASSERT_LT(n, std::uint64_t(1) << 32) << "offsets are 32-bit here";
  // Offsets, keys and values, and the plan's lists (about 4 bytes per key).
  const std::size_t bytes = (segments + 1) * sizeof(unsigned) + n * (1 + 4 + 4);
  if (!device_has_free(bytes + (std::size_t(1) << 30)))
    GTEST_SKIP() << "device memory too small for " << segments << " segments";
  unsigned* offsets = nullptr;
  std::uint8_t* keys = nullptr;
  unsigned* values = nullptr;
  ASSERT_EQ(cudaMalloc(&offsets, (segments + 1) * sizeof(unsigned)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&keys, n), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&values, n * sizeof(unsigned)), cudaSuccess);
  fill_offsets<<<8192, 256>>>(offsets, segments + 1);
  fill_keys_on_device(keys, n, 31, 0);
  fill_positions_on_device(values, n);

  gpusort::stable_segmented_sort_by_key(gpusort::par, keys, keys + n, values, offsets,
                                        offsets + segments + 1);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);

  device_scalar<unsigned long long> first_bad;
  ASSERT_EQ(cudaMemset(first_bad.get(), 0xFF, sizeof(unsigned long long)), cudaSuccess);
  find_first_bad_segment<<<8192, 256>>>(keys, values, offsets, segments, 31, first_bad.get());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(first_bad.read(), ~0ull) << "the first segment not sorted stably in place";
  cudaFree(values);
  cudaFree(keys);
  cudaFree(offsets);
}

}  // namespace
}  // namespace gpusort::test
