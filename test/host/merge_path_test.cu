// The merge backend's index arithmetic, checked on the host: run pairs, merge path splits,
// pass counts, shared-memory padding and kernel shapes.
#include <gpusort/detail/backends/common/block_shared.cuh>
#include <gpusort/detail/backends/common/kernel_setup.cuh>
#include <gpusort/detail/backends/merge/kernels.cuh>
#include <gpusort/detail/backends/merge/merge_budgets.cuh>
#include <gpusort/detail/backends/merge/merge_path.cuh>
#include <gpusort/detail/backends/merge/split_samples.cuh>
#include <gpusort/functional.cuh>
#include <gpusort/detail/policies/tuning/sm90.cuh>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <type_traits>
#include <vector>

namespace merge = gpusort::backends::merge;

TEST(MergePath, PassCountHalvesTheRunsUntilOneIsLeft) {
  EXPECT_EQ(merge::merge_pass_count(0, 2048), 0);
  EXPECT_EQ(merge::merge_pass_count(1, 2048), 0);
  EXPECT_EQ(merge::merge_pass_count(2048, 2048), 0);
  EXPECT_EQ(merge::merge_pass_count(2049, 2048), 1);
  EXPECT_EQ(merge::merge_pass_count(4096, 2048), 1);
  EXPECT_EQ(merge::merge_pass_count(4097, 2048), 2);
  EXPECT_EQ(merge::merge_pass_count(3 * 2048, 2048), 2);
  EXPECT_EQ(merge::merge_pass_count(std::size_t(1) << 33, 2048), 22);
  EXPECT_EQ(merge::merge_pass_count((std::size_t(1) << 33) + 1, 2048), 23);
}

TEST(MergePath, BlockRangesCoverEveryOutputOnceInNonEmptyChunksOfAtMostChunk) {
  for (std::size_t n : {1, 9, 10, 4096, 4097, 100000})
    for (std::size_t run_width : {3, 4096})
      for (int chunk : {4, 7, 4352}) {
        std::vector<int> written(n, 0);
        const std::size_t blocks = merge::merge_block_count(n, run_width, chunk);
        for (std::size_t block = 0; block < blocks; ++block) {
          const merge::merge_block_range r = merge::merge_block_of(block, run_width, chunk, n);
          ASSERT_EQ(r.begin % (2 * run_width), 0u);
          ASSERT_LE(r.a_count, run_width);
          ASSERT_LE(r.b_count, run_width);
          ASSERT_LE(r.begin + r.a_count + r.b_count, n);
          ASSERT_LT(r.diagonal_begin, r.diagonal_end);  // no block without outputs
          ASSERT_LE(r.diagonal_end - r.diagonal_begin, std::size_t(chunk));
          ASSERT_LE(r.diagonal_end, r.a_count + r.b_count);
          for (std::size_t d = r.diagonal_begin; d < r.diagonal_end; ++d) ++written[r.begin + d];
        }
        for (std::size_t i = 0; i < n; ++i)
          ASSERT_EQ(written[i], 1) << "n=" << n << " run_width=" << run_width
                                   << " chunk=" << chunk << " output " << i;
      }
}

TEST(MergePath, ShortLastPairsAndPositionsBeyondTwoToThe32) {
  // n = 8, runs of 3, chunks of 4: the last pair is [6,8) with no b run.
  const merge::merge_block_range lone = merge::merge_block_of(2, 3, 4, 8);
  EXPECT_EQ(lone.begin, 6u);
  EXPECT_EQ(lone.a_count, 2u);
  EXPECT_EQ(lone.b_count, 0u);
  EXPECT_EQ(lone.diagonal_end, 2u);
  // Its second block would have nothing to write: the pass has no such block.
  EXPECT_EQ(merge::merge_block_count(8, 3, 4), 3u);
  // Beyond 2^32 elements the offsets stay exact.
  const std::size_t big = (std::size_t(1) << 33) + 5;
  const std::size_t run_width = std::size_t(1) << 31;
  const std::size_t last = merge::merge_block_count(big, run_width, 4096) - 1;
  const merge::merge_block_range high = merge::merge_block_of(last, run_width, 4096, big);
  EXPECT_EQ(high.begin, std::size_t(1) << 33);
  EXPECT_EQ(high.a_count, 5u);
  EXPECT_EQ(high.b_count, 0u);
  EXPECT_EQ(high.diagonal_begin, 0u);  // the pair's one block: its others would be empty
  EXPECT_EQ(high.diagonal_end, 5u);
}

