// The merge (comparison) backend's correctness suite, written once over "order cases" and
// instantiated per group of cases in separate translation units (each case compiles the
// backend's kernels four times: keys and pairs, stable and not).
//
// An order case names a key type, the comparator the device sorts with, and the same order
// written independently for the host reference:
//
//   struct my_case : merge_case_defaults {
//     using key = ...;
//     using compare = ...;                                  // default-constructible
//     static std::string name();                            // the test name's suffix
//     static bool reference(const key&, const key&);        // the order, on the host
//     static std::vector<key> make_keys(std::size_t n, distribution, std::uint64_t seed);
//     // optional: distributions(), large_sizes() (see merge_case_defaults)
//   };
//
// sort / sort_by_key are unstable: checked as sorted permutations (each value still with
// its key). stable_sort / stable_sort_by_key must give std::stable_sort's result exactly.
#pragma once

#include "../support/gpu.cuh"
#include "../support/sort_checks.cuh"

#include <gpusort/sort.cuh>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace gpusort::test {

// The keys one block of Shape sorts where Key has that shape (Has; not instantiated where it
// cannot fit), else those of the one-block shape.
template <class Key, template <class, class> class Shape, bool Has>
std::size_t one_block_items_where() {
  if constexpr (Has)
    return std::size_t(Shape<merge_tuning_sm90, Key>::tile_items);
  else
    return std::size_t(backends::merge::one_block_shape<merge_tuning_sm90, Key>::tile_items);
}

// Tiny sizes; powers of two and one off them; one below, at and above the largest sort one
// block does whole (of each one-block shape; the keys-only one for pairs too), one tile, two
// tiles, three tiles (an odd count of cluster blocks) and the most tiles one cluster sorts
// (sm_90) of Key's shapes (merge_tuning_sm90, which every GPU runs), three and the most
// one-block tiles one cluster sorts, and the smallest input sorted in wide tiles (with values:
// its _with_values threshold); primes, so no tile or merge level comes out even.
template <class Key, bool WithValues = false>
std::vector<std::size_t> merge_sizes() {
  using tuning = merge_tuning_sm90;
  using tiles_tuning = backends::merge::tuning_for_values<tuning, Key, WithValues>;
  using shape = backends::merge::merge_shape<tuning, Key>;
  using one_block = backends::merge::one_block_shape<tuning, Key>;
  using wide = backends::merge::wide_tile_shape<tuning, Key>;
  std::vector<std::size_t> sizes{0, 1, 2, 3, 1023, 1024, 1025, 2047, 2048, 2049, 4095, 4096,
                                 4097, 8191, 8192, 8193, 1009, 65521, 999983};
  for (std::size_t boundary :
       {std::size_t(one_block::tile_items),
        one_block_items_where<Key, backends::merge::large_one_block_shape,
                              backends::merge::has_large_one_block<tuning, Key>()>(),
        one_block_items_where<Key, backends::merge::larger_one_block_shape,
                              backends::merge::has_larger_one_block<tuning, Key>()>(),
        one_block_items_where<Key, backends::merge::keys_only_one_block_shape,
                              backends::merge::has_keys_only_one_block<tuning, Key>()>(),
        std::size_t(shape::tile_items),
        2 * std::size_t(shape::tile_items), 3 * std::size_t(shape::tile_items),
        std::size_t(tuning::knobs.cluster_most_blocks) * std::size_t(shape::tile_items),
        3 * std::size_t(one_block::tile_items),
        std::size_t(tuning::knobs.cluster_most_blocks) * std::size_t(one_block::tile_items),
        std::size_t(wide::tile_items) * std::size_t(tiles_tuning::knobs.wide_tile_from_tiles)})
    for (std::size_t n : {boundary - 1, boundary, boundary + 1}) sizes.push_back(n);
  return capped(sizes);
}

inline constexpr std::size_t two_to_the_20_plus_7 = (std::size_t(1) << 20) + 7;
inline constexpr std::size_t two_to_the_25_plus_1 = (std::size_t(1) << 25) + 1;

struct merge_case_defaults {
  static std::vector<distribution> distributions() {
    return {distribution::uniform,      distribution::sorted,       distribution::reversed,
            distribution::all_equal,    distribution::few_distinct, distribution::organ_pipe};
  }
  // Uniform inputs past the sweep's sizes (many merge levels); cases that also take
  // 2^25+1 say so.
  static std::vector<std::size_t> large_sizes() { return capped({two_to_the_20_plus_7}); }
};

template <class Key>
std::string key_label() {
  if constexpr (std::is_same_v<Key, std::uint32_t>) return "u32";
  else if constexpr (std::is_same_v<Key, std::uint64_t>) return "u64";
  else if constexpr (std::is_same_v<Key, std::int32_t>) return "i32";
  else if constexpr (std::is_same_v<Key, std::int64_t>) return "i64";
  else if constexpr (std::is_same_v<Key, float>) return "f32";
  else if constexpr (std::is_same_v<Key, double>) return "f64";
  else return "key" + std::to_string(sizeof(Key));
}

