// A small segment sorted by a group of Lanes lanes of one warp, Slots keys per lane, in
// registers: a bitonic network (K. E. Batcher, "Sorting networks and their applications",
// 1968) over Lanes x Slots elements, shuffles between lanes and swaps within one.
//   - Stable: each key carries its position, and equal keys go in position order.
//   - Positions at or past the segment's size are padding and go last, whatever they hold.
//   - A permutation whatever the comparator: both elements of a compare-exchange evaluate the
//     same call with the same arguments, so they always agree on whether to swap.
// About log2(E) (log2(E) + 1) / 2 compare-exchanges per element, E = Lanes x Slots: 15 for 32
// keys, where counting each key's rank against every other took 32 comparisons per key.
#pragma once

#include "../common/bitonic_tile.cuh"  // shuffle_xor

namespace gpusort::backends::segmented {

template <class Key>
struct positioned_key {
  Key key;
  int position;  // in the segment; >= size: padding
};

template <int Lanes, int Slots, class Key, class Compare>
struct group_sorter {
  static_assert((Lanes & (Lanes - 1)) == 0 && Lanes <= 32 && (Slots == 1 || Slots == 2),
                "a power-of-two group within a warp, one or two keys per lane");
  static constexpr int elements = Lanes * Slots;

  const Compare& comp;
  int size;

  // Whether x goes strictly before y: keys first, then positions; padding last.
  __device__ __forceinline__ bool before(const positioned_key<Key>& x,
                                         const positioned_key<Key>& y) const {
    if (x.position >= size) return false;
    if (y.position >= size) return true;
    if (comp(x.key, y.key)) return true;
    return !comp(y.key, x.key) && x.position < y.position;
  }

  // Element `index`'s new value from its pair (mine at index, other at index ^ stride), in a
  // run of `run` elements sorted ascending where index & run is 0, descending otherwise.
  // (By value throughout: a reference chosen by ?: put the keys in local memory, 2x slower.)
  __device__ __forceinline__ positioned_key<Key> exchange(positioned_key<Key> mine,
                                                          positioned_key<Key> other, int index,
                                                          int stride, int run) const {
    const bool lower = (index & stride) == 0;
    const bool ascending = (index & run) == 0;
    // The pair's first argument: the higher element in an ascending run, else the lower.
    const positioned_key<Key> first = lower != ascending ? mine : other;
    const positioned_key<Key> second = lower != ascending ? other : mine;
    return before(first, second) ? other : mine;
  }

  // Sorts the group's elements: element member x Slots + s in e[s].
  __device__ __forceinline__ void sort(positioned_key<Key> (&e)[Slots], int member) const {
#pragma unroll
    for (int run = 2; run <= elements; run *= 2) {
#pragma unroll
      for (int stride = run / 2; stride >= 1; stride /= 2) {
        if (stride >= Slots) {
#pragma unroll
          for (int s = 0; s < Slots; ++s) {
            const positioned_key<Key> other = shuffle_xor(e[s], stride / Slots);
            e[s] = exchange(e[s], other, member * Slots + s, stride, run);
          }
        } else {  // stride 1 with two slots: the pair is in this lane
          const positioned_key<Key> low = exchange(e[0], e[1], member * Slots, 1, run);
          const positioned_key<Key> high = exchange(e[1], e[0], member * Slots + 1, 1, run);
          e[0] = low;
          e[1] = high;
        }
      }
    }
  }
};

}  // namespace gpusort::backends::segmented
