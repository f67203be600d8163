// Pure index arithmetic of the counting sort of narrow keys (counting_kernels.cuh): how the
// keys split into 16-byte vectors, the histogram's slices and 16-bit counters, and which bin
// an output position holds. __host__ __device__ so the host tests can check it without a GPU.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gpusort::backends::radix {

// Loads and stores move 16 bytes (16 u8 or 8 u16 keys) at a time.
inline constexpr int counting_vector_bytes = 16;

// A range of keys as vector instructions see it: `head` keys before the first 16-byte
// boundary (a range may start at any element), then whole vectors, then `tail` keys.
struct vector_split {
  std::size_t head;
  std::size_t vectors;
  std::size_t tail;
};

__host__ __device__ constexpr vector_split split_into_vectors(std::uintptr_t address,
                                                              std::size_t n, int key_bytes) {
  const std::size_t keys_per_vector = std::size_t(counting_vector_bytes / key_bytes);
  const std::size_t to_boundary =
      std::size_t((counting_vector_bytes - address % counting_vector_bytes) %
                  counting_vector_bytes) /
      std::size_t(key_bytes);
  const std::size_t head = to_boundary < n ? to_boundary : n;
  const std::size_t vectors = (n - head) / keys_per_vector;
  return {head, vectors, n - head - vectors * keys_per_vector};
}

// The position of the i-th of the head and tail keys (i < head + tail).
__host__ __device__ constexpr std::size_t loose_key_position(const vector_split& split,
                                                             std::size_t i, int key_bytes) {
  const std::size_t keys_per_vector = std::size_t(counting_vector_bytes / key_bytes);
  return i < split.head ? i : split.head + split.vectors * keys_per_vector + (i - split.head);
}

// Shared-memory counters are 16 bits, two to a 32-bit word (a u16 histogram then fits one
// block). The count kernel keeps each below 2^15 between its barriers: the add that takes a
// counter from below flush_threshold to at or above it moves flush_threshold keys to the
// global count and takes them off the counter. A counter starts a step below the threshold
// and gets at most max_step_increments adds of one key in the step, so it never passes 0xFFFF
// (it never carries into its neighbour), and it ends the step below the threshold again.
inline constexpr unsigned counter_flush_threshold = 1u << 15;
inline constexpr unsigned max_step_increments = 1u << 15;

// Whether adding `added` keys to a counter that held `before` takes it across the threshold.
__host__ __device__ constexpr bool crosses_flush_threshold(unsigned before, unsigned added) {
  return before < counter_flush_threshold && before + added >= counter_flush_threshold;
}

// Where counter `counter` of a histogram of packed 16-bit counters lives.
struct counter_place {
  unsigned word;
  unsigned shift;  // 0 or 16
};
__host__ __device__ constexpr counter_place place_of_counter(unsigned counter) {
  return {counter / 2, (counter % 2) * 16};
}

// The fewest slices (2^slice_bits of them) that cut a histogram of `histogram_bytes` into
// pieces of at most `limit_bytes`; -1 where not even one counter pair per slice fits.
__host__ __device__ constexpr int histogram_slice_bits(std::size_t histogram_bytes,
                                                       std::size_t limit_bytes) {
  int bits = 0;
  while ((histogram_bytes >> bits) > limit_bytes) {
    if ((histogram_bytes >> bits) <= 4) return -1;
    ++bits;
  }
  return bits;
}

// Count blocks per slice: enough that each counts at least min_keys of the n (writing out its
// histogram is then cheap next to reading its keys), at most `most` (those resident at once).
__host__ __device__ constexpr std::size_t count_blocks_per_slice(std::size_t n,
                                                                 std::size_t min_keys,
                                                                 std::size_t most) {
  const std::size_t wanted = min_keys == 0 ? most : (n + min_keys - 1) / min_keys;
  const std::size_t blocks = wanted < most ? wanted : most;
  return blocks > 0 ? blocks : 1;
}

// The bin that holds output position `position`: the last bin b in [low, high] whose start
// is at most `position` (an empty bin starts where the next one does, so this b is never
// empty). `start(b)` gives bin b's first position; start(low) <= position is required.
template <class Start>
__host__ __device__ __forceinline__ std::size_t bin_of_position(const Start& start, std::size_t low,
                                                std::size_t high,
                                                unsigned long long position) {
  while (low < high) {
    const std::size_t middle = low + (high - low + 1) / 2;
    if (start(middle) <= position)
      low = middle;
    else
      high = middle - 1;
  }
  return low;
}

}  // namespace gpusort::backends::radix