// How many of the first `diagonal` outputs of std::merge (stable: a first on ties) come
// from a, by tagging each key with the run it came from.
template <class Key, class Compare>
std::size_t reference_split(const std::vector<Key>& a, const std::vector<Key>& b,
                            std::size_t diagonal, Compare comp) {
  struct tagged {
    Key key;
    bool from_a;
  };
  std::vector<tagged> ta, tb, merged;
  for (const Key& k : a) ta.push_back({k, true});
  for (const Key& k : b) tb.push_back({k, false});
  std::merge(ta.begin(), ta.end(), tb.begin(), tb.end(), std::back_inserter(merged),
             [&](const tagged& x, const tagged& y) { return comp(x.key, y.key); });
  return std::count_if(merged.begin(), merged.begin() + diagonal,
                       [](const tagged& t) { return t.from_a; });
}

template <class Compare>
void expect_splits_match_std_merge(std::size_t a_count, std::size_t b_count, int distinct,
                                   std::uint32_t seed, Compare comp) {
  std::mt19937 random(seed);
  std::uniform_int_distribution<int> value(0, distinct - 1);
  std::vector<int> a(a_count), b(b_count);
  for (int& x : a) x = value(random);
  for (int& x : b) x = value(random);
  std::sort(a.begin(), a.end(), comp);
  std::sort(b.begin(), b.end(), comp);
  for (std::size_t diagonal = 0; diagonal <= a_count + b_count; ++diagonal) {
    const std::size_t split =
        merge::merge_path_split(a.data(), a_count, b.data(), b_count, diagonal, comp);
    ASSERT_EQ(split, reference_split(a, b, diagonal, comp))
        << "a_count=" << a_count << " b_count=" << b_count << " distinct=" << distinct
        << " diagonal=" << diagonal;
    // The shared-memory flavour (int positions) agrees.
    ASSERT_EQ(std::size_t(merge::merge_path_split(a.data(), int(a_count), b.data(), int(b_count),
                                                  int(diagonal), comp)),
              split);
  }
}

TEST(MergePath, SplitsMatchStdMergeWithTiesGoingToA) {
  for (std::size_t a_count : {0, 1, 2, 7, 64})
    for (std::size_t b_count : {0, 1, 3, 8, 65})
      for (int distinct : {1, 3, 1000}) {
        expect_splits_match_std_merge(a_count, b_count, distinct, 17u, gpusort::less<>());
        expect_splits_match_std_merge(a_count, b_count, distinct, 18u, gpusort::greater<>());
      }
}

// split_samples::split on a pair of runs at a_begin in a buffer, with the samples written as
// the kernels write them: the same split as the plain search, on every diagonal a merge
// block starts at (a multiple of the step).
template <int Step, class Compare>
void expect_sample_splits_match_std_merge(std::size_t a_count, std::size_t b_count,
                                          int distinct, std::uint32_t seed, Compare comp) {
  using samples_t = merge::split_samples<int, Step>;
  constexpr int step = samples_t::step;
  const std::size_t a_begin = 2 * step;  // an earlier pair before this one
  std::mt19937 random(seed);
  std::uniform_int_distribution<int> value(0, distinct - 1);
  std::vector<int> keys(a_begin + a_count + b_count);
  for (int& x : keys) x = value(random);
  std::sort(keys.begin() + a_begin, keys.begin() + a_begin + a_count, comp);
  std::sort(keys.begin() + a_begin + a_count, keys.end(), comp);
  std::vector<int> first(samples_t::groups(keys.size())), last(first.size(), -1);
  for (std::size_t g = 0; g < first.size(); ++g) {
    first[g] = keys[g * step];
    if ((g + 1) * step <= keys.size()) last[g] = keys[g * step + step - 1];
  }
  const samples_t samples{first.data(), last.data()};
  const std::vector<int> a(keys.begin() + a_begin, keys.begin() + a_begin + a_count);
  const std::vector<int> b(keys.begin() + a_begin + a_count, keys.end());
  for (std::size_t diagonal = 0; diagonal < a_count + b_count; diagonal += step)
    ASSERT_EQ(samples.split(keys.data(), a_begin, a_count, b_count, diagonal, comp),
              reference_split(a, b, diagonal, comp))
        << "a_count=" << a_count << " b_count=" << b_count << " distinct=" << distinct
        << " diagonal=" << diagonal;
}

template <int Step>
void expect_sample_splits_match_std_merge_for_every_shape() {
  constexpr std::size_t step = Step;
  // Full runs of a (a multiple of the step), and a b that is empty, short, or as long.
  for (std::size_t a_count : {step, 3 * step, 20 * step})
    for (std::size_t b_count :
         std::vector<std::size_t>{0, 1, step - 1, step, step + 1, a_count - 5, a_count})
      for (int distinct : {1, 3, 1000, 1 << 30}) {
        expect_sample_splits_match_std_merge<Step>(a_count, b_count, distinct, 23u,
                                                   gpusort::less<>());
        expect_sample_splits_match_std_merge<Step>(a_count, b_count, distinct, 24u,
                                                   gpusort::greater<>());
      }
  // A short last pair: a alone, of any length.
  expect_sample_splits_match_std_merge<Step>(step + 7, 0, 1000, 25u, gpusort::less<>());
}

