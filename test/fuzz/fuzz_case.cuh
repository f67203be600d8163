// One randomized differential test case: which public sort call, on which input, in which
// corner of a device buffer. Everything is drawn from one 64-bit case seed, so that
// `gpusort_fuzz --case 0x<seed>` replays a failing case exactly.
#pragma once

#include "../support/keys.cuh"
#include "../support/splitmix.cuh"

#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

namespace gpusort::fuzz {

using test::distribution;
using test::splitmix64;
using test::case_seed;

enum class key_type { u8, i16, u32, i32, u64, i64, f32, f64, f16 };
enum class value_type { none, u32, u64 };
enum class policy_kind { par, radix, bucket_bitonic, merge };
enum class profile { quick, long_run };

inline constexpr key_type all_key_types[] = {key_type::u8,  key_type::i16, key_type::u32,
                                             key_type::i32, key_type::u64, key_type::i64,
                                             key_type::f32, key_type::f64, key_type::f16};
inline constexpr policy_kind all_policies[] = {policy_kind::par, policy_kind::radix,
                                               policy_kind::bucket_bitonic, policy_kind::merge};

inline const char* name_of(key_type k) {
  switch (k) {
    case key_type::u8: return "u8";
    case key_type::i16: return "i16";
    case key_type::u32: return "u32";
    case key_type::i32: return "i32";
    case key_type::u64: return "u64";
    case key_type::i64: return "i64";
    case key_type::f32: return "f32";
    case key_type::f64: return "f64";
    case key_type::f16: return "f16";
  }
  return "?";
}
constexpr std::size_t key_bytes(key_type k) {
  switch (k) {
    case key_type::u8: return 1;
    case key_type::i16: case key_type::f16: return 2;
    case key_type::u32: case key_type::i32: case key_type::f32: return 4;
    case key_type::u64: case key_type::i64: case key_type::f64: return 8;
  }
  return 0;
}
constexpr bool is_floating(key_type k) {
  return k == key_type::f32 || k == key_type::f64 || k == key_type::f16;
}
template <class Key>
constexpr key_type key_type_of() {
  if constexpr (std::is_same_v<Key, std::uint8_t>) return key_type::u8;
  else if constexpr (std::is_same_v<Key, std::int16_t>) return key_type::i16;
  else if constexpr (std::is_same_v<Key, std::uint32_t>) return key_type::u32;
  else if constexpr (std::is_same_v<Key, std::int32_t>) return key_type::i32;
  else if constexpr (std::is_same_v<Key, std::uint64_t>) return key_type::u64;
  else if constexpr (std::is_same_v<Key, std::int64_t>) return key_type::i64;
  else if constexpr (std::is_same_v<Key, float>) return key_type::f32;
  else if constexpr (std::is_same_v<Key, double>) return key_type::f64;
  else {
    static_assert(std::is_same_v<Key, __half>, "not a fuzzed key type");
    return key_type::f16;
  }
}

// The calls the fuzz translation units leave out to bound their compile time (why these, and
// the measurements: fuzz_dispatch.cu); draw_case never draws them, and run_case does not
// instantiate them.
// u64 values: only with 4- and 8-byte keys.
constexpr bool has_u64_values(key_type k) { return key_bytes(k) >= 4; }
// Unstable gpusort::merge calls: only on u8, u32, i64, f32 and f64 keys, without u64
// values. (Stable merge calls are kept everywhere.)
constexpr bool has_unstable_merge(key_type k, value_type v) {
  return v != value_type::u64 && k != key_type::i16 && k != key_type::i32 &&
         k != key_type::u64 && k != key_type::f16;
}

inline const char* name_of(value_type v) {
  switch (v) {
    case value_type::none: return "none";
    case value_type::u32: return "u32";
    case value_type::u64: return "u64";
  }
  return "?";
}
inline const char* name_of(policy_kind p) {
  switch (p) {
    case policy_kind::par: return "par";
    case policy_kind::radix: return "radix";
    case policy_kind::bucket_bitonic: return "bucket_bitonic";
    case policy_kind::merge: return "merge";
  }
  return "?";
}
inline const char* name_of(profile p) { return p == profile::quick ? "quick" : "long"; }
inline std::optional<profile> profile_named(const std::string& name) {
  if (name == "quick") return profile::quick;
  if (name == "long") return profile::long_run;
  return std::nullopt;
}

// The rules a size is drawn by (fuzz_case::size_rule_text says which one, and how).
enum class size_rule { tiny, edge, tile_multiple, prime, power_of_two, log_uniform };
inline constexpr int size_rule_count = 6;

struct profile_settings {
  std::size_t max_n;
  int size_weights[size_rule_count];  // in size_rule's order
};

// quick (gtest fuzz_test: 400 cases, about 16 million keys in all): up to 2^18 plus a bit, so
// that both sides of par's 262144 threshold are drawn; most weight on the edges, where
// small cases find the same bugs as big ones. long (gpusort_fuzz): up to 2^22 with more
// weight on log-uniform sizes, which reach the multi-tile, multi-pass sorts.
inline profile_settings settings_of(profile p) {
  if (p == profile::quick) return {(std::size_t(1) << 18) + 4096, {20, 35, 10, 10, 10, 15}};
  return {std::size_t(1) << 22, {10, 30, 10, 10, 15, 25}};
}

// Every public call, on every key type, with or without values, in both orders, at any
// offset of a buffer, with guard elements on both sides.
struct fuzz_case {
  std::uint64_t seed;       // the case seed everything below is drawn from
  fuzz::profile profile;
  std::size_t max_n;        // the largest size the draw could give
  key_type key;
  value_type values;
  policy_kind policy;
  bool stable;              // stable_sort / stable_sort_by_key, else sort / sort_by_key
  bool descending;          // gpusort::greater<>{}, else gpusort::less<>{}
  std::size_t n;
  std::string size_rule_text;  // how n was drawn ("edge 8192+1", "prime", ...)
  distribution dist;
  std::uint64_t data_seed;  // make_keys' seed; also draws the guards
  std::size_t key_offset;   // the keys to sort start this many keys into their buffer
  std::size_t value_offset; // likewise the values (drawn separately: other alignments)
  std::size_t guard_after;  // elements after each range
};

// Tile sizes and size thresholds of the library as built, for these key and value types:
// the radix one-sweep tiles (both tunings), the cluster sort's tiles and full clusters, the
// merge tiles and merge chunks, bucket_bitonic's sort units and partition tiles, and
// gpusort::par's sm_90 thresholds. Defined in fuzz_dispatch.cu, from the backends' shape
// structs, so the edges follow the tuning.
std::vector<std::size_t> backend_size_edges(key_type key, value_type values);

// The tile and threshold edges, for any key type (the 4-byte ones above): radix one-sweep tiles
// 384 x 19 and 384 x 21, small tiles and cluster tiles 256 x 8 and 512 x 8, par's H200
// thresholds, merge tiles 256 x 16, merge chunks 128 x 17, bucket_bitonic units 256 x 16.
inline const std::vector<std::size_t>& fixed_size_edges() {
  static const std::vector<std::size_t> edges = {
      256, 2048, 2176, 4096, 7296, 8064, 8192, 32768, 46341, 65536, 262144, 370728,
      std::size_t(1) << 20};
  return edges;
}

namespace detail {

inline std::size_t largest_prime_at_most(std::size_t x) {
  for (std::size_t n = x; n >= 2; --n) {
    bool prime = true;
    for (std::size_t d = 2; d * d <= n && prime; ++d) prime = n % d != 0;
    if (prime) return n;
  }
  return x;
}

inline std::size_t log_uniform_size(splitmix64& rng, std::size_t max_n) {
  const double n = std::pow(double(max_n) + 1, rng.unit()) - 1;  // in [0, max_n]
  return std::min(std::size_t(n), max_n);
}

// Distance from an edge: mostly 0, 1 or 2 (off-by-one bugs), sometimes a little or a lot
// further (a short last tile, a partial warp).
inline std::int64_t edge_delta(splitmix64& rng) {
  const std::uint64_t r = rng.below(16);
  const std::int64_t magnitude = r < 4    ? 0
                                 : r < 8  ? 1
                                 : r < 11 ? 2
                                 : r < 14 ? std::int64_t(3 + rng.below(14))
                                          : std::int64_t(17 + rng.below(496));
  return rng.coin() ? -magnitude : magnitude;
}

inline std::string signed_text(std::int64_t delta) {
  if (delta == 0) return "";
  return (delta > 0 ? "+" : "") + std::to_string(delta);
}

inline std::size_t clamp_size(std::int64_t n, std::size_t max_n) {
  return n < 0 ? 0 : std::min(std::size_t(n), max_n);
}

// Draws n (and says how) by the profile's weights.
inline void draw_size(splitmix64& rng, const profile_settings& settings, fuzz_case& c) {
  const std::size_t max_n = c.max_n;
  int total = 0;
  for (int w : settings.size_weights) total += w;
  int pick = int(rng.below(std::uint64_t(total)));
  int rule = 0;
  while (pick >= settings.size_weights[rule]) pick -= settings.size_weights[rule++];

  std::vector<std::size_t> edges = fixed_size_edges();
  for (std::size_t e : backend_size_edges(c.key, c.values)) edges.push_back(e);
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());

