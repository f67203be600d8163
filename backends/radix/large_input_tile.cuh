// The one-sweep tiles for large inputs: more keys per thread than the ordinary tile, each
// read again from global memory when the tile is staged instead of held in registers through
// the rank, which the extra keys would not fit. A tile's own work (its prologue, the scan of
// its digit counts, the look-back over 256 digits: about a third of a pass's instructions for
// u32 keys) is then spread over more keys; where a pass is only a few waves of tiles, fewer
// and longer tiles cost more than that saves, hence the sizes they start at.
// - Keys only (the tuning's large_input_items_per_thread, within large_input_exchange_bytes,
//   or large_input_wide_key_exchange_bytes for keys wider than 4 bytes, which gained only from
//   fewer of them per thread): every key type but narrow ones; floats, whose tile compiles two
//   ways to take its digits and spills more with more keys, from larger sizes.
// - Pairs (large_input_items_per_thread_with_values): 4-byte integer keys with 4-byte values
//   only, the values staged beside the keys and read straight into their exchange before the
//   look-back (a value's first read is a DRAM read, which only the look-back's waiting hides;
//   u64+u32 pairs gained nothing from more keys per tile, bench/results/NOTES.md). Its
//   exchange is larger than every GPU gives a block (sm_90: two of ~82 KB per SM).
// Taken only where the device still holds the tuning's blocks per SM of it, so that no GPU
// loses a resident block to it.
#pragma once

#include <gpusort/detail/device_facts.cuh>
#include <gpusort/detail/per_device.cuh>
#include <gpusort/error.cuh>
#include "../common/kernel_setup.cuh"
#include "kernels.cuh"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <type_traits>

namespace gpusort::backends::radix {

// Tuning with its large-input tiles for Key as its tiles: keys only and pairs.
template <class Tuning, class Key>
struct large_input_tuning {
  static constexpr auto knobs = [] {
    auto k = Tuning::knobs;
    k.items_per_thread = k.large_input_items_per_thread;
    k.exchange_bytes = sizeof(Key) <= 4 ? k.large_input_exchange_bytes
                                        : k.large_input_wide_key_exchange_bytes;
    k.held_key_bytes = 0;
    if (k.large_input_look_back_width > 0) k.look_back_width = k.large_input_look_back_width;
    k.items_per_thread_with_values = k.large_input_items_per_thread_with_values;
    k.exchange_bytes_with_values = k.large_input_exchange_bytes_with_values;
    k.pairs_read_when_staged = true;
    k.large_input_items_per_thread = 0;
    k.large_input_items_per_thread_with_values = 0;
    return k;
  }();
};

// Whether Tuning's tiles may take more shared memory than every GPU gives a block
// (kernel_setup.cuh's every_gpu_shared_bytes): only the large-input tiles, taken only where
// the device is found to hold them (large_input_tiles_resident). Past that limit any other
// tile does not compile.
template <class Tuning>
inline constexpr bool shared_bytes_checked_on_device = false;
template <class Tuning, class Key>
inline constexpr bool shared_bytes_checked_on_device<large_input_tuning<Tuning, Key>> = true;

// Whether Tuning has a large-input tile for Key (and Value) that holds more of them than its
// ordinary tile: only then is it compiled. Never for narrow keys alone, which are counted,
// not moved, at such sizes (counting_sort.cuh); for pairs only 4-byte integer keys with 4-byte
// values staged beside them, the one kind measured to gain. A tuning turns a tile off by
// leaving its item count or its exchange at 0.
template <class Tuning, class Key, class Value>
constexpr bool has_large_input_tile() {
  // The large shape is only named up front: it is built only where it applies (its exchange
  // need not hold a wide value). values_beside_keys holds only for integer keys.
  using ordinary = radix_shape<Tuning, Key, Value>;
  using large = radix_shape<large_input_tuning<Tuning, Key>, Key, Value>;
  constexpr auto knobs = large_input_tuning<Tuning, Key>::knobs;
  if constexpr (has_values_v<Value>) {
    if constexpr (knobs.items_per_thread_with_values == 0 ||
                  knobs.exchange_bytes_with_values == 0 || sizeof(Key) != 4 || sizeof(Value) != 4)
      return false;
    else
      return large::values_beside_keys && large::tile_items > ordinary::tile_items;
  } else if constexpr (is_counted_key_v<Key> || knobs.items_per_thread == 0 ||
                       knobs.exchange_bytes == 0) {
    return false;
  } else {
    return large::tile_items > ordinary::tile_items;
  }
}

// The fewest keys for which a sort of Key (and Value) takes the large-input tile:
// floating-point keys (whose digits may come from sort bits) and pairs from their own
// thresholds.
template <class Tuning, class Key, class Value = no_values>
constexpr std::size_t large_input_min_keys() {
  if constexpr (has_values_v<Value>)
    return Tuning::knobs.large_input_min_keys_with_values;
  else
    return radix_key_canonicalises_v<Key> ? Tuning::knobs.large_input_min_float_keys
                                          : Tuning::knobs.large_input_min_keys;
}

// Whether the current device holds Tuning's onesweep_blocks_per_multiprocessor large-input
// tiles of Key (and Value) per SM. sm_90's 227 KB: every key type, and two pairs' tiles of
// ~82 KB. sm_80's 164 KB: three keys-only tiles of ~52 KB (u32, i32, u64, i64) but only two
// of ~55 KB (f32, f64, with their kept digits), which keep the ordinary tile, and one pairs'
// tile; sm_86/89's 100 KB: none. Asked once per device.
template <class Tuning, class Key, class Value>
bool large_input_tiles_resident() {
  using large = large_input_tuning<Tuning, Key>;
  using shape = radix_shape<large, Key, Value>;
  using storage_t = typename onesweep_tile<large, Key, Value>::storage_t;
  constexpr auto kernel = onesweep_pass<large, Key, Value>;
  static detail::per_device<bool> resident;
  return resident.get(detail::current_device(), [](int device) {
    // A block may not opt in to more than this: asking more fails rather than answering 0.
    if (int(sizeof(storage_t)) > detail::facts_of_device(device).shared_bytes_per_block_optin)
      return false;
    // The occupancy query counts dynamic shared memory only once the kernel may take it.
    const int shared_bytes =
        allowed_dynamic_shared_bytes<kernel, storage_t, shared_bytes_checked_on_device<large>>(
        "radix sort: allowing the large-input tile its shared memory");
    int blocks = 0;
    detail::check_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                           &blocks, kernel, shape::block_threads, std::size_t(shared_bytes)),
                       "radix sort: querying the large-input tile's occupancy");
    return blocks >= shape::onesweep_blocks;
  });
}

}  // namespace gpusort::backends::radix