TEST(MergePath, SplitsFromSamplesMatchStdMerge) {
  expect_sample_splits_match_std_merge_for_every_shape<64>();
  expect_sample_splits_match_std_merge_for_every_shape<32>();
  // The step: 64 where tiles and merge blocks are multiples of it, else 32.
  EXPECT_EQ(merge::split_sample_step(512 * 17, 128 * 17), 64);
  EXPECT_EQ(merge::split_sample_step(32 * 2, 32 * 3), 32);
}

// Whatever the comparator answers, the split stays where the diagonal crosses both runs, so
// the merge's pieces stay inside them.
TEST(MergePath, SplitsFromSamplesStayInRangeForAnyComparator) {
  using samples_t = merge::split_samples<int, 64>;
  constexpr std::size_t step = samples_t::step;
  std::mt19937 random(9);
  const auto coin = [&](int, int) { return (random() & 1) != 0; };
  const std::size_t a_count = 16 * step, b_count = 11 * step + 3;
  std::vector<int> keys(a_count + b_count, 0), first(samples_t::groups(keys.size()), 0),
      last(first.size(), 0);
  const samples_t samples{first.data(), last.data()};
  for (int trial = 0; trial < 20; ++trial)
    for (std::size_t diagonal = 0; diagonal < a_count + b_count; diagonal += step) {
      const auto range = merge::split_range_of(diagonal, a_count, b_count);
      const std::size_t split = samples.split(keys.data(), 0, a_count, b_count, diagonal, coin);
      ASSERT_GE(split, range.lowest);
      ASSERT_LE(split, range.highest);
    }
}

TEST(MergePath, SplitRangeIsWhereTheDiagonalCrossesBothRuns) {
  const auto inside = merge::split_range_of<std::size_t>(5, 10, 10);
  EXPECT_EQ(inside.lowest, 0u);
  EXPECT_EQ(inside.highest, 5u);
  const auto late = merge::split_range_of<std::size_t>(15, 10, 8);
  EXPECT_EQ(late.lowest, 7u);
  EXPECT_EQ(late.highest, 10u);
}

TEST(MergePath, SplitsAgreeWhenThePathBetweenThemTakesNoneToAllFromA) {
  EXPECT_TRUE(merge::splits_agree<std::size_t>(10, 4, 20, 4));   // all 10 outputs from b
  EXPECT_TRUE(merge::splits_agree<std::size_t>(10, 4, 20, 14));  // all from a
  EXPECT_TRUE(merge::splits_agree<std::size_t>(10, 4, 10, 4));   // an empty block
  EXPECT_FALSE(merge::splits_agree<std::size_t>(10, 5, 20, 4));  // a's piece would be negative
  EXPECT_FALSE(merge::splits_agree<std::size_t>(10, 4, 20, 15)); // b's piece would be negative
  EXPECT_FALSE(merge::splits_agree<int>(0, 3, 17, 2));
}

// A comparator that is no strict weak ordering: consecutive searches may disagree, which the
// kernels check for; a strict weak ordering never makes them disagree.
TEST(MergePath, SearchesOfAStrictWeakOrderingAlwaysAgree) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<int> a(rng() % 50), b(rng() % 50);
    for (int& k : a) k = int(rng() % 7);
    for (int& k : b) k = int(rng() % 7);
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    const std::size_t total = a.size() + b.size();
    std::size_t previous = 0;
    for (std::size_t diagonal = 1; diagonal <= total; ++diagonal) {
      const std::size_t split = merge::merge_path_split(a.data(), a.size(), b.data(), b.size(),
                                                        diagonal, gpusort::less<>());
      ASSERT_TRUE(merge::splits_agree(diagonal - 1, previous, diagonal, split));
      previous = split;
    }
  }
}

// The padding claim of bitonic_tile.cuh: 32 lanes touching position lane * items + i hit 32
// different banks (4-byte words), for every power-of-two items a tile may use.
TEST(MergeTile, PaddedPositionsAreFreeOfBankConflicts) {
  for (int items = 1; items <= 32; items *= 2)
    for (int i = 0; i < items; ++i) {
      std::set<int> banks;
      for (int lane = 0; lane < 32; ++lane) banks.insert(gpusort::backends::padded(lane * items + i) % 32);
      EXPECT_EQ(banks.size(), 32u) << "items=" << items << " i=" << i;
    }
}

// A tile fits `limit` bytes of shared memory: static shared memory, or for wide tiles what
// every GPU lets a block opt in to.
template <class Shape, class Key>
void expect_tile_fits(std::size_t limit = gpusort::backends::static_shared_limit) {
  const int tile_threads = Shape::tile_threads;
  EXPECT_EQ(tile_threads & (tile_threads - 1), 0) << "the tile's merge levels pair up threads";
  EXPECT_GE(Shape::tile_items_per_thread, 1);
  EXPECT_LE(sizeof(merge::tile_sort_storage<Shape::tile_threads, Shape::tile_items_per_thread, Key,
                                            true>),
            limit);
}

