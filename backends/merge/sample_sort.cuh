// The comparison sort of large inputs of wide keys as a sample sort: splitters from a sorted
// sample cut the keys into buckets of about three quarters of a tile each
// (sample_classify.cuh gives each key its bucket), a stable radix sort of the bucket numbers
// moves the keys into their buckets (the radix backend's one-sweep passes, the keys riding as
// its values: one pass per 8 bits of bucket number), and one block sorts each bucket (the
// segmented sort). A key is then read about four times and written three, where the merge
// passes move it log2(n / tile) times: for keys of 8 and 16 bytes, from a few million keys
// on, the sample sort is the faster (bench/results/NOTES.md, 2026-11-30).
//
// Keys that fill several buckets' worth of the sample (few distinct keys, or one frequent
// key) repeat a splitter; the bucket between two equal splitters, empty by the search, takes
// the keys equal to them instead and is not sorted at all: its keys are equal and the scatter
// kept them in input order.
//
// Stable: the scatter keeps input order within a bucket and the bucket sort is stable; equal
// keys share a bucket. A comparator that is no strict weak ordering still puts each key in
// exactly one bucket, so the output is a permutation of the input.
#pragma once

#include <gpusort/functional.cuh>
#include <gpusort/segmented_sort_request.cuh>
#include <gpusort/sort_request.cuh>
#include "../common/kernel_setup.cuh"
#include "../common/lent_block.cuh"
#include "../common/pick_samples.cuh"
#include "../common/resident_grid.cuh"
#include "../radix/dispatch.cuh"
#include "../segmented/dispatch.cuh"
#include "sample_classify.cuh"
#include "shapes.cuh"
#include "splitter_tree.cuh"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace gpusort::backends::merge {

// Whether Tuning names the radix tuning of the sample sort's scatter (no name: no sample sort).
template <class Tuning, class = void>
struct names_sample_scatter : std::false_type {};
template <class Tuning>
struct names_sample_scatter<Tuning, std::void_t<typename Tuning::sample_sort_scatter_tuning>>
    : std::true_type {};

// The fewest keys Tuning sorts by sampling for keys of Key's size (0: never).
template <class Tuning, class Key>
constexpr long long sample_sort_min_keys() {
  if constexpr (!names_sample_scatter<Tuning>::value || sizeof(Key) < 8 || sizeof(Key) > 16)
    return 0;
  else
    return sizeof(Key) == 8 ? Tuning::knobs.sample_sort_min_keys_8_byte_keys
                            : Tuning::knobs.sample_sort_min_keys;
}

// Whether the sample sort is compiled for Key (keys without values only, so far).
template <class Tuning, class Key>
constexpr bool sample_sort_compiled() {
  return sample_sort_min_keys<Tuning, Key>() > 0;
}

// How n keys are split: `buckets` of about the knobs' share of a tile each (at most 2^16 of
// them: larger ones past that, which the segmented sort's multi-block path takes), numbered
// in a tree of 2^log_buckets (the buckets past `buckets` stay empty), from a sample of
// samples_per_bucket keys per bucket.
struct sample_plan {
  std::size_t buckets;
  int log_buckets;
  std::size_t samples_per_bucket;
  std::size_t samples;
};

inline constexpr int most_log_buckets = 16;  // bucket numbers are u16

template <class Tuning, class Key>
sample_plan plan_sample_sort(std::size_t n) {
  constexpr auto& knobs = Tuning::knobs;
  const std::size_t bucket_keys = std::size_t(merge_shape<Tuning, Key>::tile_items) *
                                  std::size_t(knobs.sample_sort_bucket_percent) / 100;
  sample_plan plan{};
  plan.buckets = (n + bucket_keys - 1) / bucket_keys;
  if (plan.buckets < 2) plan.buckets = 2;
  if (plan.buckets > (std::size_t(1) << most_log_buckets))
    plan.buckets = std::size_t(1) << most_log_buckets;
  while ((std::size_t(1) << plan.log_buckets) < plan.buckets) ++plan.log_buckets;
  plan.samples_per_bucket = std::size_t(knobs.sample_sort_samples_per_bucket);
  plan.samples = plan.buckets * plan.samples_per_bucket;
  return plan;
}

// Whether n keys are sorted by sampling: within the knobs' range, with a sample smaller than
// the input.
template <class Tuning, class Key>
bool takes_sample_sort(std::size_t n) {
  constexpr long long min_keys = sample_sort_min_keys<Tuning, Key>();
  if constexpr (min_keys == 0) {
    return false;
  } else {
    constexpr long long max_keys = Tuning::knobs.sample_sort_max_keys;
    if (n < std::size_t(min_keys) || (max_keys > 0 && n > std::size_t(max_keys))) return false;
    const sample_plan plan = plan_sample_sort<Tuning, Key>(n);
    return plan.samples < n;
  }
}

// Splitter r of the plan: sample (r + 1) x samples_per_bucket for r < buckets - 1, the largest
// sample past those (the tree's buckets past `buckets` stay empty).
template <class Key>
__device__ __forceinline__ const Key& splitter_of_rank(const Key* sorted_samples,
                                                       const sample_plan& plan, std::size_t rank) {
  return sorted_samples[rank + 1 < plan.buckets ? (rank + 1) * plan.samples_per_bucket
                                                : plan.samples - 1];
}

