// The counting sort's index arithmetic (backends/radix/counting_layout.cuh), checked on the
// host: which keys are loaded and stored as vectors, how counters are flushed and sliced, and
// which bin an output position holds.
#include <gpusort/detail/backends/radix/counting_kernels.cuh>
#include <gpusort/detail/backends/radix/counting_layout.cuh>
#include <gpusort/detail/backends/radix/dispatch.cuh>
#include <gpusort/error.cuh>
#include <gpusort/detail/policies/tuning/sm90.cuh>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <type_traits>
#include <vector>

namespace radix = gpusort::backends::radix;

TEST(CountingLayout, HeadVectorsAndTailCoverEveryKeyOnce) {
  for (int key_bytes : {1, 2})
    for (std::uintptr_t address = 0x1000; address < 0x1000 + 16; address += key_bytes)
      for (std::size_t n : {0, 1, 2, 7, 15, 16, 17, 31, 33, 1000, 4097}) {
        const radix::vector_split split = radix::split_into_vectors(address, n, key_bytes);
        const std::size_t per_vector = std::size_t(16 / key_bytes);
        ASSERT_EQ(split.head + split.vectors * per_vector + split.tail, n);
        ASSERT_LT(split.head, per_vector);
        ASSERT_LT(split.tail, per_vector);
        if (split.vectors > 0)  // the first vector starts on a 16-byte boundary
          ASSERT_EQ((address + split.head * key_bytes) % 16, 0u) << address << " " << n;
        std::vector<int> covered(n, 0);
        for (std::size_t v = 0; v < split.vectors; ++v)
          for (std::size_t k = 0; k < per_vector; ++k) ++covered[split.head + v * per_vector + k];
        for (std::size_t i = 0; i < split.head + split.tail; ++i)
          ++covered[radix::loose_key_position(split, i, key_bytes)];
        for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(covered[i], 1) << "position " << i;
      }
}

TEST(CountingLayout, AlignedRangesAreAllVectors) {
  const radix::vector_split split = radix::split_into_vectors(0x2000, 4096, 1);
  EXPECT_EQ(split.head, 0u);
  EXPECT_EQ(split.vectors, 256u);
  EXPECT_EQ(split.tail, 0u);
  const radix::vector_split beyond =
      radix::split_into_vectors(0x2002, (std::size_t(1) << 33) + 5, 2);
  EXPECT_EQ(beyond.head, 7u);
  EXPECT_EQ(beyond.head + beyond.vectors * 8 + beyond.tail, (std::size_t(1) << 33) + 5);
}

TEST(CountingLayout, FlushTakesEachCounterAcrossTheThresholdOnce) {
  EXPECT_FALSE(radix::crosses_flush_threshold(0, 1));
  EXPECT_TRUE(radix::crosses_flush_threshold(0x7FFF, 1));
  EXPECT_TRUE(radix::crosses_flush_threshold(0x7000, 0x1000));
  EXPECT_FALSE(radix::crosses_flush_threshold(0x7000, 0xFFF));
  EXPECT_FALSE(radix::crosses_flush_threshold(0x8000, 1));  // already crossed: not again
}

// The count kernel's counters, simulated one add at a time in a random interleaving of
// crossings and their take-offs: a counter never passes 16 bits, ends each step below the
// threshold, and loses no key.
TEST(CountingLayout, SixteenBitCountersNeverOverflowAndLoseNothing) {
  std::mt19937_64 rng(7);
  unsigned counter = 0;
  unsigned long long global = 0, total = 0;
  for (int step = 0; step < 200; ++step) {
    unsigned budget = radix::max_step_increments;
    unsigned pending_take_offs = 0;  // crossings whose subtraction has not landed yet
    while (budget > 0) {
      const unsigned run = std::min<unsigned>(budget, 1 + unsigned(rng() % 40));
      budget -= run;
      total += run;
      const unsigned before = counter;
      counter += run;
      ASSERT_LE(counter, 0xFFFFu);
      if (radix::crosses_flush_threshold(before, run)) {
        global += radix::counter_flush_threshold;
        ++pending_take_offs;
      }
      if (pending_take_offs > 0 && rng() % 8 == 0) {
        counter -= radix::counter_flush_threshold;
        --pending_take_offs;
      }
    }
    counter -= pending_take_offs * radix::counter_flush_threshold;  // before the barrier
    ASSERT_LT(counter, radix::counter_flush_threshold);
    ASSERT_EQ(global + counter, total);
  }
}

