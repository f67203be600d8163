// Radix key traits: every radix-sortable key maps to an unsigned bit pattern whose unsigned
// order is the key's documented order.
//
// A specialisation of gpusort::radix_key_traits<Key> provides
//   using bits_type = <unsigned integer>;
//   static constexpr int bits;                         // significant low bits of bits_type
//   static bits_type sort_bits(const Key&);            // what the radix digits are taken from
// and, for the arithmetic types, the bijection behind it:
//   static bits_type encode(Key);  static Key decode(bits_type);
// sort_bits canonicalises before encoding (-0.0 -> +0.0, every NaN -> one NaN above +inf),
// so equal keys have equal sort bits; such traits say so, and which keys it changes, with
//   static constexpr bool canonicalises = true;
//   static bool canonicalised(Key);  // true at least for every key whose sort bits differ
//                                    // from its encoding
// Keys themselves are never canonicalised: the sort moves the original bits.
#pragma once

#include "bit_cast.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

namespace gpusort {

// Primary template: not radix-sortable. Specialise it for your own key types (or derive
// the specialisation from radix_members<...>, below).
template <class Key, class Enable = void>
struct radix_key_traits {};

template <class Key, class = void>
struct has_radix_key_traits : std::false_type {};
template <class Key>
struct has_radix_key_traits<Key, std::void_t<typename radix_key_traits<Key>::bits_type>>
    : std::true_type {};
template <class Key>
inline constexpr bool has_radix_key_traits_v = has_radix_key_traits<Key>::value;

namespace detail {

template <class T>
inline constexpr bool is_radix_integer_v =
    std::is_integral_v<T> && !std::is_same_v<T, bool>;

// The smallest unsigned integer with at least `bits` bits.
template <int bits>
using unsigned_with_bits_t = std::conditional_t<
    (bits <= 8), std::uint8_t,
    std::conditional_t<(bits <= 16), std::uint16_t,
                       std::conditional_t<(bits <= 32), std::uint32_t, std::uint64_t>>>;

// IEEE-754 binary formats: the sign is the top bit; exponent all ones with a zero
// mantissa is infinity, with a non-zero mantissa NaN.
template <class Float, class Bits, int mantissa_bits, int exponent_bits>
struct ieee_radix_traits {
  using bits_type = Bits;
  static constexpr int bits = 8 * sizeof(Bits);
  static constexpr Bits sign_mask = Bits(Bits(1) << (bits - 1));
  static constexpr Bits magnitude_mask = Bits(~sign_mask);
  static constexpr Bits infinity_bits = Bits(((Bits(1) << exponent_bits) - 1) << mantissa_bits);
  static constexpr bool canonicalises = true;

  // All ones where b's top bit is set, else zero.
  __host__ __device__ static Bits sign_spread(Bits b) {
    using signed_bits = std::make_signed_t<Bits>;
    return Bits(signed_bits(b) >> (bits - 1));
  }

