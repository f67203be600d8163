// Decoupled look-back over digit counts (Merrill & Garland's single-pass scan, one scan per
// digit, as in Adinets & Merrill's Onesweep): each tile publishes how many keys of each digit
// it holds, then adds up its predecessors' counts until it meets one that already includes
// everything before it. No separate scan kernel, and every tile waits only on tiles with a
// lower index, which started before it (tile indices are handed out in launch order), so the
// scan cannot deadlock however few blocks fit at once.
#pragma once

#include <cuda/atomic>

#include <cstdint>

namespace gpusort::backends::radix {

// One 32-bit word per (tile, digit): two status bits over a 30-bit count, written in one
// store so that a reader never sees a count without its status. Zero means "not yet".
struct digit_status {
  static constexpr std::uint32_t count_mask = (1u << 30) - 1;
  static constexpr std::uint32_t tile_count = 1u << 30;      // this tile's keys only
  static constexpr std::uint32_t prefix_count = 1u << 31;    // this tile and all before it

  __host__ __device__ static constexpr std::uint32_t pack(std::uint32_t count,
                                                          std::uint32_t kind) {
    return count | kind;
  }
  __host__ __device__ static constexpr std::uint32_t count_of(std::uint32_t word) {
    return word & count_mask;
  }
  __host__ __device__ static constexpr bool is_prefix(std::uint32_t word) {
    return (word & prefix_count) != 0;
  }
};

__device__ __forceinline__ void publish_digit_status(std::uint32_t* word, std::uint32_t count,
                                                     std::uint32_t kind) {
  cuda::atomic_ref<std::uint32_t, cuda::thread_scope_device>(*word).store(
      digit_status::pack(count, kind), cuda::std::memory_order_relaxed);
}

__device__ __forceinline__ std::uint32_t load_digit_status(std::uint32_t* word) {
  return cuda::atomic_ref<std::uint32_t, cuda::thread_scope_device>(*word).load(
      cuda::std::memory_order_relaxed);
}

// Keys of `digit` in tiles [0, tile) of this portion. `status` is [tiles][digits]. Each step
// loads the next Width predecessors' words together, then adds them up newest first until one
// includes everything before it, waiting only on the words it still needs. Where a pass is
// about one wave of tiles, most tiles walk back over many predecessors that have published
// only their own counts, one dependent load from L2 each at Width 1.
template <int Width>
__device__ __forceinline__ std::uint32_t look_back(std::uint32_t* status, int tile, int digits,
                                                   int digit) {
  const auto word_of = [&](int t) { return status + std::size_t(t) * digits + digit; };
  std::uint32_t before = 0;
  for (int newest = tile - 1; newest >= 0; newest -= Width) {
    std::uint32_t seen[Width] = {};
#pragma unroll
    for (int i = 0; i < Width; ++i)
      if (newest - i >= 0) seen[i] = load_digit_status(word_of(newest - i));
#pragma unroll
    for (int i = 0; i < Width && newest - i >= 0; ++i) {
      while (seen[i] == 0) seen[i] = load_digit_status(word_of(newest - i));
      before += digit_status::count_of(seen[i]);
      if (digit_status::is_prefix(seen[i])) return before;
    }
  }
  return before;
}

}  // namespace gpusort::backends::radix
