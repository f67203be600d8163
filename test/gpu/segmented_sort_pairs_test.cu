// gpusort::segmented_sort_by_key and stable_segmented_sort_by_key (gpusort/segmented_sort.cuh):
// values are the keys' input positions, so they show that every value moved with its own key,
// stayed in its segment, and (stable calls, and every call of the radix family) that equal keys
// kept their input order: std::stable_sort's result per segment, bit for bit. Then the calls
// as users build on them: a CUDA graph replayed on new input (and new offsets), a stream and an
// allocator of the user's own, bad offsets (nothing sorted, reported later), offsets in host
// memory, zero segments and empty ranges.
//
// Instantiations (key x value x offset type x comparator compiles the backend's kernels once;
// policies of the radix family share them): u32+u32/int ascending, u64+u32/long long
// descending, f32+u32/int ascending, a struct key with a two-field comparator (gpusort::merge)
// and a __device__ lambda (gpusort::par; nvcc --extended-lambda), both u32 values, int offsets.
#include "../support/allocators.cuh"
#include "../support/graphs.cuh"
#include "../support/segments.cuh"
#include "../support/sort_checks.cuh"
#include "../support/splitmix.cuh"

#include <gpusort/memory.cuh>
#include <gpusort/segmented_sort.cuh>
#include <gpusort/sort.cuh>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <bitset>
#include <chrono>
#include <cstdint>
#include <numeric>
#include <sstream>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace gpusort::test {
namespace {

class SegmentedSortPairs : public SegmentedGpuTest {};

// ---- The reference and the checks -------------------------------------------------------

// Input positions in std::stable_sort's order within each segment; every other position
// stays where it is.
template <class Key, class Less>
std::vector<std::uint32_t> stable_order_in_segments(const std::vector<Key>& keys,
                                                    const segment_layout& layout, Less less) {
  std::vector<std::uint32_t> order(keys.size());
  std::iota(order.begin(), order.end(), 0u);
  for (std::size_t i = 0; i < layout.segments(); ++i)
    std::stable_sort(order.begin() + std::ptrdiff_t(layout.begins[i]),
                     order.begin() + std::ptrdiff_t(layout.ends[i]),
                     [&](std::uint32_t a, std::uint32_t b) { return less(keys[a], keys[b]); });
  return order;
}

template <class T>
std::size_t first_difference(const std::vector<T>& actual, const std::vector<T>& expected) {
  for (std::size_t i = 0; i < actual.size(); ++i)
    if (!same_bytes(actual[i], expected[i])) return i;
  return actual.size();
}

// Stable: keys and values exactly std::stable_sort's per segment, the input elsewhere.
template <class Key>
void expect_stable_result(const segment_layout& layout, const std::vector<Key>& keys,
                          const std::vector<std::uint32_t>& values,
                          const std::vector<Key>& input_keys,
                          const std::vector<std::uint32_t>& order) {
  ASSERT_EQ(keys.size(), order.size());
  ASSERT_EQ(values.size(), order.size());
  expect_same_bits_in(layout, keys, gather(input_keys, order));
  const std::size_t value_at = first_difference(values, order);
  if (value_at < values.size())
    ADD_FAILURE() << "values differ first at index " << value_at << " ("
                  << where(layout, value_at) << "): got " << values[value_at] << ", expected "
                  << order[value_at] << " (equal keys in input order)";
}

// Unstable: in each segment, keys equivalent to std::stable_sort's at every index and each
// value naming its own key from the same segment; the input elsewhere.
template <class Key, class Less>
void expect_unstable_result(const segment_layout& layout, const std::vector<Key>& keys,
                            const std::vector<std::uint32_t>& values,
                            const std::vector<Key>& input_keys,
                            const std::vector<std::uint32_t>& order, Less less) {
  ASSERT_EQ(keys.size(), order.size());
  ASSERT_EQ(values.size(), order.size());
  if (!expect_equivalent_at_each_index(keys, gather(input_keys, order), less, "keys")) return;
  expect_values_name_their_keys(keys, values, input_keys);
  if (::testing::Test::HasFatalFailure()) return;  // a value that names no position
  std::vector<long long> owner(keys.size(), -1);
  for (std::size_t i = 0; i < layout.segments(); ++i)
    std::fill(owner.begin() + std::ptrdiff_t(layout.begins[i]),
              owner.begin() + std::ptrdiff_t(layout.ends[i]), (long long)i);
  for (std::size_t i = 0; i < values.size(); ++i) {
    const bool stays = owner[i] < 0 ? values[i] == i && same_bytes(keys[i], input_keys[i])
                                    : owner[values[i]] == owner[i];
    if (!stays) {
      ADD_FAILURE() << "index " << i << " (" << where(layout, i) << ") holds the value "
                    << values[i] << ", from " << where(layout, values[i]);
      return;
    }
  }
}

// ---- One call ------------------------------------------------------------------------

template <bool Stable, class Policy, class Key, class Offset, class Compare>
void segmented_sort_pairs(const Policy& policy, const device_array<Key>& keys,
                          const device_array<std::uint32_t>& values,
                          const segment_layout& layout, const device_offsets<Offset>& offsets,
                          Compare comp) {
  if (layout.form == offsets_form::offsets) {
    if constexpr (Stable)
      gpusort::stable_segmented_sort_by_key(policy, keys.begin(), keys.end(), values.begin(),
                                            offsets.begins.begin(), offsets.begins.end(), comp);
    else
      gpusort::segmented_sort_by_key(policy, keys.begin(), keys.end(), values.begin(),
                                     offsets.begins.begin(), offsets.begins.end(), comp);
  } else {
    if constexpr (Stable)
      gpusort::stable_segmented_sort_by_key(policy, keys.begin(), keys.end(), values.begin(),
                                            offsets.begins.begin(), offsets.ends.begin(),
                                            offsets.segments, comp);
    else
      gpusort::segmented_sort_by_key(policy, keys.begin(), keys.end(), values.begin(),
                                     offsets.begins.begin(), offsets.ends.begin(),
                                     offsets.segments, comp);
  }
}

std::vector<std::uint32_t> positions(std::size_t n) {
  std::vector<std::uint32_t> p(n);
  std::iota(p.begin(), p.end(), 0u);
  return p;
}

// Sorts `keys` with their positions as values in `layout`, and checks what `promised` says.
template <bool Stable, class Offset, class Policy, class Key, class Compare, class Less>
void expect_sorts_segment_pairs(const Policy& policy, const std::vector<Key>& keys,
                                const segment_layout& layout, Compare comp, Less less,
                                guarantee promised) {
  ASSERT_EQ(keys.size(), layout.count);
  const std::vector<std::uint32_t> order = stable_order_in_segments(keys, layout, less);
  device_array<Key> device_keys(keys);
  device_array<std::uint32_t> device_values(positions(keys.size()));
  const device_offsets<Offset> offsets(layout);
  segmented_sort_pairs<Stable>(policy, device_keys, device_values, layout, offsets, comp);
  const std::vector<Key> sorted_keys = device_keys.to_host();
  const std::vector<std::uint32_t> values = device_values.to_host();
  if (promised == guarantee::stable)
    expect_stable_result(layout, sorted_keys, values, keys, order);
  else
    expect_unstable_result(layout, sorted_keys, values, keys, order, less);
}

// Every shape x `scales` random key counts (small, mid, a few million) x both forms.
// `make(n, case_index, seed)` makes the keys.
template <class Key, class Offset, bool Stable, class Policy, class Compare, class Less,
          class Make>
void sweep_pair_layouts(const Policy& policy, Compare comp, Less less, Make make,
                        guarantee promised, int scales, std::uint64_t salt) {
  std::uint64_t index = 0;
  for (segment_sizes shape : every_shape)
    for (int scale = 0; scale < scales; ++scale)
      for (offsets_form form : {offsets_form::offsets, offsets_form::begins_and_ends}) {
        const std::uint64_t seed = case_seed(salt * 1000003 + sizeof(Key), index);
        const segment_layout layout = sweep_layout(shape, scale, 2000000, form, seed);
        if (!within_cap(layout.count)) continue;
        std::ostringstream trace;
        trace << "shape=" << shape_name(shape) << " " << describe_layout(layout)
              << " case=" << index << " seed=" << seed;
        SCOPED_TRACE(trace.str());
        const std::vector<Key> keys = make(layout.count, index, seed);
        ++index;
        expect_sorts_segment_pairs<Stable, Offset>(policy, keys, layout, comp, less, promised);
        if (::testing::Test::HasFailure()) return;
      }
}

// Arithmetic keys in gpusort's order: the distributions cycle through `distributions`.
template <class Key>
auto keys_cycling(std::vector<distribution> distributions) {
  return [distributions](std::size_t n, std::uint64_t index, std::uint64_t seed) {
    return make_keys<Key>(n, distributions[index % distributions.size()], seed);
  };
}

const std::vector<distribution> with_many_equal_keys{
    distribution::few_distinct, distribution::narrow_range, distribution::uniform,
    distribution::all_equal, distribution::sorted, distribution::reversed};

TEST_F(SegmentedSortPairs, U32StableSortByKeyMatchesStdStableSortInEverySegment) {
  using Key = std::uint32_t;
  sweep_pair_layouts<Key, int, true>(gpusort::par, gpusort::less<>{},
                                     reference_order<Key>{false},
                                     keys_cycling<Key>(with_many_equal_keys), guarantee::stable,
                                     3, 1);
}

// The radix family's sort_by_key is stable too; bucket_bitonic promises a sorted permutation
// with every value beside its key.
TEST_F(SegmentedSortPairs, U32SortByKeyThroughRadixAndBucketBitonic) {
  using Key = std::uint32_t;
  sweep_pair_layouts<Key, int, false>(gpusort::radix, gpusort::less<>{},
                                      reference_order<Key>{false},
                                      keys_cycling<Key>(with_many_equal_keys), guarantee::stable,
                                      2, 2);
  sweep_pair_layouts<Key, int, false>(gpusort::bucket_bitonic, gpusort::less<>{},
                                      reference_order<Key>{false},
                                      keys_cycling<Key>(with_many_equal_keys),
                                      guarantee::unstable, 2, 3);
}

TEST_F(SegmentedSortPairs, U64KeysU32ValuesDescendingWithLongLongOffsets) {
  using Key = std::uint64_t;
  sweep_pair_layouts<Key, long long, true>(gpusort::par, gpusort::greater<>{},
                                           reference_order<Key>{true},
                                           keys_cycling<Key>(with_many_equal_keys),
                                           guarantee::stable, 3, 4);
  sweep_pair_layouts<Key, long long, false>(gpusort::radix, gpusort::greater<>{},
                                            reference_order<Key>{true},
                                            keys_cycling<Key>(with_many_equal_keys),
                                            guarantee::stable, 2, 5);
}

// -0.0 and +0.0 are equal and keep their input order; NaNs of every payload go last.
TEST_F(SegmentedSortPairs, F32KeysSignedZerosAndNaNsKeepTheirInputOrder) {
  using Key = float;
  const auto specials = keys_cycling<Key>(
      {distribution::float_specials, distribution::few_distinct, distribution::float_specials,
       distribution::uniform});
  sweep_pair_layouts<Key, int, true>(gpusort::par, gpusort::less<>{},
                                     reference_order<Key>{false}, specials, guarantee::stable,
                                     3, 6);
  sweep_pair_layouts<Key, int, false>(gpusort::par, gpusort::less<>{},
                                      reference_order<Key>{false}, specials, guarantee::stable,
                                      2, 7);
}

// ---- Comparators of the user's own -----------------------------------------------------

// 8 bytes: ordered by sensor, then channel; `sequence` is payload that the comparator never
// looks at, so a stable sort shows in the keys themselves.
struct reading {
  std::uint32_t sensor;
  std::uint16_t channel;
  std::uint16_t sequence;
};

struct by_sensor_then_channel {
  __host__ __device__ bool operator()(const reading& a, const reading& b) const {
    return a.sensor != b.sensor ? a.sensor < b.sensor : a.channel < b.channel;
  }
};

// Few sensors and channels: long runs of equivalent keys in every segment.
std::vector<reading> make_readings(std::size_t n, std::uint64_t index, std::uint64_t seed) {
  splitmix64 random(seed);
  const std::uint64_t sensors = index % 2 == 0 ? 7 : 5000;
  std::vector<reading> keys(n);
  for (std::size_t i = 0; i < n; ++i)
    keys[i] = {std::uint32_t(random.below(sensors)), std::uint16_t(random.below(3)),
               std::uint16_t(i)};
  return keys;
}

TEST_F(SegmentedSortPairs, StructKeysWithATwoFieldComparatorThroughMerge) {
  sweep_pair_layouts<reading, int, true>(gpusort::merge, by_sensor_then_channel{},
                                         by_sensor_then_channel{}, make_readings,
                                         guarantee::stable, 3, 8);
  sweep_pair_layouts<reading, int, false>(gpusort::merge, by_sensor_then_channel{},
                                          by_sensor_then_channel{}, make_readings,
                                          guarantee::unstable, 2, 9);
}

// By the number of bits set: 33 classes of equivalent keys.
bool fewer_bits_set(std::uint32_t a, std::uint32_t b) {
  return std::bitset<32>(a).count() < std::bitset<32>(b).count();
}

// The lambda lives in a plain function: nvcc takes an extended lambda only where its
// enclosing function's address can be taken (not a test body), and a template would make a
// new closure type per instantiation. Device-only: __popc has no host version.
void expect_device_lambda_sorts_segments() {
  const auto by_bits_set = [] __device__(std::uint32_t a, std::uint32_t b) {
    return __popc(a) < __popc(b);
  };
  static_assert(std::is_same_v<automatic_backend_t<std::uint32_t, decltype(by_bits_set)>,
                               merge_backend>,
                "gpusort::par has no radix route for a lambda");
  const auto uniform = keys_cycling<std::uint32_t>({distribution::uniform});
  sweep_pair_layouts<std::uint32_t, int, true>(gpusort::par, by_bits_set, fewer_bits_set, uniform,
                                               guarantee::stable, 2, 10);
  sweep_pair_layouts<std::uint32_t, int, false>(gpusort::par, by_bits_set, fewer_bits_set,
                                                uniform, guarantee::unstable, 2, 11);
}

TEST_F(SegmentedSortPairs, ParSortsWithADeviceLambda) { expect_device_lambda_sorts_segments(); }

// ---- CUDA graphs --------------------------------------------------------------------------

// A stable sort of pairs in the begins and ends form, captured on a non-default stream
// (every sorter's segments: the layout has eight huge ones among many tiny), replayed on new
// keys and values twice.
TEST_F(SegmentedSortPairs, ACapturedCallSortsNewInputOnEveryReplay) {
  using Key = std::uint32_t;
  splitmix64 random(50);
  const segment_layout layout =
      lay_out(draw_sizes(segment_sizes::huge_among_tiny, 300007, random),
              offsets_form::begins_and_ends, random);
  const device_offsets<int> offsets(layout);
  device_array<Key> keys(std::vector<Key>(layout.count, 0));
  device_array<std::uint32_t> values(std::vector<std::uint32_t>(layout.count, 0));
  cudaStream_t stream = nullptr;
  GPUSORT_TEST_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const cudaGraphExec_t replay = capture(stream, [&] {
    gpusort::stable_segmented_sort_by_key(gpusort::par.on(stream), keys.begin(), keys.end(),
                                          values.begin(), offsets.begins.begin(),
                                          offsets.ends.begin(), offsets.segments);
  });
  ASSERT_NE(replay, nullptr);
  for (std::uint64_t seed : {51, 52}) {
    SCOPED_TRACE("replay with keys of seed " + std::to_string(seed));
    const std::vector<Key> input = make_keys<Key>(layout.count, distribution::few_distinct, seed);
    copy_to(keys, input);
    copy_to(values, positions(layout.count));
    GPUSORT_TEST_CUDA(cudaGraphLaunch(replay, stream));
    GPUSORT_TEST_CUDA(cudaStreamSynchronize(stream));
    expect_stable_result(layout, keys.to_host(), values.to_host(), input,
                         stable_order_in_segments(input, layout, reference_order<Key>{false}));
  }
  GPUSORT_TEST_CUDA(cudaGraphExecDestroy(replay));
  GPUSORT_TEST_CUDA(cudaStreamDestroy(stream));
}

// The graph reads the offsets when it runs, as the call would: other offsets (the same count
// of segments, other sizes) sort the new segments; bad ones sort nothing and are reported.
TEST_F(SegmentedSortPairs, AReplayReadsTheOffsetsAsTheyAreThen) {
  using Key = std::uint32_t;
  splitmix64 random(53);
  const segment_layout captured =
      lay_out(draw_sizes(segment_sizes::power_law, 200003, random),
              offsets_form::begins_and_ends, random);
  // The same sizes in another order and place, back to back from key 0.
  segment_layout other = captured;
  std::vector<std::size_t> sizes;
  for (std::size_t i = 0; i < captured.segments(); ++i)
    sizes.push_back(captured.ends[i] - captured.begins[i]);
  std::reverse(sizes.begin(), sizes.end());
  std::size_t at = 0;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    other.begins[i] = at;
    at += sizes[i];
    other.ends[i] = at;
  }
  const device_offsets<int> offsets(captured);
  device_array<Key> keys(std::vector<Key>(captured.count, 0));
  device_array<std::uint32_t> values(std::vector<std::uint32_t>(captured.count, 0));
  cudaStream_t stream = nullptr;
  GPUSORT_TEST_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const cudaGraphExec_t replay = capture(stream, [&] {
    gpusort::segmented_sort_by_key(gpusort::radix.on(stream), keys.begin(), keys.end(),
                                   values.begin(), offsets.begins.begin(), offsets.ends.begin(),
                                   offsets.segments);
  });
  ASSERT_NE(replay, nullptr);
  const auto replay_on = [&](const segment_layout& layout, std::uint64_t seed) {
    copy_to(offsets.begins, as_offsets<int>(layout.begins));
    copy_to(offsets.ends, as_offsets<int>(layout.ends));
    const std::vector<Key> input = make_keys<Key>(layout.count, distribution::uniform, seed);
    copy_to(keys, input);
    copy_to(values, positions(layout.count));
    EXPECT_EQ(cudaGraphLaunch(replay, stream), cudaSuccess);
    EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    return input;
  };
  for (const segment_layout* layout : {&captured, static_cast<const segment_layout*>(&other)}) {
    SCOPED_TRACE(describe_layout(*layout));
    const std::vector<Key> input = replay_on(*layout, 54);
    expect_stable_result(*layout, keys.to_host(), values.to_host(), input,
                         stable_order_in_segments(input, *layout, reference_order<Key>{false}));
  }
  {
    SCOPED_TRACE("bad offsets: the largest segment ends before it begins");
    segment_layout bad = other;
    const std::size_t largest =
        std::size_t(std::max_element(sizes.begin(), sizes.end()) - sizes.begin());
    std::swap(bad.begins[largest], bad.ends[largest]);
    const std::vector<Key> input = replay_on(bad, 55);
    EXPECT_THROW(gpusort::check_segmented_sorts(), gpusort::error);
    EXPECT_EQ(keys.to_host(), input);
    EXPECT_EQ(values.to_host(), positions(bad.count));
  }
  GPUSORT_TEST_CUDA(cudaGraphExecDestroy(replay));
  GPUSORT_TEST_CUDA(cudaStreamDestroy(stream));
}

