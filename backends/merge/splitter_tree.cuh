// The splitters of a sample sort as an implicit search tree in breadth-first (Eytzinger)
// order: node i's children are 2i + 1 and 2i + 2, so each depth of the tree is one contiguous
// row. Searched from shared memory by a warp whose lanes hold random keys, a depth's loads
// then spread over the banks; a sorted array's binary search sends the lanes, past the
// first few depths, to indices that differ by multiples of the step, one bank from a step
// of 32 (14-way conflicts on average, 3.6x the time; bench/results/NOTES.md, 2026-11-30).
#pragma once

#include <cstddef>

namespace gpusort::backends::merge {

// A tree over 2^log_buckets buckets holds 2^log_buckets - 1 splitters. The in-order index
// (the rank among the sorted splitters) of the splitter at tree node `node`.
__host__ __device__ constexpr int splitter_of_node(int node, int log_buckets) {
  int depth = 0;
  while ((2 << depth) <= node + 1) ++depth;
  const int offset = node + 1 - (1 << depth);
  return (2 * offset + 1) * (1 << (log_buckets - 1 - depth)) - 1;
}

// A tree as stored for the classify (sample_classify.cuh): its top `top_levels` levels in
// Eytzinger order, staged in shared memory, padded to 2^top_levels slots; then, where the tree
// is deeper, each of the 2^top_levels subtrees below them in a row of its own, in Eytzinger
// order within the row, 2^(log_buckets - top_levels) slots each (the last unused), so that a
// key's search below the top reads one row: one or two cache lines, where the whole tree's
// deep levels would be a line per level (H200, 2^24 16-byte keys, three levels below the
// top: 896 us for the classify; bench/results/NOTES.md).
__host__ __device__ constexpr int stored_tree_slots(int log_buckets, int top_levels) {
  return top_levels >= log_buckets ? (1 << log_buckets) - 1
                                   : (1 << top_levels) + (1 << log_buckets);
}

// The tree node stored at `slot`, or -1 for a padding slot.
__host__ __device__ constexpr int node_of_slot(int slot, int log_buckets, int top_levels) {
  if (top_levels >= log_buckets || slot < (1 << top_levels) - 1) return slot;
  if (slot < (1 << top_levels)) return -1;
  const int row_levels = log_buckets - top_levels;
  const int row = (slot - (1 << top_levels)) >> row_levels;
  const int local = (slot - (1 << top_levels)) & ((1 << row_levels) - 1);
  if (local == (1 << row_levels) - 1) return -1;
  int depth = 0;
  while ((2 << depth) <= local + 1) ++depth;
  return (1 << (top_levels + depth)) - 1 + (row << depth) + (local + 1 - (1 << depth));
}

// Loop pragmas for the device compiler only (the host compiler warns at them).
#ifdef __CUDA_ARCH__
#define GPUSORT_SPLITTER_PRAGMA(x) _Pragma(#x)
#else
#define GPUSORT_SPLITTER_PRAGMA(x)
#endif

// The search of a stored tree for Items keys at once, a depth at a time, so that the loads of
// a depth are independent. For each key: its bucket, how many splitters are not greater than
// it under `less` (equal keys share a bucket, and the buckets follow the sort's order), and
// `before`, the slot of the greatest of those splitters (-1: none). `top` holds the tree's top
// levels (the stored tree's first slots, or a copy of them in shared memory), `stored` the
// whole stored tree. Branch-free: one comparison per depth, log_buckets in all, whatever the
// comparator does (a comparator that is no strict weak ordering still gets a bucket in range).
template <int Items, class Key, class Less>
__host__ __device__ __forceinline__ void search_splitter_tree(
    const Key (&keys)[Items], const Key* top, const Key* stored, int log_buckets,
    int top_levels, const Less& less, int (&buckets)[Items], int (&before)[Items]) {
  if (top_levels > log_buckets) top_levels = log_buckets;
  const int top_nodes = (1 << top_levels) - 1;
  const int row_levels = log_buckets - top_levels;
  const Key* const rows = stored + (1 << top_levels);
  int node[Items];
  GPUSORT_SPLITTER_PRAGMA(unroll)
  for (int j = 0; j < Items; ++j) {
    node[j] = 0;
    before[j] = -1;
  }
  GPUSORT_SPLITTER_PRAGMA(unroll 1)
  for (int depth = 0; depth < top_levels; ++depth)
    GPUSORT_SPLITTER_PRAGMA(unroll)
    for (int j = 0; j < Items; ++j) {
      const bool right = !less(keys[j], top[node[j]]);
      before[j] = right ? node[j] : before[j];
      node[j] = 2 * node[j] + (right ? 2 : 1);
    }
  // Below the top: node[j] becomes the first slot of the key's row (after the top's), local[j]
  // the node within the row.
  GPUSORT_SPLITTER_PRAGMA(unroll)
  for (int j = 0; j < Items; ++j) node[j] = (node[j] - top_nodes) << row_levels;
  int local[Items] = {};
  GPUSORT_SPLITTER_PRAGMA(unroll 1)
  for (int depth = 0; depth < row_levels; ++depth)
    GPUSORT_SPLITTER_PRAGMA(unroll)
    for (int j = 0; j < Items; ++j) {
      const bool right = !less(keys[j], rows[node[j] + local[j]]);
      before[j] = right ? (1 << top_levels) + node[j] + local[j] : before[j];
      local[j] = 2 * local[j] + (right ? 2 : 1);
    }
  GPUSORT_SPLITTER_PRAGMA(unroll)
  for (int j = 0; j < Items; ++j) buckets[j] = node[j] + local[j] - ((1 << row_levels) - 1);
}

#undef GPUSORT_SPLITTER_PRAGMA

// The bucket of one key: search_splitter_tree's, with the top read from the stored tree.
template <class Key, class Less>
__host__ __device__ int bucket_of(const Key& key, const Key* stored, int log_buckets,
                                  int top_levels, const Less& less) {
  const Key keys[1] = {key};
  int bucket[1], before[1];
  search_splitter_tree(keys, stored, stored, log_buckets, top_levels, less, bucket, before);
  return bucket[0];
}

}  // namespace gpusort::backends::merge