// The splitter tree from the sorted sample, stored as the classify reads it (splitter_tree.cuh,
// top_levels at the top; padding slots hold the largest sample), and the buckets of equal keys:
// bucket b (0 < b < 2^log_buckets - 1) between two equal splitters, which would stay empty,
// takes the keys equal to splitter b instead (equal_keys[b] = 1, *any_equal = 1).
template <class Key, class Less>
__global__ void build_splitter_tree(const Key* sorted_samples, sample_plan plan, int top_levels,
                                    Key* tree, std::uint8_t* equal_keys, unsigned* any_equal,
                                    Less less) {
  const int thread = int(blockIdx.x * blockDim.x + threadIdx.x);
  if (thread < stored_tree_slots(plan.log_buckets, top_levels)) {
    const int node = node_of_slot(thread, plan.log_buckets, top_levels);
    tree[thread] = splitter_of_rank(
        sorted_samples, plan,
        node < 0 ? plan.buckets : std::size_t(splitter_of_node(node, plan.log_buckets)));
  }
  const int bucket = thread;
  if (bucket < (1 << plan.log_buckets)) {
    const bool equal = bucket > 0 && bucket < (1 << plan.log_buckets) - 1 &&
                       !less(splitter_of_rank(sorted_samples, plan, bucket - 1),
                             splitter_of_rank(sorted_samples, plan, bucket));
    equal_keys[bucket] = equal ? 1 : 0;
    if (equal) *any_equal = 1;
  }
}

// The first of `sorted_buckets` not less than `bucket`.
template <class Bucket>
__device__ std::size_t first_of_bucket(const Bucket* sorted_buckets, std::size_t n, int bucket) {
  std::size_t low = 0, high = n;
  while (low < high) {
    const std::size_t middle = low + (high - low) / 2;
    if (int(sorted_buckets[middle]) < bucket)
      low = middle + 1;
    else
      high = middle;
  }
  return low;
}

// Each bucket's keys among those sorted by bucket, as segments for the segmented sort: a bucket
// of equal keys as an empty segment (the scatter left its keys in input order: sorted, stably).
template <class Bucket>
__global__ void find_bucket_segments(const Bucket* sorted_buckets, std::size_t n,
                                     int bucket_count, const std::uint8_t* equal_keys,
                                     std::size_t* begins, std::size_t* ends) {
  const int bucket = int(blockIdx.x * blockDim.x + threadIdx.x);
  if (bucket >= bucket_count) return;
  const std::size_t begin = first_of_bucket(sorted_buckets, n, bucket);
  begins[bucket] = begin;
  ends[bucket] = equal_keys[bucket] != 0 ? begin : first_of_bucket(sorted_buckets, n, bucket + 1);
}

// The most temporary memory the merge passes take for `count` keys (dispatch.cuh's
// sort_in_tiles: a second buffer of keys, the split samples, one split per merge block), with
// room to spare: the bound of the block lent to the sample's sort.
template <class Key>
constexpr std::size_t sample_sort_bytes_at_most(std::size_t count) {
  return 2 * count * sizeof(Key) + count * sizeof(std::size_t) / 64 + 64 * 1024;
}

