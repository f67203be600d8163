// The keys-only one-sweep tile for wide keys at large sizes: the tuning's
// wide_key_exchange_bytes of shared memory instead of its exchange_bytes, so that a tile of
// 8-byte keys holds more of them (fewer tiles, and each tile's look-back and rank amortised
// over more keys). Taken only where the device still holds the tuning's blocks per SM of it:
// an SM with less shared memory than sm_90's would lose a resident block for a few per cent.
#pragma once

#include <gpusort/detail/per_device.cuh>
#include <gpusort/error.cuh>
#include "../common/kernel_setup.cuh"
#include "kernels.cuh"

#include <cuda_runtime_api.h>

namespace gpusort::backends::radix {

// Tuning with its wide-key exchange as the keys-only exchange.
template <class Tuning>
struct wide_key_tuning {
  static constexpr auto knobs = [] {
    auto k = Tuning::knobs;
    k.exchange_bytes = k.wide_key_exchange_bytes;
    k.wide_key_exchange_bytes = 0;
    return k;
  }();
};

// Whether Tuning's wide-key exchange gives a keys-only tile of Key more keys than its own
// exchange does: only then is the wide tile compiled (sm_90's knobs: 8-byte keys; 4-byte
// keys already have their items_per_thread, and pairs have an exchange of their own).
template <class Tuning, class Key, class Value>
constexpr bool has_wide_key_tile() {
  if constexpr (has_values_v<Value> ||
                Tuning::knobs.wide_key_exchange_bytes <= Tuning::knobs.exchange_bytes)
    return false;
  else
    return radix_shape<wide_key_tuning<Tuning>, Key, Value>::tile_items >
           radix_shape<Tuning, Key, Value>::tile_items;
}

// Whether the current device holds Tuning's onesweep_blocks_per_multiprocessor wide tiles of
// Key per SM (sm_90's 227 KB: yes; sm_80's 163 KB, and sm_75-89 with less: not for 8-byte
// keys, which keep the narrower tile and its occupancy there). Asked once per device.
template <class Tuning, class Key, class Value>
bool wide_key_tiles_resident() {
  using wide = wide_key_tuning<Tuning>;
  using shape = radix_shape<wide, Key, Value>;
  constexpr auto kernel = onesweep_pass<wide, Key, Value>;
  static detail::per_device<bool> resident;
  return resident.get(detail::current_device(), [](int) {
    // The occupancy query counts dynamic shared memory only once the kernel may take it.
    const int shared_bytes =
        allowed_dynamic_shared_bytes<kernel, typename onesweep_tile<wide, Key, Value>::storage_t>(
            "radix sort: allowing the wide-key tile its shared memory");
    int blocks = 0;
    detail::check_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                           &blocks, kernel, shape::block_threads, std::size_t(shared_bytes)),
                       "radix sort: querying the wide-key tile's occupancy");
    return blocks >= shape::onesweep_blocks;
  });
}

}  // namespace gpusort::backends::radix
