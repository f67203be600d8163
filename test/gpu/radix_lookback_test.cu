// The one-sweep machinery of the radix backend under shapes the default tuning rarely
// reaches: digit starts carried from portion to portion, and far more tiles than blocks fit
// on the GPU at once (the look-back must make progress whatever order blocks start in).
#include "../support/gpu.cuh"
#include "../support/sort_checks.cuh"

#include <gpusort/sort.cuh>

#include <cstdint>

namespace gpusort::test {
namespace {

// Portions of three tiles: a 100003-key sort runs as several launches per pass.
struct three_tile_portions {
  static constexpr gpusort::radix_knobs knobs = [] {
    gpusort::radix_knobs k = gpusort::radix_tuning_sm90::knobs;
    k.max_portion_keys = 3 * k.block_threads * k.items_per_thread;
    return k;
  }();
};

// One key per thread: thousands of tiles, each waiting on its predecessors' digit counts.
struct one_key_tiles {
  static constexpr gpusort::radix_knobs knobs = [] {
    gpusort::radix_knobs k = gpusort::radix_tuning_sm90::knobs;
    k.items_per_thread = 1;
    return k;
  }();
};

// One key per thread, and pairs' look-back as wide as the keys'.
struct one_key_tiles_wide_look_back {
  static constexpr gpusort::radix_knobs knobs = [] {
    gpusort::radix_knobs k = one_key_tiles::knobs;
    k.look_back_width_with_values = k.look_back_width;
    return k;
  }();
};

class RadixLookback : public GpuTest {};

TEST_F(RadixLookback, DigitStartsCarryAcrossPortions) {
  const gpusort::radix_policy<three_tile_portions> policy;
  for (std::size_t n : {std::size_t(20737), std::size_t(100003), std::size_t(1) << 18}) {
    for (bool descending : {false, true}) {
      expect_sorts_keys<std::uint32_t>(policy, n, distribution::uniform, descending, n + 1);
      expect_sorts_pairs<std::uint64_t>(policy, n, distribution::few_distinct, descending, n + 2);
      expect_sorts_pairs<float>(policy, n, distribution::normal, descending, n + 3);
    }
  }
}

TEST_F(RadixLookback, ManyMoreTilesThanResidentBlocks) {
  const gpusort::radix_policy<one_key_tiles> policy;
  const std::size_t n = (std::size_t(1) << 22) + 13;  // about 11000 tiles of 384 keys
  expect_sorts_keys<std::uint32_t>(policy, n, distribution::uniform, false, 21);
  expect_sorts_pairs<std::uint32_t>(policy, n, distribution::zipf_like, true, 22);
}

// Every tile count up to a few look-back steps, with the last tile full, short by one key, or
// one key long: each walk back ends in a step of every length up to the look-back's width.
TEST_F(RadixLookback, WalksOfEveryLengthAroundTheLookBackWidth) {
  using tuning = one_key_tiles_wide_look_back;
  static_assert(tuning::knobs.look_back_width > 1, "the test needs a wide look-back");
  const gpusort::radix_policy<tuning> policy;
  constexpr std::size_t tile = tuning::knobs.block_threads;
  for (std::size_t tiles = 1; tiles <= 3 * std::size_t(tuning::knobs.look_back_width) + 1;
       ++tiles) {
    for (std::size_t n : {tiles * tile - 1, tiles * tile, tiles * tile + 1}) {
      expect_sorts_keys<std::uint32_t>(policy, n, distribution::uniform, false, n);
      expect_sorts_pairs<std::uint64_t>(policy, n, distribution::few_distinct, true, n + 1);
    }
  }
}

}  // namespace
}  // namespace gpusort::test
