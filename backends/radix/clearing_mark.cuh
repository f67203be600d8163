// Counters a kernel clears itself rather than a memset launched before it (a launch and its
// gap saved): block 0 clears them and then writes a mark, new at every launch, into a word in
// the temporary memory; every other block waits for that mark before it adds into them. Once
// every block has seen the mark, one thread puts 0 back into the word, so that a replay of the
// same launch (a CUDA graph keeps its arguments) cannot find its mark left from before.
// Blocks wait on block 0 only, which is safe where the grid is resident at once (the kernels
// that use this are launched cooperatively).
#pragma once

#include <cuda/atomic>

#include <atomic>
#include <random>

namespace gpusort::backends::radix {

struct cleared_by_block_zero {
  unsigned long long* word;  // holds `mark` once block 0 has cleared the counters
  unsigned long long mark;

  __device__ __forceinline__ cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>
  mark_word() const {
    return cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(*word);
  }

  // Block 0: clears the histograms and counters, then writes the mark.
  __device__ __forceinline__ void clear_then_mark(unsigned long long* histograms,
                                                  int histogram_count, unsigned int* counters,
                                                  int counter_count) const {
    for (int i = threadIdx.x; i < histogram_count; i += blockDim.x) histograms[i] = 0;
    for (int i = threadIdx.x; i < counter_count; i += blockDim.x) counters[i] = 0;
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) mark_word().store(mark, cuda::std::memory_order_release);
  }

  // Every block, before it first adds into the counters: until block 0's mark is in the word
  // (as a rule long before: block 0 clears first thing, the others count first).
  __device__ __forceinline__ void wait() const {
    if (threadIdx.x == 0)
      while (mark_word().load(cuda::std::memory_order_acquire) != mark) {
      }
    __syncthreads();
  }

  // One thread, once every block has waited: the word no longer holds the mark.
  __device__ __forceinline__ void forget() const {
    mark_word().store(0, cuda::std::memory_order_relaxed);
  }
};

// A mark for cleared_by_block_zero, new at every launch: a 64-bit mix of a count from a
// random start, never 0 (the word's value between launches). No earlier launch's mark equals
// it, and whatever else the temporary memory held does so with a chance of 2^-64.
inline unsigned long long next_clearing_mark() {
  static std::atomic<unsigned long long> launches{
      (static_cast<unsigned long long>(std::random_device{}()) << 32) ^ std::random_device{}()};
  // The finaliser of SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
  // generators"): a bijection, so distinct counts give distinct marks.
  unsigned long long x = launches.fetch_add(1, std::memory_order_relaxed);
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x != 0 ? x : 1;
}

}  // namespace gpusort::backends::radix