// Sorts the request's keys by sampling where takes_sample_sort says so: returns whether it
// did. sort_samples(keys, count, allocator) sorts a sample in temporary memory (the merge
// passes), taking its own temporary memory, at most sample_sort_bytes_at_most<Key>(count),
// from allocator.
template <class Tuning, class Key, class Compare, bool Stable, class SortSamples>
bool sort_by_sampling(const sort_request<Key, no_values, Compare, Stable>& request,
                      const SortSamples& sort_samples) {
  const std::size_t n = request.count;
  if (!takes_sample_sort<Tuning, Key>(n)) return false;
  if constexpr (sample_sort_compiled<Tuning, Key>()) {
    using bucket_t = std::uint16_t;
    using scatter_tuning = typename Tuning::sample_sort_scatter_tuning;
    constexpr int classify_threads = Tuning::knobs.sample_sort_classify_threads;
    constexpr int classify_items = Tuning::knobs.sample_sort_classify_items_per_thread;
    const cudaStream_t stream = request.stream;
    const sample_plan plan = plan_sample_sort<Tuning, Key>(n);
    const int bucket_count = 1 << plan.log_buckets;
    // A tree at most one level deeper than the large top: that top staged in shared memory;
    // a deeper one: a small top, which leaves L1 the rows below it (H200, 2^24 16-byte keys,
    // 14 levels, the classify in the whole sort: 11 levels staged in 48 KB 2402 us, 8 in 4 KB
    // 2156; at 2^22, 12 levels: 677 and 686; bench/results/NOTES.md).
    constexpr int large_top_bytes = Tuning::knobs.sample_sort_staged_tree_bytes;
    constexpr int small_top_bytes = Tuning::knobs.sample_sort_deep_tree_staged_bytes;
    const bool large_top =
        plan.log_buckets <= staged_tree_levels<Key, large_top_bytes>() + 1;
    const int top_levels = large_top ? staged_tree_levels<Key, large_top_bytes>()
                                     : staged_tree_levels<Key, small_top_bytes>();
    const int tree_slots = stored_tree_slots(plan.log_buckets, top_levels);

    // Everything is allocated at once, before the input is touched: this sort's buffers and
    // one block that the sorts it calls (the sample's, the scatter's, the buckets') each
    // take in turn, sized for the largest of them. One allocation, so that an allocator
    // that hands out one block at a time serves this sort as it serves the others.
    const segmented::segmented_layout<Tuning, Key, no_values> buckets_layout(n, bucket_count);
    const radix::onesweep_layout<scatter_tuning, bucket_t, Key> scatter_layout(n);
    std::size_t lent_bytes = sample_sort_bytes_at_most<Key>(plan.samples);
    if (scatter_layout.total_bytes > lent_bytes) lent_bytes = scatter_layout.total_bytes;
    if (buckets_layout.total_bytes > lent_bytes) lent_bytes = buckets_layout.total_bytes;
    storage_plan layout;
    const std::size_t samples_at = layout.reserve<Key>(plan.samples);
    const std::size_t tree_at = layout.reserve<Key>(tree_slots);
    const std::size_t buckets_at = layout.reserve<bucket_t>(n);
    const std::size_t equal_keys_at = layout.reserve<std::uint8_t>(bucket_count);
    const std::size_t any_equal_at = layout.reserve<unsigned>(1);
    const std::size_t begins_at = layout.reserve<std::size_t>(bucket_count);
    const std::size_t ends_at = layout.reserve<std::size_t>(bucket_count);
    const std::size_t lent_at = layout.reserve_bytes(lent_bytes);
    temporary_storage storage(request.allocator, layout.total_bytes(), stream);
    Key* const samples = storage.at<Key>(samples_at);
    Key* const tree = storage.at<Key>(tree_at);
    bucket_t* const buckets = storage.at<bucket_t>(buckets_at);
    std::uint8_t* const equal_keys = storage.at<std::uint8_t>(equal_keys_at);
    unsigned* const any_equal = storage.at<unsigned>(any_equal_at);
    std::size_t* const begins = storage.at<std::size_t>(begins_at);
    std::size_t* const ends = storage.at<std::size_t>(ends_at);
    lent_block inner_storage(storage.at<char>(lent_at), lent_bytes);
    const allocator_ref inner_allocator(inner_storage);

    constexpr int small_threads = 256;
    pick_samples<<<unsigned(tile_count(plan.samples, small_threads)), small_threads, 0,
                   stream>>>(request.keys, n, plan.samples, samples);
    detail::check_launch("sample sort: pick_samples");
    sort_samples(samples, plan.samples, inner_allocator);
    detail::check_cuda(cudaMemsetAsync(any_equal, 0, sizeof(unsigned), stream),
                       "sample sort: clearing the flag of equal splitters");
    const int tree_threads = tree_slots > bucket_count ? tree_slots : bucket_count;
    build_splitter_tree<<<unsigned(tile_count(tree_threads, small_threads)), small_threads, 0,
                          stream>>>(samples, plan, top_levels, tree, equal_keys, any_equal,
                                    request.comp);
    detail::check_launch("sample sort: build_splitter_tree");

    const auto classify = [&](auto top_bytes) {
      constexpr int staged_bytes = decltype(top_bytes)::value;
      constexpr auto kernel =
          classify_keys<classify_threads, classify_items, staged_bytes, bucket_t, Key, Compare>;
      kernel<<<resident_grid<kernel, classify_threads, staged_bytes>(
                   tile_count(n, classify_threads * classify_items)),
               classify_threads, staged_tree_bytes<Key, staged_bytes>(plan.log_buckets),
               stream>>>(request.keys, n, tree, plan.log_buckets, equal_keys, any_equal,
                         buckets, request.comp);
    };
    if (large_top)
      classify(std::integral_constant<int, large_top_bytes>{});
    else
      classify(std::integral_constant<int, small_top_bytes>{});
    detail::check_launch("sample sort: classify_keys");

    // The scatter: a stable radix sort of the bucket numbers, the keys their values.
    radix::onesweep_sort<scatter_tuning>(sort_request<bucket_t, Key, less<>, true>{
        buckets, request.keys, n, less<>{}, stream, inner_allocator});
    find_bucket_segments<<<unsigned(tile_count(bucket_count, small_threads)), small_threads, 0,
                           stream>>>(buckets, n, bucket_count, equal_keys, begins, ends);
    detail::check_launch("sample sort: find_bucket_segments");

    // (Stable either way: the segmented sort always is; one instantiation for both calls.)
    using buckets_request = segmented_sort_request<Key, no_values, std::size_t, Compare, true>;
    segmented::sort<Tuning>(buckets_request{request.keys, nullptr, n, begins, ends,
                                            std::size_t(bucket_count), request.comp, stream,
                                            inner_allocator});
  }
  return true;
}

}  // namespace gpusort::backends::merge