  switch (size_rule(rule)) {
    case size_rule::tiny:
      c.n = std::min<std::size_t>(rng.below(41), max_n);
      c.size_rule_text = "tiny";
      return;
    case size_rule::edge: {
      std::vector<std::size_t> reachable;
      for (std::size_t e : edges)
        if (e <= max_n + 2) reachable.push_back(e);
      if (reachable.empty()) break;
      const std::size_t edge = reachable[rng.below(reachable.size())];
      const std::int64_t delta = edge_delta(rng);
      c.n = clamp_size(std::int64_t(edge) + delta, max_n);
      c.size_rule_text = "edge " + std::to_string(edge) + signed_text(delta);
      return;
    }
    case size_rule::tile_multiple: {
      // Several tiles, the last one full or one or two keys short or over.
      std::vector<std::size_t> fitting;
      for (std::size_t e : edges)
        if (2 * e <= max_n) fitting.push_back(e);
      if (fitting.empty()) break;
      const std::size_t tile = fitting[rng.below(fitting.size())];
      const std::size_t count = 2 + rng.below(std::min<std::size_t>(max_n / tile - 1, 64));
      const std::int64_t delta = std::int64_t(rng.below(5)) - 2;
      c.n = clamp_size(std::int64_t(count * tile) + delta, max_n);
      c.size_rule_text =
          std::to_string(count) + " x " + std::to_string(tile) + signed_text(delta);
      return;
    }
    case size_rule::prime:
      c.n = detail::largest_prime_at_most(std::max<std::size_t>(log_uniform_size(rng, max_n), 2));
      c.n = std::min(c.n, max_n);
      c.size_rule_text = "prime";
      return;
    case size_rule::power_of_two: {
      int top = 0;
      while ((std::size_t(2) << top) <= max_n) ++top;
      const int exponent = int(rng.below(std::uint64_t(top) + 1));
      const std::int64_t delta = std::int64_t(rng.below(3)) - 1;
      c.n = clamp_size(std::int64_t(std::size_t(1) << exponent) + delta, max_n);
      c.size_rule_text = "2^" + std::to_string(exponent) + signed_text(delta);
      return;
    }
    case size_rule::log_uniform:
      break;
  }
  c.n = log_uniform_size(rng, max_n);
  c.size_rule_text = "log-uniform";
}

// Every distribution of keys.cuh the key type has; floating-point keys draw float_specials
// (NaNs of both signs, infinities, signed zeros, denormals) three times as often as the
// others, as it is what their order is about.
inline distribution draw_distribution(splitmix64& rng, key_type key) {
  std::vector<distribution> choices = {
      distribution::uniform,     distribution::sorted,       distribution::reversed,
      distribution::organ_pipe,  distribution::all_equal,    distribution::few_distinct,
      distribution::narrow_range, distribution::normal,      distribution::exponential,
      distribution::zipf_like,   distribution::outlier,      distribution::two_values,
      distribution::clustered};
  if (is_floating(key))
    for (int i = 0; i < 3; ++i) choices.push_back(distribution::float_specials);
  return choices[rng.below(choices.size())];
}

// 0, 1, 3 or 7 elements in (odd addresses for narrow types), or anywhere below 64.
inline std::size_t draw_offset(splitmix64& rng) {
  constexpr std::size_t fixed[] = {0, 1, 3, 7};
  const std::uint64_t r = rng.below(5);
  return r < 4 ? fixed[r] : std::size_t(rng.below(64));
}

}  // namespace detail

