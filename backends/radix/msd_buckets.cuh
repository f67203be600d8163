// The mid-size radix sort by buckets: one one-sweep pass over the most significant digit that
// differs between keys moves them into one bucket per value of that digit, then one cluster
// per bucket sorts it by the lower digits in shared memory (cluster_kernels.cuh) and writes it
// back. Two reads and two writes of the keys instead of one per pass, and one launch for the
// lower passes instead of one each, whose look-back chains are what a mid-size sort waits on.
//
// Whether it can is known only on the device: the histogram pass plans it (plan_msd_buckets)
// where no bucket holds more keys than a cluster of the launch takes, and plans the LSD passes
// otherwise (skewed keys), so the choice costs no round trip to the host. The bucket launch
// then does nothing.
#pragma once

#include <gpusort/detail/device_facts.cuh>
#include <gpusort/detail/per_device.cuh>
#include <gpusort/sort_request.cuh>
#include "cluster_dispatch.cuh"
#include "cluster_kernels.cuh"
#include "dispatch.cuh"

#include <cuda_runtime_api.h>

#include <cstddef>

namespace gpusort::backends::radix {

// One cluster per bucket: bucket blockIdx.x / (cluster blocks) of the plan's msd_pass, read
// from the alternate buffer, sorted by the digits below it into the user's buffer. Nothing
// where the plan took the LSD passes.
template <class Shape, class Value>
__global__ void __launch_bounds__(Shape::block_threads, Shape::min_blocks_per_multiprocessor)
    sort_buckets_kernel(typename Shape::key_type* keys,
                        const typename Shape::key_type* bucketed_keys, Value* values,
                        const Value* bucketed_values, std::size_t n, const pass_plan* plan,
                        const std::size_t* digit_starts /* [passes][digits] */,
                        typename Shape::bits_type flip) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
  wait_for_previous_kernel();  // launched to overlap the last pass's end
  const int msd = plan->msd_pass;
  if (msd == 0) return;
  const auto cluster = cooperative_groups::this_cluster();
  const int bucket = int(blockIdx.x / cluster.num_blocks());
  const std::size_t* starts = digit_starts + std::size_t(msd) * Shape::digits;
  const std::size_t begin = starts[bucket];
  const std::size_t end = bucket + 1 < Shape::digits ? starts[bucket + 1] : n;
  const int count = int(end - begin);
  if (count == 1 && cluster.block_rank() == 0 && threadIdx.x == 0) {
    keys[begin] = bucketed_keys[begin];
    if constexpr (Shape::has_values) values[begin] = bucketed_values[begin];
  }
  if (count < 2) return;  // the whole cluster: count is the same in every block
  cluster_sort<Shape, Value>(bucketed_keys + begin, keys + begin,
                             Shape::has_values ? bucketed_values + begin : nullptr,
                             Shape::has_values ? values + begin : nullptr, count, msd, flip);
#endif
}

// The bucket step of onesweep_sort (its Buckets): clusters of `cluster_blocks` blocks of
// ClusterTiling, one per digit value.
template <class ClusterTiling, class Key, class Value>
struct cluster_buckets {
  using shape = cluster_shape<ClusterTiling, Key, Value>;
  using storage_t = cluster_storage<shape, Value>;
  static constexpr auto kernel = sort_buckets_kernel<shape, Value>;

  int cluster_blocks;
  std::size_t capacity;  // keys one cluster takes

  // The most blocks one cluster can have on the current device (0: no cluster sort here).
  static int max_blocks() {
    static detail::per_device<int> known;
    return known.get(detail::current_device(), [](int device) {
      return ask_max_cluster_blocks(device, kernel, shape::block_threads, sizeof(storage_t),
                                    shape::max_blocks);
    });
  }

  void sort(Key* keys, const Key* bucketed_keys, Value* values, const Value* bucketed_values,
            std::size_t n, typename shape::bits_type flip, const pass_plan* plan,
            const std::size_t* digit_starts, cudaStream_t stream) const {
    launch_clusters(kernel, unsigned(shape::digits), unsigned(cluster_blocks),
                    shape::block_threads, sizeof(storage_t), stream,
                    /*overlap_previous=*/true, "radix sort: sort_buckets_kernel", keys,
                    bucketed_keys, values, bucketed_values, n, plan, digit_starts, flip);
  }
};

// Sorts the request by buckets (above) where a cluster of ClusterTiling on the current device
// can take a bucket with Tuning's headroom; false, and nothing done, where not (n too large,
// or no cluster sort on this GPU). Stable: the one pass is, and so is each bucket's sort.
template <class Tuning, class ClusterTiling, class Key, class Value, class Compare, bool Stable>
bool sort_by_msd_buckets(const sort_request<Key, Value, Compare, Stable>& request) {
  using buckets_t = cluster_buckets<ClusterTiling, Key, Value>;
  using shape = typename buckets_t::shape;
  static_assert(shape::digits == radix_shape<Tuning, Key, Value>::digits,
                "the buckets are the one-sweep pass's digits");
  const int blocks = bucket_cluster_blocks(request.count, shape::digits, shape::tile_items,
                                           Tuning::knobs.bucket_headroom_percent);
  if (blocks > buckets_t::max_blocks()) return false;
  const buckets_t buckets{blocks, std::size_t(blocks) * std::size_t(shape::tile_items)};
  onesweep_sort<Tuning>(request, buckets);
  return true;
}

}  // namespace gpusort::backends::radix
