// gpusort_bench's par rows: gpusort::par (its run-time choice by n) against
// cub::DeviceRadixSort, and the sweep behind par's dispatch table: every strategy pinned.
//
// Names:
//   sort/par/<type>/uniform/<n>, sort/cub_radix/<type>/uniform/<n> for u32, f32 and u64 keys,
//   sort_by_key/par/u32+u32/uniform/<n> and its cub_radix partner: every power of two from
//   2^10 to 2^28 (up to --gpusort_max_log2) and a few odd sizes (10^3, 10^5, 3 * 10^6 + 1).
//   The CUB rows at even powers of two are radix_bench.cu's (same names, same data).
//   --benchmark_filter='/(par|cub_radix)/(u32|f32|u64|u32\+u32)/uniform/[0-9]+/' runs these.
//   sweep/<strategy>/<type>/uniform/<n>: gpusort::par_pinned<strategy> for u32 and u64 keys,
//   u32+u32 and u64+u32 pairs, n = 2^10 ... 2^22 in steps of 2^(1/2) (strategies only where
//   their cluster holds n). --benchmark_filter=sweep/ runs these; scripts/par_table.py turns
//   them into policies/tuning/par_table_sm90.cuh.
// Verification as everywhere: par is stable on radix keys, so its output equals CUB's.

#include "harness/sort_benchmark.cuh"
#include "harness/sort_case.cuh"

#include <gpusort/sort.cuh>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gpusort_bench {
namespace {

template <class Key, class Value = keys_only>
void register_par_type(bench_context& context, int max_log2) {
  using par_case = sort_case<Key, Value>;
  using cached = verified_case<par_case, gpusort::par>;
  std::vector<std::size_t> sizes;
  for (int log2 = 10; log2 <= max_log2; ++log2) sizes.push_back(std::size_t(1) << log2);
  for (std::size_t odd : {std::size_t(1000), std::size_t(100000), std::size_t(3000001)})
    if (odd <= (std::size_t(1) << max_log2)) sizes.push_back(odd);
  for (std::size_t n : sizes)
    for (side which : {side::gpusort, side::cub}) {
      // radix_bench.cu already has CUB at the even powers of two (the same name and data).
      const bool even_power = (n & (n - 1)) == 0 && __builtin_ctzll(n) % 2 == 0;
      if (which == side::cub && even_power) continue;
      const std::string name = benchmark_name(par_case::op_name(),
                                              which == side::gpusort ? "par" : "cub_radix",
                                              case_type_name<Key, Value>(), n);
      register_sort_benchmark<cached>(context, name, which, n);
    }
}

constexpr const char* strategy_name(gpusort::par_strategy strategy) {
  switch (strategy) {
    case gpusort::par_strategy::cluster_small: return "cluster_small";
    case gpusort::par_strategy::cluster_medium: return "cluster_medium";
    case gpusort::par_strategy::merge: return "merge";
    case gpusort::par_strategy::onesweep_small_tiles: return "onesweep_small_tiles";
    case gpusort::par_strategy::onesweep: return "onesweep";
  }
  return "?";
}

template <class Tiling, class Key, class Value>
constexpr std::size_t cluster_capacity() {
  using value_type = std::conditional_t<std::is_same_v<Value, keys_only>,
                                        gpusort::backends::no_values_tag, Value>;
  return std::size_t(
      gpusort::backends::radix::cluster_shape<Tiling, 8, Key, value_type>::capacity);
}

// The most keys a pinned strategy takes without falling back to the one-sweep sort.
template <gpusort::par_strategy Strategy, class Key, class Value>
constexpr std::size_t strategy_limit() {
  using gpusort::par_strategy;
  if constexpr (Strategy == par_strategy::cluster_small)
    return cluster_capacity<gpusort::cluster_tiling_small_sm90, Key, Value>();
  else if constexpr (Strategy == par_strategy::cluster_medium)
    return cluster_capacity<gpusort::cluster_tiling_medium_sm90, Key, Value>();
  else
    return ~std::size_t(0);
}

template <gpusort::par_strategy Strategy, class Key, class Value = keys_only>
void register_sweep_strategy(bench_context& context) {
  using sweep_case = sort_case<Key, Value>;
  using cached = verified_case<sweep_case, gpusort::par_pinned<Strategy>>;
  for (int half_steps = 20; half_steps <= 44; ++half_steps) {
    const auto n = static_cast<std::size_t>(std::llround(std::exp2(half_steps / 2.0)));
    if (n > strategy_limit<Strategy, Key, Value>()) break;
    const std::string name = std::string("sweep/") + strategy_name(Strategy) + "/" +
                             case_type_name<Key, Value>() + "/uniform/" + std::to_string(n);
    register_sort_benchmark<cached>(context, name, side::gpusort, n);
  }
}

template <class Key, class Value = keys_only>
void register_sweep_type(bench_context& context) {
  using gpusort::par_strategy;
  register_sweep_strategy<par_strategy::cluster_small, Key, Value>(context);
  register_sweep_strategy<par_strategy::cluster_medium, Key, Value>(context);
  register_sweep_strategy<par_strategy::merge, Key, Value>(context);
  register_sweep_strategy<par_strategy::onesweep_small_tiles, Key, Value>(context);
  register_sweep_strategy<par_strategy::onesweep, Key, Value>(context);
}

}  // namespace

void register_par_benchmarks(bench_context& context, int max_log2) {
  register_par_type<std::uint32_t>(context, max_log2);
  register_par_type<float>(context, max_log2);
  register_par_type<std::uint64_t>(context, max_log2);
  register_par_type<std::uint32_t, std::uint32_t>(context, max_log2);
  register_sweep_type<std::uint32_t>(context);
  register_sweep_type<std::uint64_t>(context);
  register_sweep_type<std::uint32_t, std::uint32_t>(context);
  register_sweep_type<std::uint64_t, std::uint32_t>(context);
}

}  // namespace gpusort_bench