  // Negative numbers: flip every bit (larger magnitude sorts first); positive numbers:
  // set the sign bit (they sort after every negative). Written as one XOR with a mask made
  // by an arithmetic shift of the sign (all ones or none), not as a choice between two
  // results: the radix passes encode every key on each load and scatter.
  __host__ __device__ static Bits encode(Float key) {
    const Bits b = bit_cast<Bits>(key);
    return Bits(b ^ (sign_spread(b) | sign_mask));
  }
  __host__ __device__ static Float decode(Bits ordered) {
    return bit_cast<Float>(Bits(ordered ^ (sign_spread(Bits(~ordered)) | sign_mask)));
  }
  // -0.0 and every NaN (bitwise operators: no branch per key).
  __host__ __device__ static bool canonicalised(Float key) {
    const Bits b = bit_cast<Bits>(key);
    return (Bits(b & magnitude_mask) > infinity_bits) | (b == sign_mask);
  }
  __host__ __device__ static Bits sort_bits(Float key) {
    Bits b = bit_cast<Bits>(key);
    Bits magnitude = b & magnitude_mask;
    if (magnitude > infinity_bits) b = magnitude_mask;  // any NaN -> the largest positive NaN
    if (magnitude == 0) b = 0;                          // -0.0 -> +0.0
    return encode(bit_cast<Float>(b));
  }
};

}  // namespace detail

// Unsigned integers (and unsigned character types): the bits as they are.
template <class Key>
struct radix_key_traits<Key, std::enable_if_t<detail::is_radix_integer_v<Key> &&
                                              std::is_unsigned_v<Key>>> {
  using bits_type = detail::unsigned_with_bits_t<8 * sizeof(Key)>;
  static constexpr int bits = 8 * sizeof(Key);
  __host__ __device__ static bits_type encode(Key key) { return bits_type(key); }
  __host__ __device__ static Key decode(bits_type ordered) { return Key(ordered); }
  __host__ __device__ static bits_type sort_bits(Key key) { return encode(key); }
};

// Signed integers (and signed character types): two's complement with the sign bit
// flipped orders negatives before positives.
template <class Key>
struct radix_key_traits<Key, std::enable_if_t<detail::is_radix_integer_v<Key> &&
                                              std::is_signed_v<Key>>> {
  using bits_type = detail::unsigned_with_bits_t<8 * sizeof(Key)>;
  static constexpr int bits = 8 * sizeof(Key);
  static constexpr bits_type sign_mask = bits_type(bits_type(1) << (bits - 1));
  __host__ __device__ static bits_type encode(Key key) {
    return bits_type(detail::bit_cast<bits_type>(key) ^ sign_mask);
  }
  __host__ __device__ static Key decode(bits_type ordered) {
    return detail::bit_cast<Key>(bits_type(ordered ^ sign_mask));
  }
  __host__ __device__ static bits_type sort_bits(Key key) { return encode(key); }
};

// bool: false before true; one significant bit, so one pass.
template <>
struct radix_key_traits<bool> {
  using bits_type = std::uint8_t;
  static constexpr int bits = 1;
  __host__ __device__ static bits_type encode(bool key) { return key ? 1 : 0; }
  __host__ __device__ static bool decode(bits_type ordered) { return ordered != 0; }
  __host__ __device__ static bits_type sort_bits(bool key) { return encode(key); }
};

// Integer, character and bool keys of at most 16 bits: few enough values for a counter each
// (at most 65536), and keys with equal sort bits are equal bit for bit (encode is a
// bijection), so a keys-only sort can count how many keys have each value and write each
// value that many times (backends/radix/counting_sort.cuh) instead of moving keys.
template <class Key>
inline constexpr bool is_narrow_integer_key_v = std::is_integral_v<Key> && sizeof(Key) <= 2;

template <>
struct radix_key_traits<float> : detail::ieee_radix_traits<float, std::uint32_t, 23, 8> {};
template <>
struct radix_key_traits<double> : detail::ieee_radix_traits<double, std::uint64_t, 52, 11> {};
template <>
struct radix_key_traits<__half> : detail::ieee_radix_traits<__half, std::uint16_t, 10, 5> {};
template <>
struct radix_key_traits<__nv_bfloat16>
    : detail::ieee_radix_traits<__nv_bfloat16, std::uint16_t, 7, 8> {};

// 16-bit floating-point keys (__half, __nv_bfloat16): 65536 values, and keys with equal sort
// bits are equal bit for bit except in two classes, zeros (-0.0 and +0.0) and NaNs (any
// payload). A keys-only sort counts them too, and writes each class's one bit pattern; where
// a class holds two patterns (the stable order then needs the input's order of them), the
// count says so and the one-sweep passes sort instead (counting_sort.cuh).
template <class Key>
inline constexpr bool is_half_float_key_v =
    std::is_same_v<Key, __half> || std::is_same_v<Key, __nv_bfloat16>;

// The keys the counting sort takes (keys only).
template <class Key>
inline constexpr bool is_counted_key_v = is_narrow_integer_key_v<Key> || is_half_float_key_v<Key>;

// ---------------------------------------------------------------------------------------
// User keys made of radix-sortable members, most significant member first:
//
//   struct particle { std::uint32_t cell; float depth; int id; };
//   template <> struct gpusort::radix_key_traits<particle>
//       : gpusort::radix_members<&particle::cell, &particle::depth> {};
//
// sorts particles by cell, then by depth (members not named are not part of the key).
// The members' significant bits together must fit 64.

namespace detail {

template <class MemberPointer>
struct member_pointer_traits;
template <class Class, class Member>
struct member_pointer_traits<Member Class::*> {
  using class_type = Class;
  using member_type = Member;
};

template <auto member>
using member_key_t =
    std::remove_cv_t<typename member_pointer_traits<decltype(member)>::member_type>;

template <class Bits>
__host__ __device__ constexpr Bits shift_in(Bits accumulated, int width, Bits next) {
  // A shift by the full width of Bits is undefined; only the first member can need it.
  return (width >= int(8 * sizeof(Bits)) ? Bits(0) : Bits(accumulated << width)) | next;
}

}  // namespace detail

template <auto first_member, auto... other_members>
struct radix_members {
  using key_type = typename detail::member_pointer_traits<decltype(first_member)>::class_type;
  static_assert(
      (std::is_same_v<key_type, typename detail::member_pointer_traits<
                                    decltype(other_members)>::class_type> && ...),
      "gpusort::radix_members: all members must belong to the same key type");
  static_assert((has_radix_key_traits_v<detail::member_key_t<first_member>> && ... &&
                 has_radix_key_traits_v<detail::member_key_t<other_members>>),
                "gpusort::radix_members: every member must itself be radix-sortable");

  static constexpr int bits = (radix_key_traits<detail::member_key_t<first_member>>::bits + ... +
                               radix_key_traits<detail::member_key_t<other_members>>::bits);
  static_assert(bits <= 64, "gpusort::radix_members: the members' bits must fit in 64");
  using bits_type = detail::unsigned_with_bits_t<bits>;

  __host__ __device__ static bits_type sort_bits(const key_type& key) {
    bits_type result = member_bits<first_member>(key);
    ((result = detail::shift_in(result, member_width<other_members>(),
                                member_bits<other_members>(key))),
     ...);
    return result;
  }

 private:
  template <auto member>
  __host__ __device__ static constexpr int member_width() {
    return radix_key_traits<detail::member_key_t<member>>::bits;
  }
  template <auto member>
  __host__ __device__ static bits_type member_bits(const key_type& key) {
    return bits_type(radix_key_traits<detail::member_key_t<member>>::sort_bits(key.*member));
  }
};

}  // namespace gpusort
