// A key as the radix-ordered backends compare it: its radix traits' sort bits (unsigned, in
// the key type's documented order), XOR-ed with a flip that is 0 for an ascending sort and
// reverses the key's bits for a descending one. Descending sorts so reuse the ascending
// machinery and stay stable.
#pragma once

#include <gpusort/detail/policies/key_traits.cuh>
#include <gpusort/functional.cuh>

#include <type_traits>
#include <utility>

namespace gpusort::backends {

template <class Key>
using ordered_bits_t = typename radix_key_traits<Key>::bits_type;

// XOR-ing a key's sort bits with this reverses the order of its `key_bits` low bits.
template <class Bits>
__host__ __device__ constexpr Bits descending_mask(int key_bits) {
  return key_bits >= int(8 * sizeof(Bits)) ? Bits(~Bits(0)) : Bits((Bits(1) << key_bits) - 1);
}

// The flip of a sort of Keys in one direction.
template <class Key>
__host__ __device__ constexpr ordered_bits_t<Key> order_flip(bool descending) {
  return descending ? descending_mask<ordered_bits_t<Key>>(radix_key_traits<Key>::bits)
                    : ordered_bits_t<Key>(0);
}

template <class Key>
__host__ __device__ __forceinline__ ordered_bits_t<Key> ordered_bits(const Key& key,
                                                                     ordered_bits_t<Key> flip) {
  return ordered_bits_t<Key>(radix_key_traits<Key>::sort_bits(key) ^ flip);
}

// Keys whose radix traits have the bijection encode/decode (the arithmetic types): a sort can
// move their encodings, whose digits it needs, and decode them on the way out.
template <class Key, class = void>
struct has_radix_encoding : std::false_type {};
template <class Key>
struct has_radix_encoding<Key, std::void_t<decltype(radix_key_traits<Key>::decode(
                                   radix_key_traits<Key>::encode(std::declval<Key>())))>>
    : std::true_type {};
template <class Key>
inline constexpr bool has_radix_encoding_v = has_radix_encoding<Key>::value;

// Keys whose sort bits differ from their encoding for some keys (floats: -0.0 and NaNs).
template <class Key, class = void>
struct radix_key_canonicalises : std::false_type {};
template <class Key>
struct radix_key_canonicalises<Key, std::enable_if_t<radix_key_traits<Key>::canonicalises>>
    : std::true_type {};
template <class Key>
inline constexpr bool radix_key_canonicalises_v = radix_key_canonicalises<Key>::value;

// A key's encoding XOR-ed with an order's flip: equal to its ordered bits unless the key is
// one that sort_bits canonicalises.
template <class Key>
__host__ __device__ __forceinline__ ordered_bits_t<Key> encoded_bits(const Key& key,
                                                                     ordered_bits_t<Key> flip) {
  return ordered_bits_t<Key>(radix_key_traits<Key>::encode(key) ^ flip);
}

// The key whose encoding, XOR-ed with flip, is `bits` (encoded_bits' inverse). Of ordered
// bits it gives the canonical key (-0.0 as +0.0, a NaN as the one NaN sort_bits makes).
template <class Key>
__host__ __device__ __forceinline__ Key key_of_encoded_bits(ordered_bits_t<Key> bits,
                                                            ordered_bits_t<Key> flip) {
  return radix_key_traits<Key>::decode(ordered_bits_t<Key>(bits ^ flip));
}

// A bijection between keys and bits whose order refines the ordered bits' (a < b in ordered
// bits implies the same for these), for a network that sorts words it can decode instead of
// words that carry each key's position: integers' ordered bits themselves; floats' encoding
// (which keeps -0.0 below +0.0 and every NaN payload apart), turned so that the negative NaNs,
// which it puts below -inf, come after the positive ones, where the ordered bits put every NaN.
// Equal ordered bits then stay adjacent: -0.0 beside +0.0, the NaNs together at the top.
template <class Key>
inline constexpr bool has_refined_bits_v =
    std::is_integral_v<Key> || std::is_same_v<Key, float> || std::is_same_v<Key, double>;

// How far the floats' encoding is turned: the negative NaNs' patterns (0 for integers).
template <class Key>
__host__ __device__ constexpr ordered_bits_t<Key> refined_turn() {
  if constexpr (std::is_floating_point_v<Key>)
    return ordered_bits_t<Key>(radix_key_traits<Key>::magnitude_mask -
                               radix_key_traits<Key>::infinity_bits);
  else
    return 0;
}

template <class Key>
__host__ __device__ __forceinline__ ordered_bits_t<Key> refined_bits(const Key& key,
                                                                     ordered_bits_t<Key> flip) {
  return ordered_bits_t<Key>(ordered_bits_t<Key>(encoded_bits(key, ordered_bits_t<Key>(0)) -
                                                 refined_turn<Key>()) ^
                             flip);
}

template <class Key>
__host__ __device__ __forceinline__ Key key_of_refined_bits(ordered_bits_t<Key> bits,
                                                            ordered_bits_t<Key> flip) {
  return key_of_encoded_bits<Key>(ordered_bits_t<Key>(ordered_bits_t<Key>(bits ^ flip) +
                                                      refined_turn<Key>()),
                                  ordered_bits_t<Key>(0));
}

// Keys in the order of their ordered bits: for comparison networks over radix keys.
template <class Key>
struct ordered_bits_less {
  ordered_bits_t<Key> flip;
  __host__ __device__ __forceinline__ bool operator()(const Key& a, const Key& b) const {
    return ordered_bits(a, flip) < ordered_bits(b, flip);
  }
};

// Keys in the radix order (ascending, or descending where Descending), as a comparison sort
// calls it for every pair it compares: for integers and floats a compare (and for floats a
// NaN test) rather than the sort bits of both keys, which cost a comparison sort's
// dependent chains (par's merge strategy on f64: 0.75x CUB's radix sort at 2^20 with
// ordered_bits_less). Floats: -0.0 and +0.0 equal (as < has them), every NaN one value after
// +inf: gpusort::less<>'s order (greater<>'s descending), in its form of two compares.
template <class Key, bool Descending>
struct radix_order_less {
  __host__ __device__ __forceinline__ bool operator()(const Key& a, const Key& b) const {
    if constexpr (std::is_integral_v<Key>) {
      return Descending ? b < a : a < b;
    } else if constexpr (std::is_floating_point_v<Key>) {
      return Descending ? gpusort::detail::ordered_less(b, a) : gpusort::detail::ordered_less(a, b);
    } else {
      return ordered_bits_less<Key>{order_flip<Key>(Descending)}(a, b);
    }
  }
};

// Whether a comparator is radix_order_less, and in which direction.
template <class Compare>
struct radix_order_of {
  static constexpr bool is_radix_order = false;
  static constexpr bool descending = false;
};
template <class Key, bool Descending>
struct radix_order_of<radix_order_less<Key, Descending>> {
  static constexpr bool is_radix_order = true;
  static constexpr bool descending = Descending;
};

}  // namespace gpusort::backends