// Arithmetic keys in gpusort's documented order (NaNs last, -0.0 == +0.0), ascending with
// gpusort::less<> or descending with gpusort::greater<>; every distribution the radix suite
// uses (float_specials for floating-point keys).
template <class Key, class Compare, bool Huge = false>
struct arithmetic_case : merge_case_defaults {
  static_assert(std::is_same_v<Compare, gpusort::less<>> ||
                std::is_same_v<Compare, gpusort::greater<>>);
  static constexpr bool descending = std::is_same_v<Compare, gpusort::greater<>>;
  using key = Key;
  using compare = Compare;
  static std::string name() { return key_label<Key>() + (descending ? "_greater" : "_less"); }
  static bool reference(const Key& a, const Key& b) {
    return reference_order<Key>{descending}(a, b);
  }
  static std::vector<Key> make_keys(std::size_t n, distribution d, std::uint64_t seed) {
    return gpusort::test::make_keys<Key>(n, d, seed);
  }
  static std::vector<distribution> distributions() { return distributions_for<Key>(); }
  static std::vector<std::size_t> large_sizes() {
    if constexpr (Huge) return capped({two_to_the_20_plus_7, two_to_the_25_plus_1});
    else return merge_case_defaults::large_sizes();
  }
};

// Typed-test names from the case (`Arithmetic/MergeSort/u32_less.StableSort...`).
struct merge_case_name {
  template <class Case>
  static std::string GetName(int) {
    return Case::name();
  }
};

// One sort call of every size x distribution of the case, through `policy`; stops at the
// first failing input (the trace names it: n, distribution, order, seed).
template <class Case, bool StableCall, bool WithValues, class Policy>
void sweep_case(const Policy& policy, const std::vector<std::size_t>& sizes,
                const std::vector<distribution>& distributions, std::uint64_t salt) {
  using Key = typename Case::key;
  const guarantee promised = StableCall ? guarantee::stable : guarantee::unstable;
  for (std::size_t n : sizes)
    for (distribution d : distributions) {
      const std::uint64_t seed = seed_for(n, d, sizeof(Key)) + salt;
      SCOPED_TRACE(describe(n, d, Case::name(), seed, sizeof(Key)));
      const std::vector<Key> keys = Case::make_keys(n, d, seed);
      if constexpr (WithValues)
        expect_sorts_pairs_by<StableCall>(policy, keys, typename Case::compare{}, Case::reference,
                                          promised);
      else
        expect_sorts_keys_by<StableCall>(policy, keys, typename Case::compare{}, Case::reference,
                                         promised);
      if (::testing::Test::HasFailure()) return;
    }
}

template <class Case>
class MergeSort : public GpuTest {};
TYPED_TEST_SUITE_P(MergeSort);

TYPED_TEST_P(MergeSort, SortGivesASortedPermutationOfTheInput) {
  sweep_case<TypeParam, false, false>(gpusort::merge, merge_sizes<typename TypeParam::key>(), TypeParam::distributions(), 1);
}

TYPED_TEST_P(MergeSort, StableSortMatchesStdStableSort) {
  sweep_case<TypeParam, true, false>(gpusort::merge, merge_sizes<typename TypeParam::key>(), TypeParam::distributions(), 2);
}

TYPED_TEST_P(MergeSort, SortByKeyKeepsEveryValueWithItsKey) {
  sweep_case<TypeParam, false, true>(gpusort::merge, merge_sizes<typename TypeParam::key, true>(), TypeParam::distributions(), 3);
}

TYPED_TEST_P(MergeSort, StableSortByKeyKeepsEqualKeysInInputOrder) {
  sweep_case<TypeParam, true, true>(gpusort::merge, merge_sizes<typename TypeParam::key, true>(), TypeParam::distributions(), 4);
}

// One input, one host reference, all four calls (the sizes where the reference is costly).
TYPED_TEST_P(MergeSort, LargeUniformInputsInEveryCall) {
  using Key = typename TypeParam::key;
  const typename TypeParam::compare comp{};
  const auto less = TypeParam::reference;
  for (std::size_t n : TypeParam::large_sizes()) {
    const std::uint64_t seed = seed_for(n, distribution::uniform, sizeof(Key)) + 5;
    SCOPED_TRACE(describe(n, distribution::uniform, TypeParam::name(), seed, sizeof(Key)));
    const std::vector<Key> keys = TypeParam::make_keys(n, distribution::uniform, seed);
    const stable_reference<Key> expected = stable_reference_of(keys, less);
    {
      SCOPED_TRACE("gpusort::sort");
      expect_sorts_keys_by<false>(gpusort::merge, keys, expected.keys, comp, less,
                                  guarantee::unstable);
    }
    {
      SCOPED_TRACE("gpusort::stable_sort");
      expect_sorts_keys_by<true>(gpusort::merge, keys, expected.keys, comp, less,
                                 guarantee::stable);
    }
    {
      SCOPED_TRACE("gpusort::sort_by_key");
      expect_sorts_pairs_by<false>(gpusort::merge, keys, expected, comp, less, guarantee::unstable);
    }
    {
      SCOPED_TRACE("gpusort::stable_sort_by_key");
      expect_sorts_pairs_by<true>(gpusort::merge, keys, expected, comp, less, guarantee::stable);
    }
    if (::testing::Test::HasFailure()) return;
  }
}

REGISTER_TYPED_TEST_SUITE_P(MergeSort, SortGivesASortedPermutationOfTheInput,
                            StableSortMatchesStdStableSort, SortByKeyKeepsEveryValueWithItsKey,
                            StableSortByKeyKeepsEqualKeysInInputOrder,
                            LargeUniformInputsInEveryCall);

}  // namespace gpusort::test
