// A small segment sorted by a group of Lanes lanes of one warp, Slots elements per lane, in
// registers: a bitonic network (K. E. Batcher, "Sorting networks and their applications",
// 1968) over Lanes x Slots elements, shuffles between lanes and swaps within one (a pair in
// one lane costs one comparison, a pair across lanes one per lane, and a shuffle).
//   - Stable: each key carries its position, and equal keys go in position order.
//   - Positions at or past the segment's size are padding and go last, whatever they hold.
//   - A permutation whatever the comparator: both elements of a compare-exchange evaluate the
//     same call with the same arguments, so they always agree on whether to swap.
// The elements, cheapest first:
//   - keys alone, in the radix order, of at most 32 bits (floats: in a segment without -0.0
//     and NaNs): one 32-bit integer per key, its encoding, so that nothing is gathered
//     afterwards (key_bits_order);
//   - other radix keys of at most 32 sort bits: one 64-bit integer, sort bits above position,
//     so that a compare-exchange is one integer comparison and one shuffle of 8 bytes
//     (packed_radix_order);
//   - any other key: the key with its position, compared by the comparator (positioned_order).
// The last two carry positions: the keys (and values) are gathered from them afterwards.
#pragma once

#include "../common/bitonic_tile.cuh"  // shuffle_xor
#include "../common/ordered_bits.cuh"
#include <gpusort/no_values.cuh>

#include <type_traits>

namespace gpusort::backends::segmented {

// Any key and comparator: the key with its position.
template <class Key, class Compare>
struct positioned_order {
  struct element {
    Key key;
    int position;
  };
  static constexpr bool total = false;
  static constexpr bool carries_keys = false;
  const Compare& comp;
  int size;

  __device__ __forceinline__ element make(const Key* segment, int position) const {
    element e;
    e.position = position;
    if (position < size) e.key = segment[position];
    return e;
  }
  __device__ __forceinline__ int position_of(const element& e) const { return e.position; }

  // Whether x goes strictly before y: keys first, then positions; padding last.
  __device__ __forceinline__ bool operator()(const element& x, const element& y) const {
    if (x.position >= size) return false;
    if (y.position >= size) return true;
    if (comp(x.key, y.key)) return true;
    return !comp(y.key, x.key) && x.position < y.position;
  }
};

// Radix keys ordered by radix_order_less, at most 32 sort bits: (sort bits << 32) | position,
// padding all ones. The radix order is the order of the sort bits (floats: -0.0 and +0.0, and
// every NaN, have the same bits), so these integers' order is the stable sort's.
template <class Key, class Compare, class = void>
struct packed_radix_order {
  static constexpr bool applies = false;
};

template <class Key, bool Descending>
struct packed_radix_order<Key, radix_order_less<Key, Descending>,
                          std::enable_if_t<sizeof(ordered_bits_t<Key>) <= 4>> {
  static constexpr bool applies = true;
  // Distinct elements (positions differ; padding is all ones, equal to itself): a lane may
  // keep the smaller or the larger of its pair by one comparison of its own.
  static constexpr bool total = true;
  static constexpr bool carries_keys = false;
  using element = unsigned long long;
  int size;

  __device__ __forceinline__ element make(const Key* segment, int position) const {
    if (position >= size) return ~0ull;
    const auto bits = ordered_bits(segment[position], order_flip<Key>(Descending));
    return (element(bits) << 32) | element(unsigned(position));
  }
  __device__ __forceinline__ int position_of(element e) const { return int(unsigned(e)); }
  __device__ __forceinline__ bool operator()(element x, element y) const { return x < y; }
};

// Keys alone, in the radix order, of at most 32 bits: each key travels as its own encoding
// (flipped for a descending sort) in one 32-bit integer, padding all ones, so that a
// compare-exchange is one 32-bit comparison and the sorted keys are decoded where they land,
// with nothing to gather. Keys of equal encodings are the same key, so the order of equal
// elements does not show, and the sort is stable. Keys whose sort bits differ from their
// encoding (floats' -0.0 and NaNs: equal in the radix order to keys that differ) must keep
// their places: a segment holding one goes the packed way (needs_position), so that the
// encodings' order is the radix order wherever they are used.
template <class Key, class Value, class Compare, class = void>
struct key_bits_order {
  static constexpr bool applies = false;
};

template <class Key, bool Descending>
struct key_bits_order<Key, no_values, radix_order_less<Key, Descending>,
                      std::enable_if_t<has_radix_encoding_v<Key> &&
                                       sizeof(ordered_bits_t<Key>) <= 4>> {
  static constexpr bool applies = true;
  static constexpr bool total = true;
  static constexpr bool carries_keys = true;
  using element = unsigned;
  using bits_t = ordered_bits_t<Key>;
  static constexpr bits_t flip = order_flip<Key>(Descending);
  int size;

  // Whether some keys may need their positions (floats), and whether this one does: it must
  // keep its place among keys that the radix order calls equal to it.
  static constexpr bool may_need_positions = radix_key_canonicalises_v<Key>;
  __device__ __forceinline__ bool needs_position(const Key* segment, int position) const {
    return position < size && radix_key_traits<Key>::canonicalised(segment[position]);
  }
  __device__ __forceinline__ element make(const Key* segment, int position) const {
    if (position >= size) return ~0u;
    return element(encoded_bits(segment[position], flip));
  }
  __device__ __forceinline__ Key key_of(element e) const {
    return radix_key_traits<Key>::decode(bits_t(bits_t(e) ^ flip));
  }
  __device__ __forceinline__ bool operator()(element x, element y) const { return x < y; }
};

// The order a group sorts Key by Compare in where the keys' positions are needed.
template <class Key, class Compare>
using group_order_t = std::conditional_t<packed_radix_order<Key, Compare>::applies,
                                         packed_radix_order<Key, Compare>,
                                         positioned_order<Key, Compare>>;

// The network over a group's Lanes x Slots elements: element member x Slots + s in e[s].
template <int Lanes, int Slots, class Order>
struct group_sorter {
  static_assert((Lanes & (Lanes - 1)) == 0 && Lanes <= 32 && (Slots & (Slots - 1)) == 0,
                "a power-of-two group within a warp, a power of two of elements per lane");
  static constexpr int elements = Lanes * Slots;
  using element = typename Order::element;