template <class Key>
void expect_consistent_shape() {
  using shape = merge::merge_shape<gpusort::merge_tuning_sm90, Key>;
  using one_block = merge::one_block_shape<gpusort::merge_tuning_sm90, Key>;
  expect_tile_fits<one_block, Key>();
  EXPECT_LE(one_block::tile_items_per_thread,
            gpusort::merge_tuning_sm90::knobs.one_block_items_per_thread);
  expect_tile_fits<shape, Key>();
  EXPECT_LE(shape::tile_items_per_thread, gpusort::merge_tuning_sm90::knobs.tile_items_per_thread);
  using wide = merge::wide_tile_shape<gpusort::merge_tuning_sm90, Key>;
  expect_tile_fits<wide, Key>(std::size_t(gpusort::backends::every_gpu_shared_bytes));
  EXPECT_GE(wide::tile_items, shape::tile_items) << "wide tiles hold no fewer keys";
  if (wide::tile_threads != shape::tile_threads) EXPECT_GT(wide::tile_items, shape::tile_items);
  EXPECT_GE(shape::chunk_items, shape::merge_threads);
  EXPECT_LE(sizeof(merge::merge_storage<shape::merge_threads, shape::chunk_items, Key, true>), 48u * 1024);
}

// The benchmark's 16-byte struct key.
struct sixteen_bytes {
  std::uint32_t major;
  float minor;
  std::uint64_t id;
};

inline constexpr auto& sm90_knobs = gpusort::merge_tuning_sm90::knobs;
inline constexpr int sm90_large_items = sm90_knobs.one_block_large_items_per_thread;
inline constexpr int sm90_larger_items = sm90_knobs.one_block_larger_items_per_thread;
inline constexpr int sm90_keys_only_items = sm90_knobs.one_block_keys_only_items_per_thread;

// merge_tuning_sm90 with the large, larger and keys-only one-block shapes' keys per thread
// (0: none).
template <int LargeItems, int LargerItems, int KeysOnlyItems = sm90_keys_only_items>
struct one_block_items {
  static constexpr gpusort::merge_knobs knobs = [] {
    auto k = sm90_knobs;
    k.one_block_large_items_per_thread = LargeItems;
    k.one_block_larger_items_per_thread = LargerItems;
    k.one_block_keys_only_items_per_thread = KeysOnlyItems;
    return k;
  }();
};
using no_large_one_block = one_block_items<0, sm90_larger_items>;
using no_larger_one_block = one_block_items<sm90_large_items, 0>;
using no_keys_only_one_block = one_block_items<sm90_large_items, sm90_larger_items, 0>;

// Past the one-block sort, one block of 512 x 9 keys (8-byte keys: 512 x 7, what fits), in
// the shared memory every GPU has; none where it would hold no more keys (the 16-byte struct).
TEST(MergeTile, TheLargeOneBlockShapeHoldsMoreKeysWhereItFits) {
  using tuning = gpusort::merge_tuning_sm90;
  using u32_large = merge::large_one_block_shape<tuning, std::uint32_t>;
  using f64_large = merge::large_one_block_shape<tuning, double>;
  EXPECT_TRUE((merge::has_large_one_block<tuning, std::uint32_t>()));
  EXPECT_TRUE((merge::has_large_one_block<tuning, double>()));
  EXPECT_EQ(u32_large::tile_threads, 512);
  EXPECT_EQ(u32_large::tile_items, 512 * 9);
  EXPECT_EQ(f64_large::tile_items, 512 * 7);
  EXPECT_GT(u32_large::tile_items, (merge::one_block_shape<tuning, std::uint32_t>::tile_items));
  expect_tile_fits<u32_large, std::uint32_t>();
  expect_tile_fits<f64_large, double>();
  EXPECT_FALSE((merge::has_large_one_block<tuning, sixteen_bytes>()));
  EXPECT_FALSE((merge::has_large_one_block<no_large_one_block, std::uint32_t>()));
}

