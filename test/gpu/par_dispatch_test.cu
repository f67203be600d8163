// gpusort::par's run-time dispatch on the GPU: every size boundary of the committed
// tables (threshold - 1, threshold, threshold + 1) for keys and pairs, and each cluster-sort
// tiling pinned at its own edges (one block, a block and one key, a full cluster), and the
// one-sweep sort with each of par's tilings of its own.
#include "../support/gpu.cuh"
#include "../support/sort_checks.cuh"

#include <gpusort/sort.cuh>

#include <cstdint>
#include <set>
#include <vector>

namespace gpusort::test {
namespace {

class ParDispatch : public GpuTest {};

// The sizes around every threshold of `key_bytes`-byte keys in the table this device uses,
// and in every other table (their sizes sort here too, by this device's choice).
std::vector<std::size_t> table_boundaries(int key_bytes, bool with_values) {
  std::set<std::size_t> sizes;
  const auto add_rows = [&](const par_dispatch_row* rows, std::size_t row_count) {
    for (std::size_t i = 0; i < row_count; ++i)
      if (rows[i].key_bytes == key_bytes && rows[i].with_values == with_values)
        for (std::size_t n : {rows[i].max_n - 1, rows[i].max_n, rows[i].max_n + 1}) sizes.insert(n);
  };
  const par_tuned_table& used = detail::par_table_of_current_device();
  add_rows(used.rows, used.row_count);
  for (const par_tuned_table& table : par_tuned_tables) add_rows(table.rows, table.row_count);
  add_rows(par_table_other_gpus.rows, par_table_other_gpus.row_count);
  return capped({sizes.begin(), sizes.end()});
}

template <class Key>
void expect_par_sorts_around_thresholds() {
  for (std::size_t n : table_boundaries(int(sizeof(Key)), false))
    for (bool descending : {false, true})
      for (distribution d : {distribution::uniform, distribution::few_distinct})
        expect_sorts_keys<Key>(par, n, d, descending, seed_for(n, d, sizeof(Key)));
  for (std::size_t n : table_boundaries(int(sizeof(Key)), true))
    for (bool descending : {false, true})
      expect_sorts_pairs<Key>(par, n, distribution::few_distinct, descending,
                              seed_for(n, distribution::few_distinct, sizeof(Key)) + 1);
}

TEST_F(ParDispatch, FourByteKeysSortAtEveryThresholdOfTheTable) {
  expect_par_sorts_around_thresholds<std::uint32_t>();
  expect_par_sorts_around_thresholds<float>();
}

TEST_F(ParDispatch, EightByteKeysSortAtEveryThresholdOfTheTable) {
  expect_par_sorts_around_thresholds<std::uint64_t>();
  expect_par_sorts_around_thresholds<std::int64_t>();
  expect_par_sorts_around_thresholds<double>();
}

// par's merge strategy (which the H100's and H200's tables give 8-byte keys) compares keys by
// their radix sort bits and merges stably: floats with -0.0, NaN payloads and infinities,
// keys and pairs, either order, come out bit for bit as the radix sort orders them.
TEST_F(ParDispatch, TheMergeStrategyKeepsTheRadixOrder) {
  constexpr auto merge_strategy = par_pinned<par_strategy::merge>;
  for (std::size_t n : capped({1000, 2561, 20011, 100003}))
    for (distribution d : {distribution::float_specials, distribution::few_distinct})
      for (bool descending : {false, true}) {
        expect_sorts_keys<double>(merge_strategy, n, d, descending, seed_for(n, d, 8));
        expect_sorts_pairs<double>(merge_strategy, n, d, descending, seed_for(n, d, 8) + 5);
        expect_sorts_keys<float>(merge_strategy, n, d, descending, seed_for(n, d, 4));
      }
  expect_sorts_keys<std::int64_t>(merge_strategy, 65521, distribution::uniform, true,
                                  seed_for(65521, distribution::uniform, 8));
}

// A tiling's edges: tiny inputs, one block's tile and one key past it, a full cluster of 16
// blocks and one key past it (where par_pinned falls back to the one-sweep sort).
template <par_strategy Strategy, class Tiling, class Key, class Value>
std::vector<std::size_t> tiling_edges() {
  constexpr std::size_t tile =
      backends::radix::cluster_shape<Tiling, Key, Value>::tile_items;
  return capped({2, 3, 33, tile - 1, tile, tile + 1, 5 * tile + 7, 16 * tile - 1, 16 * tile,
                 16 * tile + 1});
}

template <par_strategy Strategy, class Tiling, class Key>
void expect_pinned_tiling_sorts() {
  for (std::size_t n : tiling_edges<Strategy, Tiling, Key, no_values>())
    for (bool descending : {false, true})
      expect_sorts_keys<Key>(par_pinned<Strategy>, n, distribution::uniform, descending,
                             seed_for(n, distribution::uniform, sizeof(Key)));
  for (std::size_t n : tiling_edges<Strategy, Tiling, Key, std::uint32_t>())
    expect_sorts_pairs<Key>(par_pinned<Strategy>, n, distribution::few_distinct, true,
                            seed_for(n, distribution::few_distinct, sizeof(Key)) + 2);
}

TEST_F(ParDispatch, SmallTilesSortAtTheirEdges) {
  expect_pinned_tiling_sorts<par_strategy::cluster_small, cluster_tiling_small_sm90,
                             std::uint32_t>();
  expect_pinned_tiling_sorts<par_strategy::cluster_small, cluster_tiling_small_sm90, double>();
}

TEST_F(ParDispatch, MediumTilesSortAtTheirEdges) {
  expect_pinned_tiling_sorts<par_strategy::cluster_medium, cluster_tiling_medium_sm90,
                             std::int32_t>();
  expect_pinned_tiling_sorts<par_strategy::cluster_medium, cluster_tiling_medium_sm90,
                             std::uint64_t>();
  expect_pinned_tiling_sorts<par_strategy::cluster_medium, cluster_tiling_medium_sm90, float>();
}

// The one-sweep sort with one of par's tilings of its own (small, mid or pair tiles): one
// tile, a tile and one key, many tiles.
template <par_strategy strategy, class Tuning, class Key>
void expect_tiled_onesweep_sorts() {
  constexpr std::size_t tile = Tuning::knobs.block_threads * Tuning::knobs.items_per_thread;
  for (std::size_t n : capped({2, tile - 1, tile, tile + 1, 100003, 1000003}))
    for (bool descending : {false, true}) {
      expect_sorts_keys<Key>(par_pinned<strategy>, n, distribution::uniform, descending,
                             seed_for(n, distribution::uniform, sizeof(Key)));
      expect_sorts_pairs<Key>(par_pinned<strategy>, n, distribution::few_distinct, descending,
                              seed_for(n, distribution::few_distinct, sizeof(Key)) + 4);
    }
}

TEST_F(ParDispatch, SmallTileOneSweepSorts) {
  constexpr par_strategy small = par_strategy::onesweep_small_tiles;
  expect_tiled_onesweep_sorts<small, radix_tuning_small_tiles_sm90, std::uint32_t>();
  expect_tiled_onesweep_sorts<small, radix_tuning_small_tiles_sm90, double>();
}

TEST_F(ParDispatch, MidTileOneSweepSorts) {
  constexpr par_strategy mid = par_strategy::onesweep_mid_tiles;
  expect_tiled_onesweep_sorts<mid, radix_tuning_mid_tiles_sm90, std::uint32_t>();
  expect_tiled_onesweep_sorts<mid, radix_tuning_mid_tiles_sm90, double>();
}

TEST_F(ParDispatch, PairTileOneSweepSorts) {
  constexpr par_strategy pair_tiles = par_strategy::onesweep_pair_tiles;
  expect_tiled_onesweep_sorts<pair_tiles, radix_tuning_pair_tiles_sm90, std::uint32_t>();
  expect_tiled_onesweep_sorts<pair_tiles, radix_tuning_pair_tiles_sm90, float>();
}

// Every distribution (all keys equal: every pass single-digit; sorted; organ pipe; ...) at
// a size that takes the cluster sort.
TEST_F(ParDispatch, EveryDistributionThroughTheClusterSort) {
  for (distribution d : distributions_for<std::uint32_t>())
    for (bool descending : {false, true}) {
      expect_sorts_keys<std::uint32_t>(par, 20011, d, descending, seed_for(20011, d, 4));
      expect_sorts_pairs<std::uint32_t>(par, 3001, d, descending, seed_for(3001, d, 4) + 3);
    }
}

}  // namespace
}  // namespace gpusort::test