// ---- Streams and allocators ------------------------------------------------------------

void CUDART_CB hold_the_stream(void*) {
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
}

// The input reaches the device only after a 100 ms hold on the user's (non-blocking) stream:
// work enqueued anywhere else would sort zeros. The temporary storage comes from the user's
// allocator, in one allocation per call (two for a single segment of radix keys: README), and
// gpusort's own pool is never touched.
TEST_F(SegmentedSortPairs, WorkIsOrderedOnTheGivenStreamWithStorageFromTheGivenAllocatorOnly) {
  using Key = std::uint32_t;
  gpusort::release_cached_memory();
  const std::size_t pool_before = gpusort::cached_memory_bytes();
  splitmix64 random(60);
  const segment_layout layout =
      lay_out(draw_sizes(segment_sizes::huge_among_tiny, 1000003, random),
              offsets_form::offsets, random);
  const std::vector<Key> input = make_keys<Key>(layout.count, distribution::few_distinct, 61);
  const device_offsets<int> offsets(layout);
  const std::size_t n = layout.count;
  Key* host_keys = nullptr;
  std::uint32_t* host_values = nullptr;
  GPUSORT_TEST_CUDA(cudaMallocHost(&host_keys, n * sizeof(Key)));
  GPUSORT_TEST_CUDA(cudaMallocHost(&host_values, n * sizeof(std::uint32_t)));
  std::copy(input.begin(), input.end(), host_keys);
  std::iota(host_values, host_values + n, 0u);
  device_array<Key> keys(std::vector<Key>(n, 0));
  device_array<std::uint32_t> values(std::vector<std::uint32_t>(n, 0));
  cudaStream_t stream = nullptr;
  GPUSORT_TEST_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  GPUSORT_TEST_CUDA(cudaLaunchHostFunc(stream, hold_the_stream, nullptr));
  GPUSORT_TEST_CUDA(
      cudaMemcpyAsync(keys.begin(), host_keys, n * sizeof(Key), cudaMemcpyHostToDevice, stream));
  GPUSORT_TEST_CUDA(cudaMemcpyAsync(values.begin(), host_values, n * sizeof(std::uint32_t),
                                    cudaMemcpyHostToDevice, stream));
  counting_allocator allocator;
  gpusort::segmented_sort_by_key(gpusort::par.on(stream).with_allocator(allocator), keys.begin(),
                                 keys.end(), values.begin(), offsets.begins.begin(),
                                 offsets.begins.end());
  GPUSORT_TEST_CUDA(
      cudaMemcpyAsync(host_keys, keys.begin(), n * sizeof(Key), cudaMemcpyDeviceToHost, stream));
  GPUSORT_TEST_CUDA(cudaMemcpyAsync(host_values, values.begin(), n * sizeof(std::uint32_t),
                                    cudaMemcpyDeviceToHost, stream));
  GPUSORT_TEST_CUDA(cudaStreamSynchronize(stream));

  SCOPED_TRACE(describe_layout(layout));
  expect_stable_result(layout, std::vector<Key>(host_keys, host_keys + n),
                       std::vector<std::uint32_t>(host_values, host_values + n), input,
                       stable_order_in_segments(input, layout, reference_order<Key>{false}));
  EXPECT_EQ(allocator.allocations, 1) << "one allocation, before anything is written";
  EXPECT_EQ(allocator.deallocations, allocator.allocations);
  EXPECT_EQ(allocator.last_stream, stream);

  // A single segment of every key (which the radix family sorts another way), on the same
  // stream and allocator.
  const segment_layout whole = layout_of(offsets_form::offsets, n, {{0, n}});
  const device_offsets<int> whole_offsets(whole);
  gpusort::stable_segmented_sort_by_key(gpusort::radix.on(stream).with_allocator(allocator),
                                        keys.begin(), keys.end(), values.begin(),
                                        whole_offsets.begins.begin(), whole_offsets.begins.end());
  GPUSORT_TEST_CUDA(cudaStreamSynchronize(stream));
  {
    SCOPED_TRACE("a single segment of every key, after the first call");
    const std::vector<Key> first_keys(host_keys, host_keys + n);
    const std::vector<std::uint32_t> first_values(host_values, host_values + n);
    const std::vector<std::uint32_t> order =
        stable_order_in_segments(first_keys, whole, reference_order<Key>{false});
    expect_same_bits(keys.to_host(), gather(first_keys, order), "keys");
    expect_same_values(values.to_host(), gather(first_values, order));
  }
  EXPECT_EQ(allocator.allocations, 3)
      << "one allocation per call, and one more for a single segment of radix keys, which the "
         "radix sort takes where it is the whole input (README, segmented sort)";
  EXPECT_EQ(allocator.deallocations, allocator.allocations);
  EXPECT_EQ(allocator.last_stream, stream);
  EXPECT_EQ(gpusort::cached_memory_bytes(), pool_before) << "gpusort's own pool was used";
  cudaFreeHost(host_keys);
  cudaFreeHost(host_values);
  GPUSORT_TEST_CUDA(cudaStreamDestroy(stream));
}

