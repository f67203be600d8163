// How a tile sort (kernels.cuh: sort_tile_coded) holds its keys while it sorts them. A codec
// names the type it sorts (`sorted_type`, of the keys' size) and the order over it
// (`order()`); it encodes each key once loaded and decodes it before it is stored, and where
// `may_refuse` it may refuse a tile (`refuses`, any key of it), which then keeps its keys as
// they were.
//   keys_as_they_are      the keys themselves, by the caller's comparator (every sort_tile)
//   floats_as_encodings   4-byte floats in the radix order as the unsigned integers of their
//                         encodings, one integer compare where that order takes two float
//                         compares; a tile with a -0.0 or a NaN is refused, since the radix
//                         order calls them equal to keys whose encodings differ
#pragma once

#include "../common/ordered_bits.cuh"

#include <gpusort/detail/policies/bit_cast.cuh>
#include <gpusort/functional.cuh>

#include <type_traits>

namespace gpusort::backends::merge {

template <class Key, class Compare>
struct keys_as_they_are {
  using sorted_type = Key;
  static constexpr bool may_refuse = false;

  const Compare& comp;

  __device__ __forceinline__ const Compare& order() const { return comp; }
  __device__ __forceinline__ static Key encode(const Key& key) { return key; }
  __device__ __forceinline__ static Key decode(const Key& key) { return key; }
};

// Where it applies (floats_as_encodings_apply), the order is radix_order_less<Key, Descending>
// (with or without values). The keys are read and written as their bits (sorted_type); the
// encodings are flipped for a descending order. Distinct keys without -0.0 and NaN have
// distinct encodings, so the result is the stable sort's. Not for doubles: a 64-bit integer
// compare costs what two of theirs do (H200, segments of 1025-4096 keys: f32 2^24 354 -> 287
// us, f64 1-6 % slower; bench/results/NOTES.md, 2026-11-30).
template <class Key, bool Descending>
struct floats_as_encodings {
  using sorted_type = ordered_bits_t<Key>;
  static constexpr bool may_refuse = true;
  static constexpr sorted_type flip = order_flip<Key>(Descending);

  __device__ __forceinline__ static gpusort::less<> order() { return {}; }
  __device__ __forceinline__ static bool refuses(sorted_type bits) {
    return radix_key_traits<Key>::canonicalised(detail::bit_cast<Key>(bits));
  }
  __device__ __forceinline__ static sorted_type encode(sorted_type bits) {
    return encoded_bits(detail::bit_cast<Key>(bits), flip);
  }
  __device__ __forceinline__ static sorted_type decode(sorted_type encoded) {
    return detail::bit_cast<sorted_type>(key_of_encoded_bits<Key>(encoded, flip));
  }
};

template <class Key, class Compare>
inline constexpr bool floats_as_encodings_apply =
    radix_order_of<Compare>::is_radix_order && std::is_floating_point_v<Key> &&
    sizeof(Key) == 4 && has_radix_encoding_v<Key>;

}  // namespace gpusort::backends::merge