// Past the large one-block shape, one block of 512 x 13 keys in 62 KB (wider keys: what fits,
// an odd count), within the shared memory every GPU lets a block have; none where it would
// hold no more keys than the shapes before it, or more keys per thread than the tile.
TEST(MergeTile, TheLargerOneBlockShapeHoldsMoreKeysWhereItFits) {
  using tuning = gpusort::merge_tuning_sm90;
  using u32_larger = merge::larger_one_block_shape<tuning, std::uint32_t>;
  EXPECT_TRUE((merge::has_larger_one_block<tuning, std::uint32_t>()));
  EXPECT_EQ(u32_larger::tile_threads, 512);
  EXPECT_EQ(u32_larger::tile_items, 512 * 13);
  EXPECT_GT(u32_larger::tile_items, (merge::large_one_block_shape<tuning, std::uint32_t>::tile_items));
  expect_tile_fits<u32_larger, std::uint32_t>(std::size_t(gpusort::backends::every_gpu_shared_bytes));
  // 8-byte keys would get 512 x 11, more keys per thread than their tile's 9: none.
  EXPECT_EQ((merge::larger_one_block_shape<tuning, double>::tile_items_per_thread), 11);
  EXPECT_FALSE((merge::has_larger_one_block<tuning, double>()));
  EXPECT_FALSE((merge::has_larger_one_block<tuning, std::uint64_t>()));
  struct big_key {
    char bytes[150];
  };
  // A 16-byte key: 512 x 5 in 62 KB, where 40 KB held 512 x 3 (and no large shape).
  EXPECT_TRUE((merge::has_larger_one_block<tuning, sixteen_bytes>()));
  EXPECT_EQ((merge::larger_one_block_shape<tuning, sixteen_bytes>::tile_items), 512 * 5);
  EXPECT_EQ((merge::one_block_shape<tuning, sixteen_bytes>::tile_items), 512 * 3);
  EXPECT_FALSE((merge::has_larger_one_block<tuning, big_key>()));
  EXPECT_FALSE((merge::has_larger_one_block<no_larger_one_block, std::uint32_t>()));
  // Without the large shape it follows the one-block shape.
  EXPECT_TRUE((merge::has_larger_one_block<no_large_one_block, std::uint32_t>()));
}

// Keys without values past the larger shape: one block of 512 x 17 in the same 62 KB, where
// that holds more keys than the shapes before it with no more keys per thread than the tile:
// 4-byte keys, not 8-byte ones (512 x 11 against a tile of 256 x 9) nor the 16-byte struct
// (512 x 5, no more than the larger shape).
TEST(MergeTile, TheKeysOnlyOneBlockShapeHoldsMoreKeysWhereItFits) {
  using tuning = gpusort::merge_tuning_sm90;
  using u32_keys_only = merge::keys_only_one_block_shape<tuning, std::uint32_t>;
  EXPECT_TRUE((merge::has_keys_only_one_block<tuning, std::uint32_t>()));
  EXPECT_TRUE((merge::has_keys_only_one_block<tuning, float>()));
  EXPECT_EQ(u32_keys_only::tile_threads, 512);
  EXPECT_EQ(u32_keys_only::tile_items,
            512 * sm90_keys_only_items);
  EXPECT_GT(u32_keys_only::tile_items,
            (merge::larger_one_block_shape<tuning, std::uint32_t>::tile_items));
  EXPECT_LE(u32_keys_only::tile_items_per_thread,
            (merge::merge_shape<tuning, std::uint32_t>::tile_items_per_thread));
  expect_tile_fits<u32_keys_only, std::uint32_t>(
      std::size_t(gpusort::backends::every_gpu_shared_bytes));
  EXPECT_FALSE((merge::has_keys_only_one_block<tuning, double>()));
  EXPECT_FALSE((merge::has_keys_only_one_block<tuning, std::uint64_t>()));
  EXPECT_FALSE((merge::has_keys_only_one_block<tuning, sixteen_bytes>()));
  EXPECT_FALSE((merge::has_keys_only_one_block<no_keys_only_one_block, std::uint32_t>()));
  // Without the larger shape it follows the shapes before that.
  EXPECT_TRUE((merge::has_keys_only_one_block<no_larger_one_block, std::uint32_t>()));
}

// Items per thread that had to shrink are odd (no padding, no bank conflicts).
TEST(MergeTile, ItemsThatHadToShrinkAreOdd) {
  EXPECT_EQ(merge::items_that_fit(17, 40), 17);
  EXPECT_EQ(merge::items_that_fit(16, 16), 16);
  EXPECT_EQ(merge::items_that_fit(17, 14), 13);
  EXPECT_EQ(merge::items_that_fit(17, 13), 13);
  EXPECT_EQ(merge::items_that_fit(17, 2), 1);
  EXPECT_EQ(merge::items_that_fit(17, 1), 1);
  EXPECT_EQ(merge::items_that_fit(17, 0), 0);
  using f64_shape = merge::merge_shape<gpusort::merge_tuning_sm90, double>;
  EXPECT_EQ(f64_shape::tile_items_per_thread % 2, 1);
}

struct forty_bytes {
  char bytes[40];
};
struct big_key {
  char bytes[150];
};

// The split search's block size is the tuning's, as every other launch shape: a tuning that
// shadows it gets its own.
struct one_warp_split_search {
  static constexpr gpusort::merge_knobs knobs = [] {
    gpusort::merge_knobs k = gpusort::merge_tuning_sm90::knobs;
    k.split_search_threads = 32;
    return k;
  }();
};