TEST(CountingLayout, CountersPackTwoToAWord) {
  EXPECT_EQ(radix::place_of_counter(0).word, 0u);
  EXPECT_EQ(radix::place_of_counter(0).shift, 0u);
  EXPECT_EQ(radix::place_of_counter(1).word, 0u);
  EXPECT_EQ(radix::place_of_counter(1).shift, 16u);
  EXPECT_EQ(radix::place_of_counter(65535).word, 32767u);
  EXPECT_EQ(radix::place_of_counter(65535).shift, 16u);
}

TEST(CountingLayout, WideHistogramsAreSlicedToFitSharedMemory) {
  const std::size_t u16_histogram = 65536 * 2;
  EXPECT_EQ(radix::histogram_slice_bits(u16_histogram, 227 * 1024), 0);  // sm_90
  EXPECT_EQ(radix::histogram_slice_bits(u16_histogram, 128 * 1024), 0);
  EXPECT_EQ(radix::histogram_slice_bits(u16_histogram, 99 * 1024), 1);   // sm_86/89/120
  EXPECT_EQ(radix::histogram_slice_bits(u16_histogram, 64 * 1024 - 64), 2);  // sm_75
  EXPECT_EQ(radix::histogram_slice_bits(256 * 32 * 2, 64 * 1024), 0);
  EXPECT_EQ(radix::histogram_slice_bits(u16_histogram, 0), -1);
}

TEST(CountingLayout, CountBlocksFollowTheInputUpToTheResidentOnes) {
  EXPECT_EQ(radix::count_blocks_per_slice(2, 1 << 19, 132), 1u);
  EXPECT_EQ(radix::count_blocks_per_slice(std::size_t(1) << 24, 1 << 19, 132), 32u);
  EXPECT_EQ(radix::count_blocks_per_slice((std::size_t(1) << 24) + 1, 1 << 19, 132), 33u);
  EXPECT_EQ(radix::count_blocks_per_slice(std::size_t(1) << 28, 1 << 19, 132), 132u);
  EXPECT_EQ(radix::count_blocks_per_slice(std::size_t(1) << 28, 0, 264), 264u);
}

namespace {
// Bin starts from counts (start(bins) = n), as the fill kernel sees them (host and device
// callable, as bin_of_position is).
struct starts_of {
  const unsigned long long* starts;
  __host__ __device__ unsigned long long operator()(std::size_t bin) const { return starts[bin]; }
};

// Every position's bin by search matches the bin found by walking the counts.
void expect_every_position_in_its_bin(const std::vector<unsigned long long>& counts) {
  std::vector<unsigned long long> starts(counts.size() + 1, 0);
  for (std::size_t b = 0; b < counts.size(); ++b) starts[b + 1] = starts[b] + counts[b];
  const starts_of start{starts.data()};
  std::size_t bin = 0;
  const unsigned long long n = starts.back();
  for (unsigned long long p = 0; p < n; ++p) {
    while (start(bin + 1) <= p) ++bin;
    ASSERT_EQ(radix::bin_of_position(start, 0, counts.size() - 1, p), bin) << "position " << p;
    ASSERT_EQ(radix::bin_of_position(start, bin, counts.size() - 1, p), bin);
  }
}
}  // namespace

TEST(CountingLayout, EachPositionIsFoundInItsBinPastEmptyBins) {
  expect_every_position_in_its_bin({5});
  expect_every_position_in_its_bin({0, 0, 3, 0, 0, 0, 2, 0});  // empty bins at both ends
  expect_every_position_in_its_bin({1, 1, 1, 1, 1, 1, 1, 1});
  std::vector<unsigned long long> one_value_at_the_top(65536, 0);
  one_value_at_the_top.back() = 10;
  expect_every_position_in_its_bin(one_value_at_the_top);
  std::vector<unsigned long long> two_far_apart(65536, 0);
  two_far_apart[0] = 3;
  two_far_apart[65535] = 4;
  expect_every_position_in_its_bin(two_far_apart);
  std::mt19937_64 rng(3);
  std::vector<unsigned long long> sparse(256);
  for (auto& c : sparse) c = rng() % 3 == 0 ? rng() % 5 : 0;
  expect_every_position_in_its_bin(sparse);
}