TEST_F(SegmentedSortPairs, AnAllocationFailureLeavesKeysAndValuesAsTheyWere) {
  using Key = std::uint32_t;
  splitmix64 random(62);
  const segment_layout layout = lay_out(draw_sizes(segment_sizes::power_law, 100003, random),
                                        offsets_form::offsets, random);
  const std::vector<Key> input = make_keys<Key>(layout.count, distribution::uniform, 63);
  device_array<Key> keys(input);
  device_array<std::uint32_t> values(positions(layout.count));
  const device_offsets<int> offsets(layout);
  refusing_allocator allocator;
  EXPECT_THROW(gpusort::stable_segmented_sort_by_key(gpusort::par.with_allocator(allocator),
                                                     keys.begin(), keys.end(), values.begin(),
                                                     offsets.begins.begin(), offsets.begins.end()),
               gpusort::error);
  EXPECT_EQ(keys.to_host(), input);
  EXPECT_EQ(values.to_host(), positions(layout.count));
}

// ---- Bad input -------------------------------------------------------------------------------

// Offsets with one bad segment among good ones of every sorter: nothing sorted, keys and
// values exactly as they were, the report at the next check (once); then a good call works.
void expect_bad_offsets_leave_pairs_alone(const std::vector<int>& begins,
                                          const std::vector<int>& ends, std::size_t count,
                                          bool stable, const char* what) {
  SCOPED_TRACE(what);
  using Key = std::uint32_t;
  const std::vector<Key> input = make_keys<Key>(count, distribution::few_distinct, 70);
  device_array<Key> keys(input);
  device_array<std::uint32_t> values(positions(count));
  device_array<int> device_begins(begins), device_ends(ends);
  if (ends.empty() && stable)
    gpusort::stable_segmented_sort_by_key(gpusort::par, keys.begin(), keys.end(), values.begin(),
                                          device_begins.begin(), device_begins.end());
  else if (ends.empty())
    gpusort::segmented_sort_by_key(gpusort::radix, keys.begin(), keys.end(), values.begin(),
                                   device_begins.begin(), device_begins.end());
  else if (stable)
    gpusort::stable_segmented_sort_by_key(gpusort::par, keys.begin(), keys.end(), values.begin(),
                                          device_begins.begin(), device_ends.begin(),
                                          ends.size());
  else
    gpusort::segmented_sort_by_key(gpusort::bucket_bitonic, keys.begin(), keys.end(),
                                   values.begin(), device_begins.begin(), device_ends.begin(),
                                   ends.size());
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_THROW(gpusort::check_segmented_sorts(), gpusort::error);
  EXPECT_NO_THROW(gpusort::check_segmented_sorts()) << "the report is given once";
  expect_same_bits(keys.to_host(), input, "keys after a call with bad offsets");
  expect_same_values(values.to_host(), positions(count));

  SCOPED_TRACE("a good call afterwards");
  splitmix64 random(count);
  const segment_layout layout = lay_out(draw_sizes(segment_sizes::power_law, count, random),
                                        offsets_form::offsets, random, false);
  const device_offsets<int> good(layout);
  gpusort::stable_segmented_sort_by_key(gpusort::par, keys.begin(), keys.end(), values.begin(),
                                        good.begins.begin(), good.begins.end());
  expect_stable_result(layout, keys.to_host(), values.to_host(), input,
                       stable_order_in_segments(input, layout, reference_order<Key>{false}));
}