// A tuning without wide tiles: every tile the ordinary one.
struct without_wide_tiles {
  static constexpr gpusort::merge_knobs knobs = [] {
    gpusort::merge_knobs k = gpusort::merge_tuning_sm90::knobs;
    k.wide_tile_threads = 0;
    return k;
  }();
};

TEST(MergeTile, SplitSearchBlocksComeFromTheTuning) {
  using sm90 = merge::merge_shape<gpusort::merge_tuning_sm90, std::uint32_t>;
  EXPECT_EQ(sm90::split_search_threads, gpusort::merge_tuning_sm90::knobs.split_search_threads);
  // One search per group of 16 lanes over the keys, of the tuning's lanes or one thread from
  // samples; each launch block also searches the next one's first merge block.
  EXPECT_EQ(sm90::key_search_lanes, 16);
  EXPECT_EQ(sm90::sample_search_lanes,
            gpusort::merge_tuning_sm90::knobs.sample_split_search_lanes);
  EXPECT_EQ(sm90::split_searches_per_block<16>, sm90::split_search_threads / 16 - 1);
  EXPECT_EQ(sm90::split_searches_per_block<8>, sm90::split_search_threads / 8 - 1);
  EXPECT_EQ(sm90::split_searches_per_block<1>, sm90::split_search_threads - 1);
  using narrow = merge::merge_shape<one_warp_split_search, std::uint32_t>;
  EXPECT_EQ(narrow::split_search_threads, 32);
  EXPECT_EQ(narrow::split_searches_per_block<16>, 1);
  EXPECT_EQ(narrow::split_searches_per_block<1>, 31);
  // Which passes search by lanes of a warp: the tuning's count of merge blocks per pass. The
  // sm_90 tuning's covers a pass of 2^22 u32 keys and not one of 2^24.
  EXPECT_EQ(sm90::lane_search_most_blocks,
            std::size_t(gpusort::merge_tuning_sm90::knobs.lane_split_search_most_blocks));
  EXPECT_GE(sm90::lane_search_most_blocks,
            merge::merge_block_count(std::size_t(1) << 22, sm90::tile_items, sm90::chunk_items));
  EXPECT_LT(sm90::lane_search_most_blocks,
            merge::merge_block_count(std::size_t(1) << 24, sm90::tile_items, sm90::chunk_items));
  // Of the passes that search from samples, those of 2^24 u32 keys by lanes, of 2^26 by one
  // thread a search.
  EXPECT_EQ(sm90::sample_lane_search_most_blocks,
            std::size_t(gpusort::merge_tuning_sm90::knobs.sample_lane_search_most_blocks));
  EXPECT_GE(sm90::sample_lane_search_most_blocks,
            merge::merge_block_count(std::size_t(1) << 24, sm90::tile_items, sm90::chunk_items));
  EXPECT_LT(sm90::sample_lane_search_most_blocks,
            merge::merge_block_count(std::size_t(1) << 26, sm90::tile_items, sm90::chunk_items));
}

// Keys of 8 bytes take their own items per thread, in tiles and merges; other keys, and the
// sort one block does whole, do not.
struct three_for_8_byte_keys {
  static constexpr gpusort::merge_knobs knobs = [] {
    gpusort::merge_knobs k = gpusort::merge_tuning_sm90::knobs;
    k.items_per_thread_8_byte_keys = 3;
    return k;
  }();
};

TEST(MergeTile, EightByteKeysTakeTheirOwnItemsPerThread) {
  using f64 = merge::merge_shape<three_for_8_byte_keys, double>;
  EXPECT_EQ(f64::tile_items_per_thread, 3);
  EXPECT_EQ(f64::merge_items_per_thread, 3);
  using u32 = merge::merge_shape<three_for_8_byte_keys, std::uint32_t>;
  EXPECT_EQ(u32::tile_items_per_thread, three_for_8_byte_keys::knobs.tile_items_per_thread);
  EXPECT_EQ(u32::merge_items_per_thread, three_for_8_byte_keys::knobs.merge_items_per_thread);
  using one_block = merge::one_block_shape<three_for_8_byte_keys, double>;
  EXPECT_EQ(one_block::tile_items_per_thread, three_for_8_byte_keys::knobs.one_block_items_per_thread);
}

