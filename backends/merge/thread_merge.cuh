// One thread's part of a merge of two sorted runs in shared memory, shared by the tile sort's
// levels (many pairs of runs per block) and the merge passes (one pair of pieces per block):
// each thread finds its own diagonal's split on the merge path (merge_path.cuh) and then
// merges a fixed number of outputs from there, one comparison per output.
#pragma once

#include "../common/bitonic_tile.cuh"  // padded
#include "merge_path.cuh"

namespace gpusort::backends::merge {

// Where position p of a block's keys lies in shared memory when each thread reads or writes
// `Items` consecutive positions: a stride that an odd Items spreads over all banks by itself
// and an even one needs the padding for.
template <int Items>
__host__ __device__ constexpr int staged(int position) {
  return Items % 2 == 1 ? position : padded(position);
}

// Shared-memory slots for a block's `positions` keys, staged as above, with room for what
// merge_from_split reads past them (up to Items positions).
template <int Items>
__host__ __device__ constexpr int merge_slots(int positions) {
  return staged<Items>(positions + Items) + 1;
}

// A run of keys in shared memory, staged as above, indexed from its first position.
template <int Items, class Key>
struct staged_run {
  const Key* keys;
  int first;

  __device__ __forceinline__ const Key& operator[](int p) const {
    return keys[staged<Items>(first + p)];
  }
};

// The `Items` outputs of the stable merge of two sorted runs that lie one after the other in
// `keys` (anything indexable by position): a = [a_begin, a_end), b = [a_end, b_end), from
// output `diagonal` on, given `split` = how many of the outputs before it come from a
// (merge_path_split). Ties take a's key. merged[i] = output diagonal + i, source[i] = its
// position minus a_begin. Outputs past the two runs are left unspecified. Returns how many of
// a's keys the outputs have used: where the next thread's split must be.
// One shared-memory load per output, the next key of the run it took from, so `keys` must be
// readable up to b_end + Items - 1, where the outputs past the runs read (merge_slots). Two
// ways to load it (H100, bench/results/NOTES.md): from a selected address into a selected key
// (branch-free: three selects and an address per output), or, with PredicatedLoads, straight
// into the key of the run it came from (a load and an increment under each predicate, fewer
// instructions between one comparison and the next). The second is faster in the tile sort of
// 4-byte keys (a tile 14.5 -> 13.2 us), the first for 8-byte keys and in the merge passes.
template <int Items, bool PredicatedLoads = false, class Keys, class Key, class Compare>
__device__ __forceinline__ int merge_from_split(const Keys& keys, int a_begin, int a_end,
                                                int b_end, int diagonal, int split,
                                                Key (&merged)[Items], int (&source)[Items],
                                                const Compare& comp) {
  int from_a = a_begin + split;
  int from_b = a_end + (diagonal - split);
  Key a_key = keys[from_a];
  Key b_key = keys[from_b];
#pragma unroll
  for (int i = 0; i < Items; ++i) {
    const bool take_a = from_a < a_end && (from_b >= b_end || !comp(b_key, a_key));
    merged[i] = take_a ? a_key : b_key;
    source[i] = (take_a ? from_a : from_b) - a_begin;
    if constexpr (PredicatedLoads) {
      if (take_a)
        a_key = keys[++from_a];
      else
        b_key = keys[++from_b];
    } else {
      from_a += take_a ? 1 : 0;
      from_b += take_a ? 0 : 1;
      const Key next = keys[take_a ? from_a : from_b];
      a_key = take_a ? next : a_key;
      b_key = take_a ? b_key : next;
    }
  }
  return from_a - a_begin;
}

// The next thread's split, where each thread's merge must end (a comparator that is no strict
// weak ordering can make them miss, and the threads would lose and duplicate keys): from the
// next lane, or for a warp's last lane from `warp_splits` (each warp's first split, written
// before a barrier that precedes this call) when `across_warps`. Every lane must call it.
template <int Threads>
__device__ __forceinline__ int next_thread_split(int split, const int* warp_splits,
                                                 bool across_warps) {
  const int thread = int(threadIdx.x);
  int next_split = __shfl_down_sync(0xffffffffu, split, 1);
  if (across_warps && thread % 32 == 31 && thread + 1 < Threads)
    next_split = warp_splits[thread / 32 + 1];
  return next_split;
}

}  // namespace gpusort::backends::merge