TEST_F(SegmentedSortPairs, BadOffsetsLeaveKeysAndValuesExactlyAsTheyWere) {
  const std::size_t count = 40000;
  // Back to back: segments of every sorter up to 25624 keys.
  std::vector<int> offsets{0};
  for (int size : {0, 1, 2, 17, 33, 64, 65, 1089, 4353, 20000})
    offsets.push_back(offsets.back() + size);
  {
    std::vector<int> decreasing = offsets;
    decreasing.push_back(decreasing.back() - 1);
    decreasing.push_back(int(count));
    expect_bad_offsets_leave_pairs_alone(decreasing, {}, count, true, "decreasing offsets");
    expect_bad_offsets_leave_pairs_alone(decreasing, {}, count, false,
                                         "decreasing offsets, sort_by_key");
  }
  {
    std::vector<int> past_the_end = offsets;
    past_the_end.push_back(int(count) + 1);
    expect_bad_offsets_leave_pairs_alone(past_the_end, {}, count, true,
                                         "the last offset past the keys' end");
  }
  {
    std::vector<int> begins(offsets.begin(), offsets.end() - 1);
    std::vector<int> ends(offsets.begin() + 1, offsets.end());
    std::reverse(begins.begin(), begins.end());
    std::reverse(ends.begin(), ends.end());
    begins.push_back(30000);  // a gap before it, and past the end
    ends.push_back(int(count) + 5);
    expect_bad_offsets_leave_pairs_alone(begins, ends, count, true,
                                         "begins and ends: an end past the keys' end");
    ends.back() = 29999;
    expect_bad_offsets_leave_pairs_alone(begins, ends, count, false,
                                         "begins and ends: an end before its begin");
    ends.back() = 30001;
    begins.front() = -2;
    expect_bad_offsets_leave_pairs_alone(begins, ends, count, true,
                                         "begins and ends: a negative begin");
  }
}

