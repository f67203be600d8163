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
// meet at the maximum: merges see long one-sided stretches).
//
// The skewed distributions (skewed_distributions_for) load equal-width buckets of [min, max]
// unevenly. "The range" is the type's whole range for integers, and random_key's [-bound,
// bound] for floating-point keys:
//   normal       Gaussian at the middle of the range (floats: 0), sigma 1% of the range
//   exponential  from the bottom of the range (floats: from 0), mean 2^-10 of the range: most
//                keys near the minimum, the largest about ln(n) means up
//   zipf_like    10^4 random values, the r-th drawn with probability ~ 1/r (the first ~10%)
//   outlier      one key at the type's max or min (floats: +-max or +-inf), the others in a
//                narrow band far from it: min/max is set by one key
//   two_values   two distinct random values at random positions (both present from n = 2)
//   clustered    uniform in 1% of the range, at a random place
// bool keys get the same ideas at one bit (see make_bool_keys_over_range).
//
// New distributions go last, so that the others keep their numbers (seed_for mixes them in).
enum class distribution {
  uniform, sorted, reversed, all_equal, few_distinct, narrow_range, float_specials, organ_pipe,
  normal, exponential, zipf_like, outlier, two_values, clustered
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
    case distribution::normal: return "normal";
    case distribution::exponential: return "exponential";
    case distribution::zipf_like: return "zipf_like";
    case distribution::outlier: return "outlier";
    case distribution::two_values: return "two_values";
    case distribution::clustered: return "clustered";
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

// Random floating-point keys are finite values in [-bound, bound].
template <class T>
constexpr double random_float_bound() {
  return std::is_same_v<T, __half> ? 6e4 : 1e6;  // half overflows past 65504
}

// A random value over the type's whole bit range (floats: finite values in +-1e6).
template <class T>
T random_key(std::mt19937_64& rng) {
  if constexpr (is_float_like_v<T>) {
    const double range = random_float_bound<T>();
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

// Keys of any type in one of the distributions that need no notion of a range (uniform,
// sorted, reversed, all_equal, few_distinct, organ_pipe, zipf_like, two_values):
// `random(rng)` draws one key, `less` is the order that sorted/reversed/organ_pipe follow
// and two_values keeps its values apart by.
template <class T, class Random, class Less>
std::vector<T> make_keys_from(std::size_t n, distribution d, std::uint64_t seed, Random random,
                              Less less) {
  std::mt19937_64 rng(seed);
  std::vector<T> keys(n);  // loops take auto&&: std::vector<bool> hands out proxies
  const auto greater = [&](const T& a, const T& b) { return less(b, a); };
  switch (d) {
    case distribution::uniform:
    case distribution::sorted:
    case distribution::reversed:
    case distribution::organ_pipe:
      for (auto&& k : keys) k = random(rng);
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
      for (auto&& k : keys) k = choices[rng() % 4];
      break;
    }
    case distribution::zipf_like: {
      constexpr int value_count = 10000;
      std::vector<T> values(value_count);
      for (auto&& v : values) v = random(rng);
      std::vector<double> weights(value_count);
      for (int rank = 0; rank < value_count; ++rank) weights[rank] = 1.0 / (rank + 1);
      std::discrete_distribution<int> rank_of(weights.begin(), weights.end());
      for (auto&& k : keys) k = values[rank_of(rng)];
      break;
    }
    case distribution::two_values: {
      const T first = random(rng);
      T second = random(rng);
      // A few redraws: types with few values (bool) can draw the same one twice.
      for (int redraw = 0; redraw < 64 && !less(first, second) && !less(second, first); ++redraw)
        second = random(rng);
      for (auto&& k : keys) k = (rng() & 1) ? first : second;
      if (n >= 2) {  // both present, even where the coin flips all came out the same
        const std::size_t i = rng() % n;
        std::size_t j = rng() % (n - 1);
        if (j >= i) ++j;
        keys[i] = first;
        keys[j] = second;
      }
      break;
    }
    case distribution::narrow_range:
    case distribution::float_specials:
    case distribution::normal:
    case distribution::exponential:
    case distribution::outlier:
    case distribution::clustered:
      break;  // arithmetic keys only: make_keys below
  }
  return keys;
}

// ---- The skewed distributions over a range (arithmetic keys) ------------------------

inline bool over_a_range(distribution d) {
  return d == distribution::normal || d == distribution::exponential ||
         d == distribution::outlier || d == distribution::clustered;
}

// Integer keys are drawn as offsets from the type's minimum, in [0, largest_offset], so
// signed and unsigned types of every width share one formula.
template <class T>
constexpr std::uint64_t largest_offset() {
  return std::uint64_t(std::numeric_limits<std::make_unsigned_t<T>>::max());
}
template <class T>
T integer_at_offset(std::uint64_t offset) {
  using unsigned_t = std::make_unsigned_t<T>;
  return T(unsigned_t(unsigned_t(std::numeric_limits<T>::min()) + unsigned_t(offset)));
}

template <class T>
std::vector<T> make_integer_keys_over_range(std::size_t n, distribution d, std::mt19937_64& rng) {
  constexpr std::uint64_t top = largest_offset<T>();
  const double range = double(top);
  // A real offset, clamped to the range. A double has 53 bits: 64-bit keys get random bits
  // below them, or their low bits would all be zero.
  const auto at = [&](double offset) {
    if (!(offset > 0)) return integer_at_offset<T>(0);
    if (offset >= range) return integer_at_offset<T>(top);
    std::uint64_t whole = std::uint64_t(offset);
    if (sizeof(T) == 8) whole |= rng() & 0x7FF;
    return integer_at_offset<T>(whole);
  };
  std::vector<T> keys(n);
  switch (d) {
    case distribution::normal: {
      std::normal_distribution<double> gaussian(range / 2, range / 100);
      for (auto& k : keys) k = at(gaussian(rng));
      break;
    }
    case distribution::exponential: {
      // At least a mean of 4: 8-bit keys would otherwise be all 0.
      std::exponential_distribution<double> above_min(1.0 / std::max(range / 1024, 4.0));
      for (auto& k : keys) k = at(above_min(rng));
      break;
    }
    case distribution::clustered: {
      const std::uint64_t width = top / 100;
      const std::uint64_t low = rng() % (top - width + 1);
      for (auto& k : keys) k = integer_at_offset<T>(low + rng() % (width + 1));
      break;
    }
    case distribution::outlier: {
      // The band lies in the half of the range away from the outlier.
      const std::uint64_t band = std::max<std::uint64_t>(top >> 20, 15);
      const std::uint64_t half = top / 2;
      const bool outlier_is_max = (rng() & 1) != 0;
      const std::uint64_t low = outlier_is_max ? rng() % (half - band + 1)
                                               : half + 1 + rng() % (top - half - band);
      for (auto& k : keys) k = integer_at_offset<T>(low + rng() % (band + 1));
      if (n != 0) keys[rng() % n] = integer_at_offset<T>(outlier_is_max ? top : 0);
      break;
    }
    default: break;
  }
  return keys;
}

// The largest finite value or the infinity of a floating-point type, either sign.
template <class T>
T float_extreme(bool negative, bool infinite) {
  using bits_t = same_size_bits_t<T>;
  const bits_t sign = bits_t(bits_t(1) << (8 * sizeof(T) - 1));
  const bits_t infinity = bits_of(from_double<T>(std::numeric_limits<double>::infinity()));
  return from_bits<T>(bits_t((negative ? sign : bits_t(0)) | (infinite ? infinity : infinity - 1)));
}

template <class T>
std::vector<T> make_float_keys_over_range(std::size_t n, distribution d, std::mt19937_64& rng) {
  const double bound = random_float_bound<T>();
  const double range = 2 * bound;
  const auto uniform = [&](double low, double high) {
    return std::uniform_real_distribution<double>(low, high)(rng);
  };
  std::vector<T> keys(n);
  switch (d) {
    case distribution::normal: {
      std::normal_distribution<double> gaussian(0.0, range / 100);
      for (auto& k : keys) k = from_double<T>(std::clamp(gaussian(rng), -bound, bound));
      break;
    }
    case distribution::exponential: {
      // From 0, not -bound: near +-bound a bfloat16 has few values.
      std::exponential_distribution<double> above_zero(1024 / range);
      for (auto& k : keys) k = from_double<T>(std::min(above_zero(rng), bound));
      break;
    }
    case distribution::clustered: {
      const double width = range / 100;
      const double low = uniform(-bound, bound - width);
      for (auto& k : keys) k = from_double<T>(uniform(low, low + width));
      break;
    }
    case distribution::outlier: {
      // A band 1/16 of its magnitude wide at a moderate value: distinct keys even in
      // bfloat16 (about 16), and all of them far from the outlier.
      const double low = uniform(-bound / 2, bound / 2);
      const double high = low + std::abs(low) / 16 + 1;
      for (auto& k : keys) k = from_double<T>(uniform(low, high));
      const bool negative = (rng() & 1) != 0, infinite = (rng() & 1) != 0;
      if (n != 0) keys[rng() % n] = float_extreme<T>(negative, infinite);
      break;
    }
    default: break;
  }
  return keys;
}

// One bit of range: normal is a fair coin, exponential mostly false, clustered all one
// value, outlier all one value but one.
inline std::vector<bool> make_bool_keys_over_range(std::size_t n, distribution d,
                                                   std::mt19937_64& rng) {
  std::vector<bool> keys(n);
  const bool common = (rng() & 1) != 0;
  for (std::size_t i = 0; i < n; ++i) {
    switch (d) {
      case distribution::normal: keys[i] = (rng() & 1) != 0; break;
      case distribution::exponential: keys[i] = rng() % 64 == 0; break;
      default: keys[i] = common; break;
    }
  }
  if (d == distribution::outlier && n != 0) keys[rng() % n] = !common;
  return keys;
}

template <class T>
std::vector<T> make_keys(std::size_t n, distribution d, std::uint64_t seed) {
  if (over_a_range(d)) {
    std::mt19937_64 rng(seed);
    if constexpr (std::is_same_v<T, bool>) return make_bool_keys_over_range(n, d, rng);
    else if constexpr (is_float_like_v<T>) return make_float_keys_over_range<T>(n, d, rng);
    else return make_integer_keys_over_range<T>(n, d, rng);
  }
  if (d == distribution::narrow_range || d == distribution::float_specials) {
    std::mt19937_64 rng(seed);
    std::vector<T> keys(n);
    if (d == distribution::narrow_range)
      for (auto&& k : keys) k = from_double<T>(double(rng() % 200));
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

// Kept apart from distributions_for so that the sweeps using it keep their cost; backends
// whose work depends on how keys fill [min, max] add these.
template <class T>
std::vector<distribution> skewed_distributions_for() {
  return {distribution::normal,  distribution::exponential, distribution::zipf_like,
          distribution::outlier, distribution::two_values,  distribution::clustered};
}

}  // namespace gpusort::test