// The case of `seed` under `p`, with sizes up to max_n (0: the profile's own maximum).
// The draw order below is part of what a seed means: append new draws at the end.
inline fuzz_case draw_case(std::uint64_t seed, profile p, std::size_t max_n = 0) {
  const profile_settings settings = settings_of(p);
  splitmix64 rng(seed);
  fuzz_case c{};
  c.seed = seed;
  c.profile = p;
  c.max_n = max_n == 0 ? settings.max_n : max_n;
  c.key = all_key_types[rng.below(std::size(all_key_types))];
  const std::uint64_t values = rng.below(20);  // none 40 %, u32 35 %, u64 25 %
  c.values = values < 8 ? value_type::none : values < 15 ? value_type::u32 : value_type::u64;
  if (c.values == value_type::u64 && !has_u64_values(c.key)) c.values = value_type::u32;
  c.policy = all_policies[rng.below(std::size(all_policies))];
  c.stable = rng.coin();
  // stable_sort with bucket_bitonic does not compile, by design: such draws sort unstably.
  if (c.policy == policy_kind::bucket_bitonic) c.stable = false;
  if (c.policy == policy_kind::merge && !has_unstable_merge(c.key, c.values)) c.stable = true;
  c.descending = rng.coin();
  detail::draw_size(rng, settings, c);
  c.dist = detail::draw_distribution(rng, c.key);
  c.data_seed = rng.next();
  c.key_offset = detail::draw_offset(rng);
  c.value_offset = detail::draw_offset(rng);
  c.guard_after = 1 + std::size_t(rng.below(16));
  return c;
}