TEST_F(SegmentedSortPairs, OffsetsInHostMemoryAreRefusedBeforeAnythingRuns) {
  using Key = std::uint32_t;
  const std::vector<Key> input = make_keys<Key>(5000, distribution::uniform, 71);
  device_array<Key> keys(input);
  device_array<std::uint32_t> values(positions(input.size()));
  const std::vector<int> host_offsets{0, 2000, 5000};
  try {
    gpusort::stable_segmented_sort_by_key(gpusort::par, keys.begin(), keys.end(), values.begin(),
                                          host_offsets.data(),
                                          host_offsets.data() + host_offsets.size());
    ADD_FAILURE() << "expected gpusort::error for offsets in host memory";
  } catch (const gpusort::error& e) {
    EXPECT_NE(std::string(e.what()).find("host memory"), std::string::npos) << e.what();
  }
  EXPECT_THROW(gpusort::segmented_sort_by_key(gpusort::radix, keys.begin(), keys.end(),
                                              values.begin(), host_offsets.data(),
                                              host_offsets.data() + 1, 2),
               gpusort::error);
  EXPECT_EQ(keys.to_host(), input);
  EXPECT_EQ(values.to_host(), positions(input.size()));
}

TEST_F(SegmentedSortPairs, ZeroSegmentsEmptyRangesAndOverlappingRanges) {
  using Key = std::uint32_t;
  const std::vector<Key> input = make_keys<Key>(3000, distribution::uniform, 72);
  device_array<Key> keys(input);
  device_array<std::uint32_t> values(positions(input.size()));
  device_array<int> offsets(std::vector<int>{0, 0, 3000});
  // Zero segments: no offsets, one offset, a count of 0.
  gpusort::segmented_sort_by_key(gpusort::par, keys.begin(), keys.end(), values.begin(),
                                 offsets.begin(), offsets.begin());
  gpusort::stable_segmented_sort_by_key(gpusort::par, keys.begin(), keys.end(), values.begin(),
                                        offsets.begin(), offsets.begin() + 1);
  gpusort::segmented_sort_by_key(gpusort::radix, keys.begin(), keys.end(), values.begin(),
                                 offsets.begin(), offsets.begin() + 1, 0u);
  // Empty key ranges (null pointers too) and one key, whatever the segments.
  Key* no_keys = nullptr;
  std::uint32_t* no_values = nullptr;
  gpusort::stable_segmented_sort_by_key(gpusort::par, no_keys, no_keys, no_values,
                                        offsets.begin(), offsets.begin() + 2);
  gpusort::segmented_sort_by_key(gpusort::par, keys.begin(), keys.begin() + 1, values.begin(),
                                 offsets.begin(), offsets.begin() + 2);
  // Only empty segments.
  gpusort::stable_segmented_sort_by_key(gpusort::par, keys.begin(), keys.end(), values.begin(),
                                        offsets.begin(), offsets.begin() + 2);
  EXPECT_EQ(keys.to_host(), input);
  EXPECT_EQ(values.to_host(), positions(input.size()));
  // Keys and values that overlap are refused, before anything runs.
  EXPECT_THROW(gpusort::segmented_sort_by_key(gpusort::par, keys.begin(), keys.begin() + 2000,
                                              keys.begin() + 1000, offsets.begin(),
                                              offsets.end()),
               gpusort::error);
  EXPECT_EQ(keys.to_host(), input);
}

}  // namespace
}  // namespace gpusort::test