TEST(CountingLayout, ShapesOfTheBuiltInTuning) {
  using u8_shape = radix::counting_shape_t<gpusort::radix_tuning_sm90, std::uint8_t>;
  using u16_shape = radix::counting_shape_t<gpusort::radix_tuning_sm90, std::uint16_t>;
  using bool_shape = radix::counting_shape_t<gpusort::radix_tuning_sm90, bool>;
  EXPECT_EQ(u8_shape::bins, 256u);
  EXPECT_TRUE(u8_shape::lane_private);
  EXPECT_EQ(u8_shape::copies, 32);  // a copy of 32-bit counters per lane: 32 KB
  EXPECT_EQ(u8_shape::histogram_bytes, 32u * 1024);
  EXPECT_EQ(u8_shape::groups, 1);
  EXPECT_EQ(u16_shape::bins, 65536u);
  EXPECT_FALSE(u16_shape::lane_private);
  EXPECT_EQ(u16_shape::copies, 1);
  EXPECT_EQ(u16_shape::histogram_bytes, 128u * 1024);
  EXPECT_EQ(u16_shape::groups, 256);
  EXPECT_EQ(bool_shape::bins, 2u);
  EXPECT_TRUE(bool_shape::lane_private);
  EXPECT_EQ(bool_shape::group_bins, 2);
  EXPECT_EQ(bool_shape::sum_threads, 32);
  // Both built-in radix tunings share one compiled counting sort.
  using small_tiles_u16_shape =
      radix::counting_shape_t<gpusort::radix_tuning_small_tiles_sm90, std::uint16_t>;
  EXPECT_TRUE((std::is_same_v<u16_shape, small_tiles_u16_shape>));
}

TEST(CountingLayout, NarrowIntegerKeysAreTheCountedOnes) {
  EXPECT_TRUE(gpusort::is_narrow_integer_key_v<std::uint8_t>);
  EXPECT_TRUE(gpusort::is_narrow_integer_key_v<std::int16_t>);
  EXPECT_TRUE(gpusort::is_narrow_integer_key_v<bool>);
  EXPECT_TRUE(gpusort::is_narrow_integer_key_v<char>);
  EXPECT_TRUE(gpusort::is_narrow_integer_key_v<char16_t>);
  EXPECT_FALSE(gpusort::is_narrow_integer_key_v<std::uint32_t>);
  EXPECT_FALSE(gpusort::is_narrow_integer_key_v<__half>);  // -0.0 and +0.0: equal, not identical
  // 16-bit floats are counted too, their zeros and NaNs checked as they are (count_values).
  EXPECT_TRUE(gpusort::is_counted_key_v<__half>);
  EXPECT_TRUE(gpusort::is_counted_key_v<__nv_bfloat16>);
  EXPECT_TRUE(gpusort::is_counted_key_v<std::uint16_t>);
  EXPECT_FALSE(gpusort::is_counted_key_v<float>);
  EXPECT_FALSE(gpusort::is_narrow_integer_key_v<char32_t>);
}

// Where each key type starts being counted with the built-in tuning (below, par's other
// strategies were measured faster: policies/tuning/sm90.cuh).
TEST(CountingLayout, EachKeyTypeIsCountedFromItsMeasuredSize) {
  using tuning = gpusort::radix_tuning_sm90;
  EXPECT_EQ((radix::counting_min_keys<tuning, std::uint8_t>()), std::size_t(1) << 16);
  EXPECT_EQ((radix::counting_min_keys<tuning, bool>()), std::size_t(1) << 16);
  EXPECT_EQ((radix::counting_min_keys<tuning, std::int16_t>()), std::size_t(1) << 22);
  EXPECT_EQ((radix::counting_min_keys<tuning, __half>()), std::size_t(1) << 22);
  EXPECT_EQ((radix::counting_min_keys<tuning, __nv_bfloat16>()), std::size_t(1) << 22);
}
