// The segmented sort on a 16-byte struct key with a comparator of its own, through the public
// API (gpusort::merge: the keys are no radix keys): segments of every size at and around the
// sorters' boundaries for keys of this width (a group of lanes, a small block, a half block, a
// block, several blocks), shuffled among others, against std::stable_sort of each segment on
// the host. The key carries its input position as a payload outside the order, so a lost,
// duplicated or unstably moved key shows in the keys alone.
#include "../support/device_vector.cuh"
#include "../support/gpu.cuh"

#include <gpusort/detail/backends/segmented/small_block_shape.cuh>
#include <gpusort/segmented_sort.cuh>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <type_traits>
#include <vector>

namespace gpusort::test {
namespace {

struct record {
  std::uint32_t major;
  float minor;
  std::uint64_t position;  // payload, not part of the order
};
static_assert(sizeof(record) == 16 && std::is_trivially_copyable_v<record>);

struct by_major_then_minor {
  __host__ __device__ bool operator()(const record& a, const record& b) const {
    return a.major < b.major || (a.major == b.major && a.minor < b.minor);
  }
};

bool same(const record& a, const record& b) {
  return a.major == b.major && a.minor == b.minor && a.position == b.position;
}

// The boundaries of sm_90's tuning for this key: one below, at and one above each.
std::vector<std::size_t> boundary_sizes() {
  using tuning = merge_tuning_sm90;
  const std::size_t small = backends::segmented::small_block_shape<tuning, record>::tile_items;
  const std::size_t half = backends::segmented::half_block_shape<tuning, record>::tile_items;
  const std::size_t block = backends::merge::merge_shape<tuning, record>::tile_items;
  std::vector<std::size_t> sizes{0, 1, 2, 3, 4, 5, 8, 9, 16, 17, 32, 33, 64, 65};
  for (std::size_t boundary : {small, half, block, 2 * block})
    for (std::size_t size : {boundary - 1, boundary, boundary + 1}) sizes.push_back(size);
  return sizes;
}

class SegmentedStruct : public GpuTest {};

TEST_F(SegmentedStruct, SegmentsAtEverySorterBoundaryMatchStdStableSort) {
  // Few majors and minors, so that the comparator's second field decides often and equal
  // keys (the same major and minor) are common.
  for (int majors : {4, 1 << 20}) {
    std::mt19937_64 random{std::uint64_t(majors)};
    std::vector<std::size_t> sizes;
    for (int copy = 0; copy < 3; ++copy)
      for (std::size_t size : boundary_sizes()) sizes.push_back(size);
    for (int extra = 0; extra < 200; ++extra) sizes.push_back(random() % 2000);
    std::shuffle(sizes.begin(), sizes.end(), random);
    std::vector<long long> offsets{0};
    for (std::size_t size : sizes) offsets.push_back(offsets.back() + (long long)size);
    std::vector<record> keys(std::size_t(offsets.back()));
    for (std::size_t i = 0; i < keys.size(); ++i)
      keys[i] = {std::uint32_t(random() % std::uint64_t(majors)), float(random() % 16) * 0.25f,
                 i};

    device_array<record> device_keys(keys);
    device_array<long long> device_offsets(offsets);
    stable_segmented_sort(merge, device_keys.begin(), device_keys.end(),
                          device_offsets.begin(), device_offsets.end(), by_major_then_minor{});
    const std::vector<record> sorted = device_keys.to_host();

    for (std::size_t s = 0; s + 1 < offsets.size(); ++s)
      std::stable_sort(keys.begin() + offsets[s], keys.begin() + offsets[s + 1],
                       by_major_then_minor{});
    ASSERT_EQ(sorted.size(), keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i)
      ASSERT_TRUE(same(sorted[i], keys[i]))
          << "majors " << majors << ", key " << i << ": position " << sorted[i].position
          << " where std::stable_sort has " << keys[i].position;
  }
}

}  // namespace
}  // namespace gpusort::test