inline std::string hex(std::uint64_t x) {
  char text[19];
  std::snprintf(text, sizeof text, "0x%016llx", static_cast<unsigned long long>(x));
  return text;
}

inline std::string call_name(const fuzz_case& c) {
  const bool pairs = c.values != value_type::none;
  return std::string(c.stable ? "stable_sort" : "sort") + (pairs ? "_by_key" : "");
}

// The command that replays the case alone.
inline std::string reproduce_command(const fuzz_case& c) {
  std::string command = "gpusort_fuzz --case " + hex(c.seed);
  if (c.profile != profile::long_run) command += std::string(" --profile ") + name_of(c.profile);
  if (c.max_n != settings_of(c.profile).max_n) command += " --max-n " + std::to_string(c.max_n);
  return command;
}

// One line with every parameter of the case.
inline std::string describe(const fuzz_case& c) {
  std::ostringstream s;
  s << "case " << hex(c.seed) << ": gpusort::" << call_name(c) << "(gpusort::"
    << name_of(c.policy) << ", " << (c.descending ? "greater" : "less") << ") key="
    << name_of(c.key) << " values=" << name_of(c.values) << " n=" << c.n << " ("
    << c.size_rule_text << ") distribution=" << test::name_of(c.dist)
    << " key_offset=" << c.key_offset;
  if (c.values != value_type::none) s << " value_offset=" << c.value_offset;
  s << " guard_after=" << c.guard_after << " data_seed=" << hex(c.data_seed)
    << " profile=" << name_of(c.profile) << " max_n=" << c.max_n;
  return s.str();
}

}  // namespace gpusort::fuzz
