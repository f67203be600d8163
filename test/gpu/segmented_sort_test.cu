// gpusort::segmented_sort and stable_segmented_sort (gpusort/segmented_sort.cuh), keys only:
// every segment must come out as std::stable_sort leaves it on the host, in gpusort's key order
// (floats: NaNs after +inf, -0.0 == +0.0 in input order), and every key outside every segment
// exactly as it was.
//
// Segments are drawn in several size distributions (all of at most 32 keys, uniform up to 1024,
// power-law, eight huge ones among many tiny ones, one segment holding every key; empty
// segments among them), with random key counts up to a few million, in both forms of the
// call: offsets (back to back, with keys before the first and after the last left alone) and
// begin/end offsets (listed in any order, with gaps between them). Then the sizes where the
// backend changes sorter (a group of lanes, a warp, a small block, a block, several blocks with
// merge passes: backends/segmented/classes.cuh), one below, at and one above; every
// combination of the three block classes (whose kernels run at once); every policy;
// int, unsigned, long long and std::size_t offsets; zero segments and empty ranges; and bad
// offsets, which sort nothing and are reported by the next call.
//
// Instantiations (each key type x offset type x comparator compiles the backend's kernels
// once; policies of the radix family share them): u32/int ascending and descending and with
// gpusort::merge's less<>, i32/unsigned, f32/int both ways, u64/long long, f64/size_t
// descending.
#include "../support/segments.cuh"
#include "../support/sort_checks.cuh"
#include "../support/splitmix.cuh"

#include <gpusort/segmented_sort.cuh>
#include <gpusort/sort.cuh>