// Large inputs are sorted in wide tiles: sm_90's hold twice the keys of its ordinary tiles
// (more threads, as many keys per thread), in dynamic shared memory where static does not
// hold them.
TEST(MergeTile, WideTilesHoldTwiceTheKeys) {
  using tuning = gpusort::merge_tuning_sm90;
  static_assert(merge::has_wide_tiles<tuning>);
  using u32 = merge::merge_shape<tuning, std::uint32_t>;
  using wide_u32 = merge::wide_tile_shape<tuning, std::uint32_t>;
  EXPECT_EQ(wide_u32::tile_threads, tuning::knobs.wide_tile_threads);
  EXPECT_EQ(wide_u32::tile_items_per_thread, u32::tile_items_per_thread);
  EXPECT_EQ(wide_u32::tile_items, 2 * u32::tile_items);
  using wide_f64 = merge::wide_tile_shape<tuning, double>;
  EXPECT_EQ(wide_f64::tile_items_per_thread, tuning::knobs.items_per_thread_8_byte_keys);
  // Pairs' tiles (keys and their positions) of u32 keys need dynamic shared memory.
  EXPECT_GT((gpusort::backends::dynamic_shared_bytes<
                merge::tile_sort_storage<wide_u32::tile_threads, wide_u32::tile_items_per_thread,
                                         std::uint32_t, true>>),
            0);
  // Pairs' wide tiles differ only in their register budget.
  using wide_pairs = merge::wide_tile_shape<tuning, std::uint32_t, true>;
  EXPECT_EQ(wide_pairs::tile_items, wide_u32::tile_items);
  EXPECT_EQ(wide_pairs::tile_blocks_per_multiprocessor,
            gpusort::backends::min_blocks_per_multiprocessor(
                tuning::knobs.wide_tile_blocks_per_multiprocessor_with_values,
                tuning::knobs.wide_tile_threads));
  // Tunings without wide-tile knobs have none.
  EXPECT_FALSE(merge::has_wide_tiles<without_wide_tiles>);
}

// Sorts of at least wide_tile_from_tiles wide tiles take them; smaller ones, keys that gain
// nothing from them and tunings without them take the ordinary tile.
TEST(MergeTile, LargeInputsTakeWideTiles) {
  using tuning = gpusort::merge_tuning_sm90;
  const auto smallest_wide = [](auto key) {
    using wide = merge::wide_tile_shape<tuning, decltype(key)>;
    return std::size_t(wide::tile_items) * std::size_t(tuning::knobs.wide_tile_from_tiles);
  };
  const std::size_t u32_from = smallest_wide(std::uint32_t{});
  EXPECT_EQ(u32_from, 4u * 512u * 17u);
  EXPECT_FALSE((merge::sorts_in_wide_tiles<tuning, std::uint32_t>(u32_from - 1)));
  EXPECT_TRUE((merge::sorts_in_wide_tiles<tuning, std::uint32_t>(u32_from)));
  EXPECT_TRUE((merge::sorts_in_wide_tiles<tuning, std::uint32_t>(std::size_t(1) << 33)));
  const std::size_t f64_from = smallest_wide(double{});
  EXPECT_LT(f64_from, u32_from) << "8-byte keys: fewer keys per thread";
  EXPECT_FALSE((merge::sorts_in_wide_tiles<tuning, double>(f64_from - 1)));
  EXPECT_TRUE((merge::sorts_in_wide_tiles<tuning, double>(f64_from)));
  EXPECT_FALSE((merge::sorts_in_wide_tiles<tuning, forty_bytes>(std::size_t(1) << 30)));
  EXPECT_FALSE((merge::sorts_in_wide_tiles<without_wide_tiles,
                                           std::uint32_t>(std::size_t(1) << 30)));
}

// A sort with values takes the _with_values knobs for its tiles and merge passes: wide tiles
// from more of them, merge blocks of fewer keys per thread. Keys of 8 bytes, with knobs of
// their own, keep those of keys alone; nothing else differs.
TEST(MergeTile, SortsWithValuesTakeTheirOwnKnobs) {
  using tuning = gpusort::merge_tuning_sm90;
  using u32_values = merge::tuning_for_values<tuning, std::uint32_t, true>;
  static_assert(std::is_same_v<merge::tuning_for_values<tuning, std::uint32_t, false>, tuning>);
  const std::size_t wide_u32 = merge::wide_tile_shape<tuning, std::uint32_t, true>::tile_items;
  const std::size_t pairs_from =
      wide_u32 * std::size_t(tuning::knobs.wide_tile_from_tiles_with_values);
  EXPECT_EQ(pairs_from, 192u * 512u * 17u);
  EXPECT_TRUE((merge::sorts_in_wide_tiles<tuning, std::uint32_t>(pairs_from - 1)));
  EXPECT_FALSE((merge::sorts_in_wide_tiles<u32_values, std::uint32_t>(pairs_from - 1)));
  EXPECT_TRUE((merge::sorts_in_wide_tiles<u32_values, std::uint32_t>(pairs_from)));
  using u32 = merge::merge_shape<tuning, std::uint32_t>;
  using u32_with_values = merge::merge_shape<u32_values, std::uint32_t>;
  EXPECT_EQ(u32_with_values::chunk_items,
            tuning::knobs.merge_threads * tuning::knobs.merge_items_per_thread_with_values);
  EXPECT_LT(u32_with_values::chunk_items, u32::chunk_items);
  EXPECT_EQ(u32_with_values::tile_items, u32::tile_items);
  // 8-byte keys: the same shapes and the same threshold as without values.
  using f64_values = merge::tuning_for_values<tuning, double, true>;
  EXPECT_EQ((merge::merge_shape<f64_values, double>::chunk_items),
            (merge::merge_shape<tuning, double>::chunk_items));
  EXPECT_EQ(f64_values::knobs.wide_tile_from_tiles, tuning::knobs.wide_tile_from_tiles);
}

