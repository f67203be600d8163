// Test inputs: key distributions for every key type, and the host reference order.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace gpusort::test {

// narrow_range: keys in [0, 200), so a multi-byte key has one varying digit: the radix
// sort runs one pass, skips the rest, and its result comes back from the alternate buffer.
// organ_pipe: the first half ascending, the second descending (two presorted runs that
// meet at the maximum: merges see long one-sided stretches). Last, so that the others keep
// their numbers (seed_for mixes them in).
enum class distribution {
  uniform, sorted, reversed, all_equal, few_distinct, narrow_range, float_specials, organ_pipe
};

inline std::string name_of(distribution d) {
  switch (d) {
    case distribution::uniform: return "uniform";
    case distribution::sorted: return "sorted";
    case distribution::reversed: return "reversed";
    case distribution::all_equal: return "all_equal";
    case distribution::few_distinct: return "few_distinct";
    case distribution::organ_pipe: return "organ_pipe";
    case distribution::narrow_range: return "narrow_range";
    case distribution::float_specials: return "float_specials";
  }
  return "?";
}

template <class T>
inline constexpr bool is_float_like_v =
    std::is_floating_point_v<T> || std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;

template <class T>
using same_size_bits_t = std::conditional_t<
    sizeof(T) == 1, std::uint8_t,
    std::conditional_t<sizeof(T) == 2, std::uint16_t,
                       std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>>;

template <class T>
same_size_bits_t<T> bits_of(T value) {
  same_size_bits_t<T> bits;
  std::memcpy(static_cast<void*>(&bits), static_cast<const void*>(&value), sizeof(T));
  return bits;
}
template <class T>
T from_bits(same_size_bits_t<T> bits) {
  T value;
  std::memcpy(static_cast<void*>(&value), static_cast<const void*>(&bits), sizeof(T));
  return value;
}

template <class T>
double to_double(T v) {
  if constexpr (std::is_same_v<T, __half>) return double(__half2float(v));
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return double(__bfloat162float(v));
  else return double(v);
}
template <class T>
T from_double(double v) {
  if constexpr (std::is_same_v<T, __half>) return __float2half(float(v));
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return __float2bfloat16(float(v));
  else if constexpr (std::is_same_v<T, bool>) return v != 0;
  else return T(v);
}

// The documented order, written independently of gpusort's traits: NaNs of either sign
// after everything, -0.0 == +0.0, otherwise the numeric order.
template <class T>
bool reference_less(T a, T b) {
  if constexpr (is_float_like_v<T>) {
    const double x = to_double(a), y = to_double(b);
    if (std::isnan(x)) return false;
    if (std::isnan(y)) return true;
    return x < y;
  } else {
    return a < b;
  }
}

// A random value over the type's whole bit range (floats: finite values in +-1e6).
template <class T>
T random_key(std::mt19937_64& rng) {
  if constexpr (is_float_like_v<T>) {
    const double range = std::is_same_v<T, __half> ? 6e4 : 1e6;  // half overflows past 65504
    return from_double<T>(std::uniform_real_distribution<double>(-range, range)(rng));
  } else if constexpr (std::is_same_v<T, bool>) {
    return (rng() & 1) != 0;
  } else {
    return from_bits<T>(static_cast<same_size_bits_t<T>>(rng()));
  }
}

// NaNs of both signs with several payloads, infinities, signed zeros, denormals, extremes
// and ordinary numbers, shuffled.
template <class T>
T special_float(std::mt19937_64& rng) {
  using bits_t = same_size_bits_t<T>;
  constexpr int width = 8 * sizeof(T);
  constexpr int mantissa = std::is_same_v<T, float> ? 23 : std::is_same_v<T, double> ? 52
                           : std::is_same_v<T, __half> ? 10 : 7;
  const bits_t sign = bits_t(bits_t(1) << (width - 1));
  const bits_t infinity = bits_t(bits_t(~sign) >> mantissa << mantissa);
  const bits_t random_mantissa = bits_t(rng() & ((bits_t(1) << mantissa) - 1));
  const bits_t negative = (rng() & 1) ? sign : bits_t(0);
  switch (rng() % 8) {
    case 0: return from_bits<T>(bits_t(negative | infinity | (random_mantissa | 1)));  // NaN
    case 1: return from_bits<T>(bits_t(negative | infinity));                          // +-inf
    case 2: return from_bits<T>(negative);                                             // +-0.0
    case 3: return from_bits<T>(bits_t(negative | (random_mantissa | 1)));             // denormal
    case 4: return from_bits<T>(bits_t(negative | (infinity - 1)));                    // +-max
    default: return from_double<T>(std::uniform_real_distribution<double>(-4, 4)(rng));
  }
}

// Keys of any type in one of the order-shaped distributions (uniform, sorted, reversed,
// all_equal, few_distinct, organ_pipe): `random(rng)` draws one key, `less` is the order
// that sorted/reversed/organ_pipe follow.
template <class T, class Random, class Less>
std::vector<T> make_keys_from(std::size_t n, distribution d, std::uint64_t seed, Random random,
                              Less less) {
  std::mt19937_64 rng(seed);
  std::vector<T> keys(n);
  const auto greater = [&](const T& a, const T& b) { return less(b, a); };
  switch (d) {
    case distribution::uniform:
    case distribution::sorted:
    case distribution::reversed:
    case distribution::organ_pipe:
      for (auto& k : keys) k = random(rng);
      if (d == distribution::sorted) std::stable_sort(keys.begin(), keys.end(), less);
      if (d == distribution::reversed) std::stable_sort(keys.begin(), keys.end(), greater);
      if (d == distribution::organ_pipe) {
        const auto middle = keys.begin() + std::ptrdiff_t(n / 2);
        std::stable_sort(keys.begin(), middle, less);
        std::stable_sort(middle, keys.end(), greater);
      }
      break;
    case distribution::all_equal: {
      const T k = random(rng);
      std::fill(keys.begin(), keys.end(), k);
      break;
    }
    case distribution::few_distinct: {
      const T choices[4] = {random(rng), random(rng), random(rng), random(rng)};
      for (auto& k : keys) k = choices[rng() % 4];
      break;
    }
    case distribution::narrow_range:
    case distribution::float_specials:
      break;  // arithmetic keys only: make_keys below
  }
  return keys;
}

template <class T>
std::vector<T> make_keys(std::size_t n, distribution d, std::uint64_t seed) {
  if (d == distribution::narrow_range || d == distribution::float_specials) {
    std::mt19937_64 rng(seed);
    std::vector<T> keys(n);
    if (d == distribution::narrow_range)
      for (auto& k : keys) k = from_double<T>(double(rng() % 200));
    if constexpr (is_float_like_v<T>)
      if (d == distribution::float_specials)
        for (auto& k : keys) k = special_float<T>(rng);
    return keys;
  }
  return make_keys_from<T>(n, d, seed, random_key<T>, reference_less<T>);
}

template <class T>
std::vector<distribution> distributions_for() {
  std::vector<distribution> all{distribution::uniform, distribution::sorted,
                                distribution::reversed, distribution::all_equal,
                                distribution::few_distinct, distribution::organ_pipe,
                                distribution::narrow_range};
  if constexpr (is_float_like_v<T>) all.push_back(distribution::float_specials);
  return all;
}

}  // namespace gpusort::test