#include <thrust/device_vector.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace gpusort::test {
namespace {

class SegmentedSort : public SegmentedGpuTest {};

// ---- The host reference and the checks -----------------------------------------------

template <class Key, class Less>
std::vector<Key> sorted_in_segments(std::vector<Key> keys, const segment_layout& layout,
                                    Less less) {
  for (std::size_t i = 0; i < layout.segments(); ++i)
    std::stable_sort(keys.begin() + std::ptrdiff_t(layout.begins[i]),
                     keys.begin() + std::ptrdiff_t(layout.ends[i]), less);
  return keys;
}

// What an unstable call must give: each segment a sorted permutation of itself, the input
// elsewhere.
template <class Key, class Less>
void expect_sorted_permutation_in(const segment_layout& layout, const std::vector<Key>& actual,
                                  const std::vector<Key>& expected, Less less) {
  ASSERT_EQ(actual.size(), expected.size());
  std::vector<bool> inside(actual.size(), false);
  for (std::size_t i = 0; i < layout.segments(); ++i) {
    std::fill(inside.begin() + std::ptrdiff_t(layout.begins[i]),
              inside.begin() + std::ptrdiff_t(layout.ends[i]), true);
    const auto first = std::ptrdiff_t(layout.begins[i]), last = std::ptrdiff_t(layout.ends[i]);
    if (std::equal(actual.begin() + first, actual.begin() + last, expected.begin() + first,
                   same_bytes<Key>))
      continue;
    SCOPED_TRACE(where(layout, layout.begins[i]));
    expect_sorted_permutation(std::vector<Key>(actual.begin() + first, actual.begin() + last),
                              std::vector<Key>(expected.begin() + first, expected.begin() + last),
                              less, "keys of the segment");
    return;
  }
  for (std::size_t i = 0; i < actual.size(); ++i)
    if (!inside[i] && !same_bytes(actual[i], expected[i])) {
      ADD_FAILURE() << "key " << i << ", outside every segment, changed from "
                    << key_text(expected[i]) << " to " << key_text(actual[i]);
      return;
    }
}

// ---- One call --------------------------------------------------------------------------

// One call of segmented_sort (or stable_segmented_sort) in the layout's form.
template <bool Stable, class Policy, class Key, class Offset, class Compare>
void segmented_sort_keys(const Policy& policy, const device_array<Key>& keys,
                         const segment_layout& layout, const device_offsets<Offset>& offsets,
                         Compare comp) {
  if (layout.form == offsets_form::offsets) {
    if constexpr (Stable)
      gpusort::stable_segmented_sort(policy, keys.begin(), keys.end(), offsets.begins.begin(),
                                     offsets.begins.end(), comp);
    else
      gpusort::segmented_sort(policy, keys.begin(), keys.end(), offsets.begins.begin(),
                              offsets.begins.end(), comp);
  } else {
    if constexpr (Stable)
      gpusort::stable_segmented_sort(policy, keys.begin(), keys.end(), offsets.begins.begin(),
                                     offsets.ends.begin(), offsets.segments, comp);
    else
      gpusort::segmented_sort(policy, keys.begin(), keys.end(), offsets.begins.begin(),
                              offsets.ends.begin(), offsets.segments, comp);
  }
}

// Sorts `keys` in `layout` on the device and checks the result against `expected`
// (sorted_in_segments of the keys).
template <bool Stable, class Offset, class Policy, class Key, class Compare, class Less>
void expect_sorts_segments(const Policy& policy, const std::vector<Key>& keys,
                           const segment_layout& layout, const std::vector<Key>& expected,
                           Compare comp, Less less, guarantee promised) {
  ASSERT_EQ(keys.size(), layout.count);
  device_array<Key> device_keys(keys);
  const device_offsets<Offset> offsets(layout);
  segmented_sort_keys<Stable>(policy, device_keys, layout, offsets, comp);
  const std::vector<Key> sorted = device_keys.to_host();
  if (promised == guarantee::stable)
    expect_same_bits_in(layout, sorted, expected);
  else
    expect_sorted_permutation_in(layout, sorted, expected, less);
}

// Keys of distribution `d` drawn from `seed` over `layout`, sorted by one call with Compare
// (gpusort::less<> or greater<>) and checked against sorted_in_segments in the same order;
// `what` starts the trace.
template <class Key, class Offset, bool Stable, class Compare, class Policy>
void expect_sorts_drawn_keys(const Policy& policy, const segment_layout& layout, distribution d,
                             std::uint64_t seed, guarantee promised, const std::string& what) {
  constexpr bool descending = std::is_same_v<Compare, gpusort::greater<>>;
  static_assert(descending || std::is_same_v<Compare, gpusort::less<>>);
  const reference_order<Key> less{descending};
  SCOPED_TRACE(what + describe_layout(layout) + " " +
               describe(layout.count, d, descending ? "descending" : "ascending", seed,
                        sizeof(Key)));
  const std::vector<Key> keys = make_keys<Key>(layout.count, d, seed);
  expect_sorts_segments<Stable, Offset>(policy, keys, layout,
                                        sorted_in_segments(keys, layout, less), Compare{}, less,
                                        promised);
}

// ---- Sweeps ------------------------------------------------------------------------------

// Every shape x a small, a mid and a large random key count x both forms; the key distribution
// cycles through `distributions`. Stable: the call is stable_segmented_sort. Compare:
// gpusort::less<> or greater<> (a template parameter, so that a sweep compiles the backend for
// one order only).
template <class Key, class Offset, bool Stable, class Compare, class Policy>
void sweep_layouts(const Policy& policy, guarantee promised,
                   const std::vector<distribution>& distributions, std::uint64_t salt) {
  std::uint64_t index = 0;
  for (segment_sizes shape : every_shape)
    for (int scale = 0; scale < 3; ++scale)
      for (offsets_form form : {offsets_form::offsets, offsets_form::begins_and_ends}) {
        const std::uint64_t seed = case_seed(salt * 1000003 + sizeof(Key), index);
        const distribution d = distributions[index % distributions.size()];
        ++index;
        const segment_layout layout = sweep_layout(shape, scale, 2500000, form, seed);
        if (!within_cap(layout.count)) continue;
        expect_sorts_drawn_keys<Key, Offset, Stable, Compare>(policy, layout, d, seed, promised,
                                                              "shape=" + shape_name(shape) + " ");
        if (::testing::Test::HasFailure()) return;
      }
}

std::vector<distribution> integer_distributions() {
  return {distribution::uniform, distribution::few_distinct, distribution::sorted,
          distribution::reversed, distribution::narrow_range, distribution::all_equal};
}
std::vector<distribution> float_distributions() {
  return {distribution::float_specials, distribution::uniform, distribution::few_distinct,
          distribution::float_specials, distribution::reversed};
}

TEST_F(SegmentedSort, U32AscendingMatchesStdStableSortInEverySegment) {
  sweep_layouts<std::uint32_t, int, false, gpusort::less<>>(gpusort::par, guarantee::stable,
                                                            integer_distributions(), 1);
}

TEST_F(SegmentedSort, U32DescendingWithGreater) {
  sweep_layouts<std::uint32_t, int, true, gpusort::greater<>>(gpusort::radix, guarantee::stable,
                                                              integer_distributions(), 2);
}

TEST_F(SegmentedSort, I32WithUnsignedOffsets) {
  sweep_layouts<std::int32_t, unsigned, false, gpusort::less<>>(
      gpusort::radix, guarantee::stable, integer_distributions(), 3);
}

TEST_F(SegmentedSort, F32NaNsLastAndSignedZerosInInputOrder) {
  sweep_layouts<float, int, false, gpusort::less<>>(gpusort::par, guarantee::stable,
                                                    float_distributions(), 4);
}

TEST_F(SegmentedSort, F32DescendingNaNsFirst) {
  sweep_layouts<float, int, true, gpusort::greater<>>(gpusort::par, guarantee::stable,
                                                      float_distributions(), 5);
}

TEST_F(SegmentedSort, U64WithLongLongOffsets) {
  sweep_layouts<std::uint64_t, long long, false, gpusort::less<>>(
      gpusort::par, guarantee::stable, integer_distributions(), 6);
}

TEST_F(SegmentedSort, F64DescendingWithSizeTOffsets) {
  sweep_layouts<double, std::size_t, true, gpusort::greater<>>(gpusort::par, guarantee::stable,
                                                               float_distributions(), 7);
}

// The comparison backend with its own comparator object (gpusort::less<>, not the radix
// order): stable calls exactly, unstable ones a sorted permutation.
TEST_F(SegmentedSort, MergeSortsEverySegment) {
  sweep_layouts<std::uint32_t, int, true, gpusort::less<>>(gpusort::merge, guarantee::stable,
                                                           integer_distributions(), 8);
  sweep_layouts<std::uint32_t, int, false, gpusort::less<>>(gpusort::merge, guarantee::unstable,
                                                            integer_distributions(), 9);
}

// ---- The sorters' boundaries ----------------------------------------------------------

// Sizes at which the backend hands a segment to another sorter (backends/segmented/classes.cuh:
// groups of 4, 8, 16 and 32 lanes, a warp of two keys per lane, a small block, a half block
// and a block of one tile each, several blocks with 1, 2 and 3 merge passes), one below, at
// and one above; the tiles' sizes from the comparison sort's shapes for Key (8-byte keys have
// smaller ones), and those of 4-byte keys for every key type.
template <class Key>
std::vector<std::size_t> sorter_boundaries() {
  using tuning = merge_tuning_sm90;
  using block = backends::merge::merge_shape<tuning, Key>;
  using small_block = backends::segmented::small_block_shape<tuning, Key>;
  using half_block = backends::segmented::half_block_shape<tuning, Key>;
  std::vector<std::size_t> sizes{0,    1,    2,    3,    4,    5,    7,    8,    9,    15,
                                 16,   17,   31,   32,   33,   63,   64,   65,   1087, 1088,
                                 1089, 2175, 2176, 2177, 4351, 4352, 4353, 8703, 8704, 8705,
                                 100000};
  for (std::size_t boundary :
       {std::size_t(small_block::tile_items), std::size_t(half_block::tile_items),
        std::size_t(block::tile_items), 2 * std::size_t(block::tile_items),
        4 * std::size_t(block::tile_items)})
    for (std::size_t size : {boundary - 1, boundary, boundary + 1}) sizes.push_back(size);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

// Every boundary size as a segment of one call (shuffled, empty segments between), in both
// forms; then each of them alone, as the whole input.
template <class Key, class Offset, class Policy>
void expect_sorts_boundary_sizes(const Policy& policy, distribution d, std::uint64_t salt) {
  const std::vector<std::size_t> boundaries = sorter_boundaries<Key>();
  for (offsets_form form : {offsets_form::offsets, offsets_form::begins_and_ends}) {
    const std::uint64_t seed = case_seed(salt, std::uint64_t(form));
    splitmix64 random(seed);
    std::vector<std::size_t> sizes;
    for (int copy = 0; copy < 2; ++copy)
      for (std::size_t size : boundaries) {
        sizes.push_back(size);
        sizes.push_back(0);
      }
    for (std::size_t i = sizes.size(); i > 1; --i) std::swap(sizes[i - 1], sizes[random.below(i)]);
    const segment_layout layout = lay_out(sizes, form, random);
    if (!within_cap(layout.count)) continue;
    expect_sorts_drawn_keys<Key, Offset, false, gpusort::less<>>(
        policy, layout, d, seed, guarantee::stable, "every boundary size ");
    if (::testing::Test::HasFailure()) return;
  }
  for (std::size_t size : capped(boundaries)) {
    const std::uint64_t seed = case_seed(salt + 1, size);
    splitmix64 random(seed);
    const segment_layout layout = lay_out({size}, offsets_form::offsets, random, false);
    expect_sorts_drawn_keys<Key, Offset, false, gpusort::less<>>(
        policy, layout, d, seed, guarantee::stable, "one segment of every key: ");
    if (::testing::Test::HasFailure()) return;
  }
}

TEST_F(SegmentedSort, SegmentsAtEverySorterBoundaryFourByteKeys) {
  expect_sorts_boundary_sizes<std::uint32_t, int>(gpusort::par, distribution::uniform, 10);
  expect_sorts_boundary_sizes<std::uint32_t, int>(gpusort::par, distribution::few_distinct, 11);
  expect_sorts_boundary_sizes<float, int>(gpusort::par, distribution::float_specials, 12);
}

TEST_F(SegmentedSort, SegmentsAtEverySorterBoundaryEightByteKeys) {
  expect_sorts_boundary_sizes<std::uint64_t, long long>(gpusort::par, distribution::uniform, 13);
  expect_sorts_boundary_sizes<std::uint64_t, long long>(gpusort::par,
                                                        distribution::few_distinct, 14);
}

// The classes' kernels run at once, and only the first one launched waits for the plan (the
// group kernel, in every call of more than one segment; backends/segmented/kernels.cuh):
// every combination of the small, half and full blocks' bands, each with hundreds of segments
// so that their kernels overlap, and each band the last one launched in some call.
template <class Key, class Offset>
void expect_sorts_every_combination_of_block_classes(distribution d, std::uint64_t salt) {
  using tuning = merge_tuning_sm90;
  const std::size_t small = backends::segmented::small_block_shape<tuning, Key>::tile_items;
  const std::size_t half = backends::segmented::half_block_shape<tuning, Key>::tile_items;
  const std::size_t block = backends::merge::merge_shape<tuning, Key>::tile_items;
  const std::size_t bands[3][2] = {{65, small}, {small + 1, half}, {half + 1, block}};
  for (unsigned classes = 1; classes < 8; ++classes) {
    const std::uint64_t seed = case_seed(salt, classes);
    splitmix64 random(seed);
    std::vector<std::size_t> sizes;
    for (int i = 0; i < 600; ++i) {
      int band = int(random.below(3));
      while ((classes >> band & 1u) == 0) band = (band + 1) % 3;
      const std::size_t lo = bands[band][0], hi = bands[band][1];
      sizes.push_back(lo + random.below(hi - lo + 1));
    }
    const segment_layout layout = lay_out(sizes, offsets_form::offsets, random);
    if (!within_cap(layout.count)) continue;
    expect_sorts_drawn_keys<Key, Offset, false, gpusort::less<>>(
        gpusort::par, layout, d, seed, guarantee::stable,
        "block classes " + std::to_string(classes) + " (1 small, 2 half, 4 full): ");
    if (::testing::Test::HasFailure()) return;
  }
}

TEST_F(SegmentedSort, EveryCombinationOfBlockClassesSortsItsSegments) {
  expect_sorts_every_combination_of_block_classes<std::uint32_t, int>(distribution::uniform, 15);
  expect_sorts_every_combination_of_block_classes<std::uint64_t, long long>(
      distribution::few_distinct, 16);
}

// 4-byte floats in the blocks' bands sort as their encodings, unless the segment holds a -0.0
// or a NaN (merge/tile_key_codecs.cuh, floats_as_encodings): one call where every third segment holds one
// among ordinary keys, so that blocks take both ways in turn; ascending and descending.
void expect_floats_sort_with_and_without_specials(bool descending, std::uint64_t salt) {
  using Key = float;
  const std::size_t block =
      backends::merge::merge_shape<merge_tuning_sm90, Key>::tile_items;
  splitmix64 random(salt);
  std::vector<std::size_t> sizes;
  for (int i = 0; i < 500; ++i) sizes.push_back(65 + random.below(block - 64));
  const segment_layout layout = lay_out(sizes, offsets_form::offsets, random);
  if (!within_cap(layout.count)) return;
  std::vector<Key> keys = make_keys<Key>(layout.count, distribution::uniform, salt);
  const Key specials[] = {-0.0f, 0.0f, std::numeric_limits<Key>::quiet_NaN(), -0.0f,
                          -std::numeric_limits<Key>::quiet_NaN()};
  for (std::size_t s = 0; s < layout.segments(); s += 3) {
    const std::size_t size = layout.ends[s] - layout.begins[s];
    for (int j = 0; j < 3; ++j)
      keys[layout.begins[s] + random.below(size)] = specials[random.below(5)];
  }
  device_array<Key> device_keys(keys);
  const device_offsets<int> offsets(layout);
  if (descending)
    gpusort::segmented_sort(gpusort::par, device_keys.begin(), device_keys.end(),
                            offsets.begins.begin(), offsets.begins.end(), gpusort::greater<>{});
  else
    gpusort::segmented_sort(gpusort::par, device_keys.begin(), device_keys.end(),
                            offsets.begins.begin(), offsets.begins.end());
  expect_same_bits_in(layout, device_keys.to_host(),
                      sorted_in_segments(keys, layout, reference_order<Key>{descending}));
}

TEST_F(SegmentedSort, F32SegmentsWithAndWithoutSignedZerosOrNaNsInOneCall) {
  {
    SCOPED_TRACE("ascending");
    expect_floats_sort_with_and_without_specials(false, 17);
  }
  {
    SCOPED_TRACE("descending");
    expect_floats_sort_with_and_without_specials(true, 18);
  }
}

// ---- Every policy ------------------------------------------------------------------------

// Policies of the user's own name that are built-in ones.
struct project_radix : gpusort::radix_policy<> {};
struct project_par : gpusort::par_policy {};

// A mix of every sorter's sizes, and power-law sizes, in both forms, through `policy`: the
// radix family (and gpusort::merge's stable calls) must give std::stable_sort's result;
// bucket_bitonic and gpusort::merge's unstable calls promise a sorted permutation.
template <bool Stable, class Policy>
void expect_policy_sorts(const Policy& policy, guarantee promised, std::uint64_t salt) {
  using Key = std::uint32_t;
  std::vector<std::size_t> mixed = sorter_boundaries<Key>();
  for (int i = 0; i < 300; ++i) mixed.push_back(i % 40);
  std::uint64_t index = 0;
  for (bool power_law : {false, true})
    for (offsets_form form : {offsets_form::offsets, offsets_form::begins_and_ends}) {
      const std::uint64_t seed = case_seed(salt, index++);
      splitmix64 random(seed);
      std::vector<std::size_t> sizes =
          power_law ? draw_sizes(segment_sizes::power_law, 200000 + random.below(100000), random)
                    : mixed;
      if (!power_law)
        for (std::size_t i = sizes.size(); i > 1; --i)
          std::swap(sizes[i - 1], sizes[random.below(i)]);
      const segment_layout layout = lay_out(sizes, form, random);
      if (!within_cap(layout.count)) continue;
      const distribution d = power_law ? distribution::uniform : distribution::few_distinct;
      expect_sorts_drawn_keys<Key, int, Stable, gpusort::less<>>(
          policy, layout, d, seed, promised,
          power_law ? "power-law sizes " : "every sorter's sizes ");
      if (::testing::Test::HasFailure()) return;
    }
}

TEST_F(SegmentedSort, EveryPolicySortsEverySegment) {
  {
    SCOPED_TRACE("gpusort::par");
    expect_policy_sorts<false>(gpusort::par, guarantee::stable, 20);
    expect_policy_sorts<true>(gpusort::par, guarantee::stable, 21);
  }
  {
    SCOPED_TRACE("gpusort::radix");
    expect_policy_sorts<false>(gpusort::radix, guarantee::stable, 22);
    expect_policy_sorts<true>(gpusort::radix, guarantee::stable, 23);
  }
  {
    SCOPED_TRACE("gpusort::bucket_bitonic (no stable form)");
    expect_policy_sorts<false>(gpusort::bucket_bitonic, guarantee::unstable, 24);
  }
  {
    SCOPED_TRACE("gpusort::merge");
    expect_policy_sorts<false>(gpusort::merge, guarantee::unstable, 25);
    expect_policy_sorts<true>(gpusort::merge, guarantee::stable, 26);
  }
  {
    SCOPED_TRACE("gpusort::par_pinned<par_strategy::merge>");
    expect_policy_sorts<false>(gpusort::par_pinned<par_strategy::merge>, guarantee::stable, 27);
  }
  {
    SCOPED_TRACE("gpusort::par_pinned<par_strategy::onesweep>");
    expect_policy_sorts<true>(gpusort::par_pinned<par_strategy::onesweep>, guarantee::stable, 28);
  }
  {
    SCOPED_TRACE("struct project_radix : gpusort::radix_policy<>");
    expect_policy_sorts<false>(project_radix{}, guarantee::stable, 29);
  }
  {
    SCOPED_TRACE("struct project_par : gpusort::par_policy");
    expect_policy_sorts<true>(project_par{}, guarantee::stable, 30);
  }
}

// ---- Ranges, and what is left alone ------------------------------------------------------

TEST_F(SegmentedSort, KeysBeforeAfterAndBetweenSegmentsStayAsTheyWere) {
  using Key = std::uint32_t;
  const reference_order<Key> less{false};
  const segment_layout layouts[] = {
      // Offsets form: segments over [1000, 9000) of 10000 keys.
      layout_of(offsets_form::offsets, 10000,
                {{1000, 1001}, {1001, 1033}, {1033, 2121}, {2121, 6500}, {6500, 9000}}),
      // Begins and ends: listed from the last to the first, a segment of each sorter with gaps
      // of 1 to 4000 keys, a gap before the first and after the last.
      layout_of(offsets_form::begins_and_ends, 40000,
                {{30000, 39999}, {25000, 29000}, {24000, 24999}, {23000, 23040}, {22000, 22030},
                 {21999, 22000}, {21000, 21000}, {1, 20000}}),
      // A single segment that is not the whole input (a single segment of every key is
      // sorted another way): all keys but the first, all but the last, none, one, two.
      layout_of(offsets_form::offsets, 300007, {{1, 300007}}),
      layout_of(offsets_form::begins_and_ends, 300007, {{0, 300006}}),
      layout_of(offsets_form::offsets, 300007, {{150000, 150000}}),
      layout_of(offsets_form::offsets, 300007, {{300006, 300007}}),
      layout_of(offsets_form::begins_and_ends, 300007, {{7, 9}}),
  };
  for (const segment_layout& layout : layouts) {
    SCOPED_TRACE(describe_layout(layout));
    const std::vector<Key> keys = make_keys<Key>(layout.count, distribution::uniform, 31);
    expect_sorts_segments<false, int>(gpusort::par, keys, layout,
                                      sorted_in_segments(keys, layout, less), gpusort::less<>{},
                                      less, guarantee::stable);
  }
}

TEST_F(SegmentedSort, SortsThrustDeviceVectorIterators) {
  using Key = std::uint32_t;
  splitmix64 random(32);
  const segment_layout layout =
      lay_out(draw_sizes(segment_sizes::uniform_to_1024, 100003, random), offsets_form::offsets,
              random, false);
  ASSERT_LT(layout.segments(), 65536u);
  const std::vector<Key> keys = make_keys<Key>(layout.count, distribution::uniform, 33);
  const auto expected = sorted_in_segments(keys, layout, reference_order<Key>{false});
  const std::vector<int> offsets = as_offsets<int>(first_array(layout));
  thrust::device_vector<Key> device_keys(keys.begin(), keys.end());
  thrust::device_vector<int> device_offsets(offsets.begin(), offsets.end());
  gpusort::segmented_sort(gpusort::par, device_keys.begin(), device_keys.end(),
                          device_offsets.begin(), device_offsets.end());
  expect_same_bits_in(layout, std::vector<Key>(device_keys.begin(), device_keys.end()), expected);

  // The begins and ends form over the same offsets, with a segment count of another integral
  // type.
  thrust::device_vector<Key> again(keys.begin(), keys.end());
  gpusort::stable_segmented_sort(gpusort::radix, again.begin(), again.end(),
                                 device_offsets.begin(), device_offsets.begin() + 1,
                                 static_cast<unsigned short>(layout.segments()));
  expect_same_bits_in(layout, std::vector<Key>(again.begin(), again.end()), expected);
}

}  // namespace
}  // namespace gpusort::test