  const Order& before;

  // Element `index`'s new value from its pair (mine at index, other at index ^ stride), in a
  // run of `run` elements sorted ascending where index & run is 0, descending otherwise. By
  // value throughout: references chosen by ?: put the elements in local memory (2x slower).
  __device__ __forceinline__ element exchange(element mine, element other, int index,
                                              int stride, int run) const {
    const bool lower = (index & stride) == 0;
    const bool ascending = (index & run) == 0;
    if constexpr (std::is_same_v<element, unsigned>) {
      // One min-or-max instruction.
      return lower == ascending ? min(mine, other) : max(mine, other);
    } else if constexpr (Order::total) {
      // Keep the smaller where this index takes the pair's first, else the larger.
      return (lower == ascending) == before(mine, other) ? mine : other;
    } else {
      // The pair's first argument: the higher element in an ascending run, else the lower.
      const element first = lower != ascending ? mine : other;
      const element second = lower != ascending ? other : mine;
      return before(first, second) ? other : mine;
    }
  }

  __device__ __forceinline__ void sort(element (&e)[Slots], int member) const {
#pragma unroll
    for (int run = 2; run <= elements; run *= 2) {
#pragma unroll
      for (int stride = run / 2; stride >= 1; stride /= 2) {
        if (stride >= Slots) {
#pragma unroll
          for (int s = 0; s < Slots; ++s)
            e[s] = exchange(e[s], shuffle_xor(e[s], stride / Slots), member * Slots + s,
                            stride, run);
        } else {  // the pairs are in this lane: one comparison per pair
#pragma unroll
          for (int s = 0; s < Slots; ++s) {
            if ((s & stride) != 0) continue;
            const element low = e[s];
            const element high = e[s + stride];
            const bool ascending = ((member * Slots + s) & run) == 0;
            if constexpr (std::is_same_v<element, unsigned>) {
              e[s] = ascending ? min(low, high) : max(low, high);
              e[s + stride] = ascending ? max(low, high) : min(low, high);
            } else {
              const bool swap = ascending ? before(high, low) : before(low, high);
              e[s] = swap ? high : low;
              e[s + stride] = swap ? low : high;
            }
          }
        }
      }
    }
  }
};

}  // namespace gpusort::backends::segmented
