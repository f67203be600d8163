// The keys-only one-sweep tile for large inputs: more keys per thread (the tuning's
// large_input_items_per_thread, within its large_input_exchange_bytes of shared memory), each
// read again from global memory when the tile is staged instead of held in registers through
// the rank, which the extra keys would not fit. A tile's own work (its prologue, the scan of
// its digit counts, the look-back over 256 digits: about a third of a pass's instructions for
// u32 keys) is then spread over more keys; where a pass is only a few waves of tiles, fewer
// and longer tiles cost more than that saves, hence the sizes it starts at (floats, whose
// tile compiles two ways to take its digits and spills more with more keys, from larger
// ones). Taken only where the device still holds the tuning's blocks per SM of it, so that no
// GPU loses a resident block to it.
#pragma once

#include <gpusort/detail/per_device.cuh>
#include <gpusort/error.cuh>
#include "../common/kernel_setup.cuh"
#include "kernels.cuh"

#include <cuda_runtime_api.h>

#include <cstddef>

namespace gpusort::backends::radix {

// Tuning with its large-input tile as the keys-only tile.
template <class Tuning>
struct large_input_tuning {
  static constexpr auto knobs = [] {
    auto k = Tuning::knobs;
    k.items_per_thread = k.large_input_items_per_thread;
    k.exchange_bytes = k.large_input_exchange_bytes;
    k.held_key_bytes = 0;
    k.large_input_items_per_thread = 0;
    return k;
  }();
};

// Whether Tuning's large-input tile holds more keys of Key than its own keys-only tile: only
// then is it compiled. Never for pairs (they have tiles of their own) nor for narrow keys,
// which are counted, not moved, at such sizes (counting_sort.cuh).
template <class Tuning, class Key, class Value>
constexpr bool has_large_input_tile() {
  if constexpr (has_values_v<Value> || is_counted_key_v<Key> ||
                Tuning::knobs.large_input_items_per_thread == 0)
    return false;
  else
    return radix_shape<large_input_tuning<Tuning>, Key, Value>::tile_items >
           radix_shape<Tuning, Key, Value>::tile_items;
}

// The fewest keys for which a sort of Key takes the large-input tile: floating-point keys
// (whose digits may come from sort bits) from their own threshold.
template <class Tuning, class Key>
constexpr std::size_t large_input_min_keys() {
  return radix_key_canonicalises_v<Key> ? Tuning::knobs.large_input_min_float_keys
                                        : Tuning::knobs.large_input_min_keys;
}

// Whether the current device holds Tuning's onesweep_blocks_per_multiprocessor large-input
// tiles of Key per SM. sm_90's 227 KB: every key type. sm_80's 164 KB: three of ~52 KB (u32,
// i32, u64, i64) but only two of ~55 KB (f32, f64, with their kept digits), which keep the
// ordinary tile; sm_86/89's 100 KB: none. Asked once per device.
template <class Tuning, class Key, class Value>
bool large_input_tiles_resident() {
  using large = large_input_tuning<Tuning>;
  using shape = radix_shape<large, Key, Value>;
  constexpr auto kernel = onesweep_pass<large, Key, Value>;
  static detail::per_device<bool> resident;
  return resident.get(detail::current_device(), [](int) {
    // The occupancy query counts dynamic shared memory only once the kernel may take it.
    const int shared_bytes =
        allowed_dynamic_shared_bytes<kernel, typename onesweep_tile<large, Key, Value>::storage_t>(
            "radix sort: allowing the large-input tile its shared memory");
    int blocks = 0;
    detail::check_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                           &blocks, kernel, shape::block_threads, std::size_t(shared_bytes)),
                       "radix sort: querying the large-input tile's occupancy");
    return blocks >= shape::onesweep_blocks;
  });
}

}  // namespace gpusort::backends::radix