// A user's policy that takes segmented requests: its own overload in its own namespace (found
// by argument-dependent lookup), which counts its calls and hands the request to a built-in
// backend.
namespace my_project {
struct counting_segmented_policy : gpusort::execution_policy<counting_segmented_policy> {};
inline int segmented_requests = 0;
template <class K, class V, class O, class C, bool S>
void backend_segmented_sort(const counting_segmented_policy&,
                            const gpusort::segmented_sort_request<K, V, O, C, S>& request) {
  ++segmented_requests;
  gpusort::backend_segmented_sort(gpusort::merge, request);
}
}  // namespace my_project

namespace gpusort::test {
namespace {

TEST_F(SegmentedSort, AUserPolicyTakesSegmentedRequestsThroughItsOwnOverload) {
  using Key = std::uint32_t;
  splitmix64 random(35);
  const segment_layout layout =
      lay_out(draw_sizes(segment_sizes::power_law, 200003, random), offsets_form::offsets,
              random, false);
  const std::vector<Key> keys = make_keys<Key>(layout.count, distribution::uniform, 36);
  const auto expected = sorted_in_segments(keys, layout, reference_order<Key>{false});
  const std::vector<int> offsets = as_offsets<int>(first_array(layout));
  thrust::device_vector<Key> device_keys(keys.begin(), keys.end());
  thrust::device_vector<int> device_offsets(offsets.begin(), offsets.end());
  my_project::segmented_requests = 0;
  gpusort::stable_segmented_sort(my_project::counting_segmented_policy{}, device_keys.begin(),
                                 device_keys.end(), device_offsets.begin(),
                                 device_offsets.end());
  EXPECT_EQ(my_project::segmented_requests, 1);
  expect_same_bits_in(layout, std::vector<Key>(device_keys.begin(), device_keys.end()), expected);
}

TEST_F(SegmentedSort, ZeroSegmentsAndEmptyRangesChangeNothing) {
  using Key = std::uint32_t;
  const std::vector<Key> keys = make_keys<Key>(5000, distribution::uniform, 34);
  device_array<Key> device_keys(keys);
  device_array<int> offsets(std::vector<int>{0, 5000});
  device_array<int> no_offsets(std::vector<int>{});
  // No offsets at all, one offset (zero segments), and a segment count of 0.
  gpusort::segmented_sort(gpusort::par, device_keys.begin(), device_keys.end(), offsets.begin(),
                          offsets.begin());
  gpusort::segmented_sort(gpusort::par, device_keys.begin(), device_keys.end(), offsets.begin(),
                          offsets.begin() + 1);
  gpusort::stable_segmented_sort(gpusort::radix, device_keys.begin(), device_keys.end(),
                                 offsets.begin(), offsets.begin() + 1, 0);
  gpusort::segmented_sort(gpusort::merge, device_keys.begin(), device_keys.end(),
                          no_offsets.begin(), no_offsets.end());
  EXPECT_EQ(device_keys.to_host(), keys);
  // Empty key ranges (null pointers too) and a range of one key, with segments that fit them.
  device_array<int> empty_segments(std::vector<int>{0, 0, 0});
  Key* none = nullptr;
  gpusort::segmented_sort(gpusort::par, none, none, empty_segments.begin(),
                          empty_segments.end());
  gpusort::segmented_sort(gpusort::par, device_keys.begin(), device_keys.begin(),
                          empty_segments.begin(), empty_segments.end());
  device_array<int> one_key(std::vector<int>{0, 1});
  gpusort::stable_segmented_sort(gpusort::par, device_keys.begin(), device_keys.begin() + 1,
                                 one_key.begin(), one_key.end());
  // Segments that are all empty, over many keys.
  gpusort::segmented_sort(gpusort::par, device_keys.begin(), device_keys.end(),
                          empty_segments.begin(), empty_segments.end());
  EXPECT_EQ(device_keys.to_host(), keys);
}

// ---- Bad offsets ---------------------------------------------------------------------------

// A call whose offsets hold one bad segment among good ones of every sorter (several blocks
// included): it must sort nothing and return without waiting; the device's report reaches the
// host at the next check, once. Then a good call works. `ends` empty: the offsets form. Key,
// offset type and comparator are combinations the sweeps above compile anyway.
template <class Key, class Offset, class Policy, class Compare>
void expect_bad_offsets_sort_nothing(const Policy& policy, Compare comp, bool descending,
                                     const std::vector<Offset>& begins,
                                     const std::vector<Offset>& ends, std::size_t count,
                                     const char* what) {
  SCOPED_TRACE(what);
  const std::vector<Key> keys = make_keys<Key>(count, distribution::uniform, 40);
  device_array<Key> device_keys(keys);
  device_array<Offset> device_begins(begins);
  device_array<Offset> device_ends(ends);
  if (ends.empty())
    gpusort::segmented_sort(policy, device_keys.begin(), device_keys.end(), device_begins.begin(),
                            device_begins.end(), comp);
  else
    gpusort::segmented_sort(policy, device_keys.begin(), device_keys.end(), device_begins.begin(),
                            device_ends.begin(), ends.size(), comp);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_THROW(gpusort::check_segmented_sorts(), gpusort::error);
  EXPECT_NO_THROW(gpusort::check_segmented_sorts()) << "the report is given once";
  expect_same_bits(device_keys.to_host(), keys, "keys after a call with bad offsets");

  // The library is usable afterwards.
  splitmix64 random(count);
  const segment_layout layout = lay_out({count / 3, count - count / 3}, offsets_form::offsets,
                                        random, false);
  const device_offsets<Offset> good(layout);
  gpusort::segmented_sort(policy, device_keys.begin(), device_keys.end(), good.begins.begin(),
                          good.begins.end(), comp);
  SCOPED_TRACE("a good call after the report");
  expect_same_bits_in(layout, device_keys.to_host(),
                      sorted_in_segments(keys, layout, reference_order<Key>{descending}));
}

// Back-to-back offsets of every sorter's size: 11 offsets, 10 segments, 25624 keys.
template <class Offset>
std::vector<Offset> good_offsets() {
  std::vector<Offset> offsets{0};
  for (int size : {0, 1, 2, 17, 33, 64, 65, 1089, 4353, 20000})
    offsets.push_back(Offset(offsets.back() + Offset(size)));
  return offsets;
}

TEST_F(SegmentedSort, BadOffsetsSortNothingAndTheNextCheckThrows) {
  const std::size_t count = 30000;
  const gpusort::less<> ascending;
  {
    std::vector<int> decreasing = good_offsets<int>();
    decreasing.push_back(decreasing.back() - 5);  // segment 10 ends before it begins
    decreasing.push_back(int(count));
    expect_bad_offsets_sort_nothing<std::uint32_t>(gpusort::par, ascending, false, decreasing,
                                                   {}, count, "decreasing offsets");
  }
  {
    std::vector<int> past_the_end = good_offsets<int>();
    past_the_end.push_back(int(count) + 1);
    expect_bad_offsets_sort_nothing<std::uint32_t>(gpusort::radix, ascending, false,
                                                   past_the_end, {}, count,
                                                   "the last offset past the keys' end");
  }
  {
    std::vector<int> negative = good_offsets<int>();
    negative.front() = -1;
    expect_bad_offsets_sort_nothing<std::uint32_t>(gpusort::merge, ascending, false, negative,
                                                   {}, count, "a negative first offset");
  }
  {
    std::vector<unsigned> past_the_end = good_offsets<unsigned>();
    past_the_end.push_back(std::numeric_limits<unsigned>::max());
    expect_bad_offsets_sort_nothing<std::int32_t>(gpusort::radix, ascending, false, past_the_end,
                                                  {}, count, "an unsigned offset of ~0u");
  }
  {
    const std::vector<long long> offsets = good_offsets<long long>();
    std::vector<long long> begins(offsets.begin(), offsets.end() - 1);
    std::vector<long long> ends(offsets.begin() + 1, offsets.end());
    std::swap(begins.back(), ends.back());  // [25624, 5624)
    std::reverse(begins.begin(), begins.end());
    std::reverse(ends.begin(), ends.end());
    expect_bad_offsets_sort_nothing<std::uint64_t>(
        gpusort::par, ascending, false, begins, ends, count,
        "begins and ends: the first segment's end precedes its begin");
    std::swap(begins.front(), ends.front());
    ends.front() = (long long)count + 100;  // [5624, count + 100)
    expect_bad_offsets_sort_nothing<std::uint64_t>(gpusort::par, ascending, false, begins, ends,
                                                   count,
                                                   "begins and ends: an end past the keys' end");
    ends.front() = (long long)count;
    begins.back() = -7;  // [-7, 0)
    expect_bad_offsets_sort_nothing<std::uint64_t>(gpusort::bucket_bitonic, ascending, false,
                                                   begins, ends, count,
                                                   "begins and ends: a negative begin");
  }
  {
    // One segment: a call that would sort the whole input another way when it is all of it.
    expect_bad_offsets_sort_nothing<std::uint32_t>(gpusort::par, ascending, false,
                                                   std::vector<int>{0, int(count) + 1}, {},
                                                   count, "a single segment past the end");
    expect_bad_offsets_sort_nothing<std::uint32_t>(gpusort::radix, ascending, false,
                                                   std::vector<int>{int(count)},
                                                   std::vector<int>{0}, count,
                                                   "a single segment that ends before it begins");
    expect_bad_offsets_sort_nothing<float>(gpusort::par, ascending, false,
                                           std::vector<int>{-1, int(count)}, {}, count,
                                           "a single segment from -1 to the end");
  }
  {
    // More segments than one block classifies (1024): then the classify runs on a grid of its
    // own and the plan apart; fewer take one kernel for both (kernels.cuh).
    std::vector<int> many{0};
    for (int i = 0; i < 1500; ++i) many.push_back(many.back() + 20);
    many[700] = many[699] - 1;  // segment 699 ends before it begins
    expect_bad_offsets_sort_nothing<std::uint32_t>(gpusort::par, ascending, false, many, {},
                                                   count, "decreasing offsets, 1500 segments");
  }
  {
    // Segments inside the keys whose sizes add up to more than the keys: they overlap.
    expect_bad_offsets_sort_nothing<std::uint64_t>(
        gpusort::par, ascending, false, std::vector<long long>{0, 10000},
        std::vector<long long>{20000, (long long)count}, count, "two segments that overlap");
    std::vector<long long> begins, ends;
    for (long long i = 0; i < 1500; ++i) {
      begins.push_back(i * 10);
      ends.push_back(i * 10 + 30);
    }
    expect_bad_offsets_sort_nothing<std::uint64_t>(gpusort::par, ascending, false, begins, ends,
                                                   count, "1500 segments that overlap");
  }
  {
    std::vector<std::size_t> past_the_end = good_offsets<std::size_t>();
    past_the_end.push_back(std::numeric_limits<std::size_t>::max());
    expect_bad_offsets_sort_nothing<double>(gpusort::par, gpusort::greater<>{}, true,
                                            past_the_end, {}, count,
                                            "a std::size_t offset of SIZE_MAX");
  }
}

// The report is read by the next segmented sort call, which throws before it does anything.
TEST_F(SegmentedSort, TheNextCallReportsBadOffsetsAndLeavesItsKeysAlone) {
  using Key = std::uint32_t;
  const std::vector<Key> keys = make_keys<Key>(9000, distribution::uniform, 41);
  device_array<Key> bad_keys(keys), next_keys(keys);
  device_array<int> bad(std::vector<int>{0, 5000, 4000, 9000});
  device_array<int> good(std::vector<int>{0, 9000});
  gpusort::segmented_sort(gpusort::par, bad_keys.begin(), bad_keys.end(), bad.begin(), bad.end());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  try {
    gpusort::segmented_sort(gpusort::par, next_keys.begin(), next_keys.end(), good.begin(),
                            good.end());
    ADD_FAILURE() << "expected gpusort::error from the call after one with bad offsets";
  } catch (const gpusort::error& e) {
    EXPECT_NE(std::string(e.what()).find("segment 1"), std::string::npos) << e.what();
  }
  EXPECT_EQ(bad_keys.to_host(), keys);
  EXPECT_EQ(next_keys.to_host(), keys) << "the call that reported was not to run";
  gpusort::segmented_sort(gpusort::par, next_keys.begin(), next_keys.end(), good.begin(),
                          good.end());
  EXPECT_EQ(next_keys.to_host(), reference_sorted(keys, false));
}

TEST_F(SegmentedSort, OffsetsInHostMemoryAreRefusedAtOnce) {
  using Key = std::uint32_t;
  const std::vector<Key> keys = make_keys<Key>(3000, distribution::uniform, 42);
  device_array<Key> device_keys(keys);
  const std::vector<int> host_offsets{0, 1000, 3000};
  device_array<int> device_ends(std::vector<int>{1000, 3000});
  try {
    gpusort::segmented_sort(gpusort::par, device_keys.begin(), device_keys.end(),
                            host_offsets.data(), host_offsets.data() + host_offsets.size());
    ADD_FAILURE() << "expected gpusort::error for offsets in host memory";
  } catch (const gpusort::error& e) {
    EXPECT_NE(std::string(e.what()).find("host memory"), std::string::npos) << e.what();
  }
  EXPECT_THROW(gpusort::segmented_sort(gpusort::merge, device_keys.begin(), device_keys.end(),
                                       host_offsets.data(),
                                       static_cast<const int*>(device_ends.begin()), 2),
               gpusort::error);
  EXPECT_THROW(gpusort::stable_segmented_sort(gpusort::radix, device_keys.begin(),
                                              device_keys.end(),
                                              static_cast<const int*>(device_ends.begin()),
                                              host_offsets.data() + 1, 2),
               gpusort::error);
  EXPECT_EQ(device_keys.to_host(), keys);
}

}  // namespace
}  // namespace gpusort::test