// A pass takes the first of its register budgets that holds all its blocks at once, in the
// tuning's order, else the last.
TEST(MergeBudgets, APassTakesTheFirstBudgetHoldingAllItsBlocks) {
  const std::size_t resident[] = {660, 1056, 2112, 1584};  // blocks at 1, 8, 16, any
  EXPECT_EQ(merge::first_budget_holding(1, resident, 4), 0);
  EXPECT_EQ(merge::first_budget_holding(660, resident, 4), 0);
  EXPECT_EQ(merge::first_budget_holding(661, resident, 4), 1);
  EXPECT_EQ(merge::first_budget_holding(1057, resident, 4), 2);
  EXPECT_EQ(merge::first_budget_holding(1584, resident, 4), 2);
  EXPECT_EQ(merge::first_budget_holding(2113, resident, 4), 3);
  EXPECT_EQ(merge::first_budget_holding(1u << 30, resident, 4), 3);
  EXPECT_EQ(merge::first_budget_holding(5000, resident, 1), 0);
  EXPECT_EQ(merge::first_budget_holding(5000, resident, 2), 1);
}

struct no_merge_budgets {
  static constexpr gpusort::merge_knobs knobs = [] {
    gpusort::merge_knobs k = gpusort::merge_tuning_sm90::knobs;
    for (int b = 0; b < k.most_merge_budgets; ++b)
      k.merge_blocks_per_multiprocessor[b] = k.merge_blocks_per_multiprocessor_8_byte_keys[b] =
          k.merge_blocks_per_multiprocessor_with_values[b] = 0;
    return k;
  }();
};

// Each key width and sorts with values take their own list of budgets, up to its first 0;
// any_registers (keys wider than 8 bytes, a tuning without budgets) compiles the kernels with
// no register bound.
TEST(MergeBudgets, KeyWidthsAndValuesTakeTheirOwnBudgets) {
  using tuning = gpusort::merge_tuning_sm90;
  constexpr auto& knobs = tuning::knobs;
  using u32 = merge::merge_shape<tuning, std::uint32_t>;
  static_assert(u32::merge_budget_count == 4);
  const auto& budgets = knobs.merge_blocks_per_multiprocessor;
  EXPECT_EQ(u32::merge_budget<0>::blocks_per_multiprocessor, budgets[0]);
  EXPECT_EQ(u32::merge_budget<1>::blocks_per_multiprocessor, budgets[1]);
  EXPECT_EQ(budgets[2], knobs.any_registers);
  EXPECT_EQ(u32::merge_budget<2>::blocks_per_multiprocessor, 0);
  EXPECT_EQ(u32::merge_budget<3>::blocks_per_multiprocessor, budgets[3]);
  using f64 = merge::merge_shape<tuning, double>;
  static_assert(f64::merge_budget_count == 4);
  EXPECT_EQ(f64::merge_budget<2>::blocks_per_multiprocessor,
            knobs.merge_blocks_per_multiprocessor_8_byte_keys[2]);
  EXPECT_EQ(f64::merge_budget<3>::blocks_per_multiprocessor, 0);
  using u32_values =
      merge::merge_shape<merge::tuning_for_values<tuning, std::uint32_t, true>, std::uint32_t>;
  using f64_values = merge::merge_shape<merge::tuning_for_values<tuning, double, true>, double>;
  static_assert(u32_values::merge_budget_count == 2 && f64_values::merge_budget_count == 2);
  EXPECT_EQ(u32_values::merge_budget<0>::blocks_per_multiprocessor,
            knobs.merge_blocks_per_multiprocessor_with_values[0]);
  EXPECT_EQ(f64_values::merge_budget<1>::blocks_per_multiprocessor, 0);
  using wide = merge::merge_shape<tuning, forty_bytes>;
  static_assert(wide::merge_budget_count == 1);
  EXPECT_EQ(wide::merge_budget<0>::blocks_per_multiprocessor, 0);
  using unbudgeted = merge::merge_shape<no_merge_budgets, std::uint32_t>;
  static_assert(unbudgeted::merge_budget_count == 1);
  EXPECT_EQ(unbudgeted::merge_budget<0>::blocks_per_multiprocessor, 0);
}

TEST(MergeTile, ShapesFitSharedMemory) {
  expect_consistent_shape<std::uint8_t>();
  expect_consistent_shape<std::uint32_t>();
  expect_consistent_shape<double>();
  expect_consistent_shape<forty_bytes>();
  expect_consistent_shape<big_key>();
}
