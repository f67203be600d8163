// gpusort_bench's par rows: gpusort::par (its run-time choice by n) as a user calls it, next to
// cub::DeviceRadixSort and thrust::sort, and the sweep behind par's dispatch tables: every
// strategy pinned.
//
// Names:
//   <op>/<backend>/<type>/uniform/<n> for u32, f32, u64, f64 keys and u32+u32 (op sort or
//   sort_by_key), every power of two from 2^10 to 2^28 (up to --gpusort_max_log2) and a few
//   odd sizes (10^3, 3000, 10^5, 3 * 10^6 + 1), and u64+u32 pairs, backend one of
//     par              gpusort::sort(gpusort::par.on(s), ...): no allocator (the headline)
//     par_pool         the same call with .with_allocator(a pre-allocated block)
//     par_mallocasync  the same call with an allocator that calls cudaMallocAsync on the
//                      device's default pool: what the plain call did before gpusort had its
//                      own pool
//     cub_radix        cub::DeviceRadixSort, temp storage allocated once up front, an int
//                      item count
//     cub_radix_size_t the same with a std::size_t count (harness/cub_count.cuh: faster for
//                      some types and sizes; the scripts set par against the faster CUB call)
//     thrust           thrust::sort / thrust::sort_by_key(thrust::cuda::par.on(s), ...)
//   --benchmark_filter='^sort(_by_key)?/(par|par_pool|par_mallocasync|cub_radix|cub_radix_size_t|thrust)/'
//   runs these (at even powers of two the CUB rows are radix_bench.cu's: the same names and data).
//   sort/<par|cub_radix|cub_radix_size_t|thrust>/<u8|u16|i8|i16|f16|bf16>/uniform/<n> and
//   sort_by_key/.../<u8|u16>+u32/uniform/<n>, n = 2^16, 2^20, 2^22, 2^23, 2^24, 2^26, 2^28:
//   narrow keys; par counts keys without values (8-bit integers from 2^16, 16-bit integers
//   and floats from 2^22: backends/radix/counting_sort.cuh), the rest take its one-sweep
//   passes;
//   --benchmark_filter='^sort(_by_key)?/(par|cub_radix[^/]*|thrust)/(u8|u16|i8|i16|f16|bf16)[/+]'
//   runs these only.
//   copy/cuda_memcpy/u32/uniform/<n>: the device-to-device copy every result is set against.
//   host/<par|cub_radix>/u32/uniform/<n>: host time of one call (n = 2^10 and 2^20).
//   sweep/<strategy>/<type>/uniform/<n>: gpusort::par_pinned<strategy> without an allocator for
//   u32 and u64 keys, u32+u32 and u64+u32 pairs, n = 2^10 ... 2^22 in steps of 2^(1/2)
//   (strategies only where their cluster holds n; onesweep_pair_tiles for u32+u32 only, the
//   one type it is meant for). --benchmark_filter=sweep/ runs these;
//   scripts/par_table.py turns them into policies/tuning/par_table_<gpu>.cuh.
// Verification as everywhere: par is stable on radix keys, so its output equals CUB's.

#include "harness/copy_benchmark.cuh"
#include "harness/device_buffer.cuh"
#include "harness/random_keys.cuh"
#include "harness/sort_benchmark.cuh"
#include "harness/sort_case.cuh"

#include <gpusort/sort.cuh>

#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <vector>

namespace gpusort_bench {
namespace {

// The rows of the par report (sort_row: the backend named in the benchmark, who sorts, and
// where its temporary memory comes from).
inline constexpr sort_row plain_call{"par", side::gpusort, storage_source::gpusort_default};
inline constexpr sort_row pooled_call{"par_pool", side::gpusort, storage_source::bench_pool};
inline constexpr sort_row mallocasync_call{"par_mallocasync", side::gpusort,
                                           storage_source::device_default_pool};
inline constexpr sort_row cub_call{"cub_radix", side::cub, storage_source::bench_pool};
inline constexpr sort_row cub_size_t_call{"cub_radix_size_t", side::cub_size_t_count,
                                          storage_source::bench_pool};
inline constexpr sort_row thrust_call{"thrust", side::thrust, storage_source::gpusort_default};

// Each row at each size, verified against the reference as every par benchmark is. With
// `cub_in_radix_bench`, CUB rows at even powers of two are left out: radix_bench.cu registers
// them (the same name and data).
template <class Key, class Value = keys_only>
void register_par_rows(bench_context& context, const std::vector<std::size_t>& sizes,
                       std::initializer_list<sort_row> rows, bool cub_in_radix_bench) {
  using par_case = sort_case<Key, Value>;
  using cached = verified_case<par_case, gpusort::par>;
  for (std::size_t n : sizes)
    for (const sort_row& r : rows) {
      const bool even_power = (n & (n - 1)) == 0 && __builtin_ctzll(n) % 2 == 0;
      if (is_cub(r.which) && even_power && cub_in_radix_bench) continue;
      const std::string name =
          benchmark_name(par_case::op_name(), r.backend, case_type_name<Key, Value>(), n);
      register_sort_benchmark<cached>(context, name, r.which, n, key_distribution::uniform,
                                      r.source);
    }
}

// Every power of two from 2^10 to 2^max_log2 and four odd sizes, each call of the report.
template <class Key, class Value = keys_only>
void register_par_type(bench_context& context, int max_log2, bool cub_in_radix_bench) {
  std::vector<std::size_t> sizes;
  for (int log2 = 10; log2 <= max_log2; ++log2) sizes.push_back(std::size_t(1) << log2);
  for (std::size_t odd :
       {std::size_t(1000), std::size_t(3000), std::size_t(100000), std::size_t(3000001)})
    if (odd <= (std::size_t(1) << max_log2)) sizes.push_back(odd);
  register_par_rows<Key, Value>(
      context, sizes,
      {plain_call, pooled_call, mallocasync_call, cub_call, cub_size_t_call, thrust_call},
      cub_in_radix_bench);
}

// Narrow keys (8 and 16 bits, keys only or with u32 values): gpusort::par as a user calls it
// (no allocator), CUB and thrust::sort, at 2^16, 2^20, 2^22, 2^23, 2^24, 2^26 and 2^28 (the
// counting sort takes keys without values from 2^16 for 8-bit keys, 2^22 for 16-bit keys;
// the rest run the one-sweep passes).
template <class Key, class Value = keys_only>
void register_narrow_type(bench_context& context, int max_log2) {
  std::vector<std::size_t> sizes;
  for (int log2 : {16, 20, 22, 23, 24, 26, 28})
    if (log2 <= max_log2) sizes.push_back(std::size_t(1) << log2);
  // (thrust::sort has no radix path for __half and __nv_bfloat16: no thrust row for them.)
  if constexpr (std::is_arithmetic_v<Key>)
    register_par_rows<Key, Value>(context, sizes,
                                  {plain_call, cub_call, cub_size_t_call, thrust_call}, false);
  else
    register_par_rows<Key, Value>(context, sizes, {plain_call, cub_call, cub_size_t_call}, false);
}


// What a call costs the calling thread: host time (a steady clock) around one enqueue of a
// sort of n u32 keys on tiny and mid inputs, the device idle before each call (the stream is
// synchronised outside the timing), for gpusort::par without an allocator and for CUB with
// pre-allocated temp storage. Names: host/par/u32/uniform/<n>, host/cub_radix/u32/uniform/<n>.
template <class Cached>
void register_host_overhead_benchmark(bench_context& context, side which, std::size_t n) {
  const std::string name =
      benchmark_name("host", which == side::gpusort ? "par" : "cub_radix", "u32", n);
  benchmark::RegisterBenchmark(
      name.c_str(),
      [&context, which, n](benchmark::State& state) {
        try {
          const cudaStream_t stream = context.stream.get();
          auto& cached = context.cases.get<Cached>(n, key_distribution::uniform, stream);
          const auto policy = cached.policy(stream, storage_source::gpusort_default);
          for (auto _ : state) {
            cached.data.refresh();
            check_cuda(cudaStreamSynchronize(stream), "waiting before a host-timed call");
            const auto begin = std::chrono::steady_clock::now();
            if (which == side::gpusort)
              cached.data.sort_with_gpusort(policy);
            else
              cached.data.sort_with_cub();
            const auto end = std::chrono::steady_clock::now();
            state.SetIterationTime(std::chrono::duration<double>(end - begin).count());
          }
          check_cuda(cudaStreamSynchronize(stream), "waiting after the host-timed calls");
        } catch (const std::exception& e) {
          state.SkipWithError(e.what());
        }
      })
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
}

constexpr const char* strategy_name(gpusort::par_strategy strategy) {
  switch (strategy) {
    case gpusort::par_strategy::cluster_small: return "cluster_small";
    case gpusort::par_strategy::cluster_medium: return "cluster_medium";
    case gpusort::par_strategy::merge: return "merge";
    case gpusort::par_strategy::onesweep_small_tiles: return "onesweep_small_tiles";
    case gpusort::par_strategy::msd_buckets: return "msd_buckets";
    case gpusort::par_strategy::onesweep_mid_tiles: return "onesweep_mid_tiles";
    case gpusort::par_strategy::onesweep_pair_tiles: return "onesweep_pair_tiles";
    case gpusort::par_strategy::onesweep: return "onesweep";
  }
  return "?";
}

template <class Tiling, class Key, class Value>
constexpr std::size_t cluster_capacity() {
  using value_type = std::conditional_t<std::is_same_v<Value, keys_only>,
                                        gpusort::no_values, Value>;
  return std::size_t(
      gpusort::backends::radix::cluster_shape<Tiling, Key, value_type>::capacity);
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
    // The default storage, as a user's call gets it: the table is chosen for that call.
    register_sort_benchmark<cached>(context, name, side::gpusort, n, key_distribution::uniform,
                                    storage_source::gpusort_default);
  }
}

template <class Key, class Value = keys_only>
void register_sweep_type(bench_context& context) {
  using gpusort::par_strategy;
  register_sweep_strategy<par_strategy::cluster_small, Key, Value>(context);
  register_sweep_strategy<par_strategy::cluster_medium, Key, Value>(context);
  register_sweep_strategy<par_strategy::merge, Key, Value>(context);
  register_sweep_strategy<par_strategy::onesweep_small_tiles, Key, Value>(context);
  register_sweep_strategy<par_strategy::msd_buckets, Key, Value>(context);
  register_sweep_strategy<par_strategy::onesweep_mid_tiles, Key, Value>(context);
  register_sweep_strategy<par_strategy::onesweep, Key, Value>(context);
  // (Tiles for pairs of 4-byte keys: timed for those alone, to spare the other types' build.)
  if constexpr (sizeof(Key) == 4 && !std::is_same_v<Value, keys_only>)
    register_sweep_strategy<par_strategy::onesweep_pair_tiles, Key, Value>(context);
}

}  // namespace

void register_par_benchmarks(bench_context& context, int max_log2) {
  // The ceiling every sort's bytes are set against: 2^28 u32 keys (1 GiB: far beyond L2).
  register_copy_benchmark(context, std::size_t(1) << (max_log2 < 28 ? max_log2 : 28));
  using host_case = verified_case<sort_case<std::uint32_t>, gpusort::par>;
  for (std::size_t n : {std::size_t(1) << 10, std::size_t(1) << 20})
    for (side which : {side::gpusort, side::cub})
      register_host_overhead_benchmark<host_case>(context, which, n);
  // radix_bench.cu has CUB rows for u32, f32, u64 and the two pairs, not for f64.
  register_par_type<std::uint32_t>(context, max_log2, true);
  register_par_type<float>(context, max_log2, true);
  register_par_type<std::uint64_t>(context, max_log2, true);
  register_par_type<double>(context, max_log2, false);
  register_par_type<std::uint32_t, std::uint32_t>(context, max_log2, true);
  register_par_type<std::uint64_t, std::uint32_t>(context, max_log2, true);
  register_narrow_type<std::uint8_t>(context, max_log2);
  register_narrow_type<std::uint16_t>(context, max_log2);
  register_narrow_type<std::int8_t>(context, max_log2);
  register_narrow_type<std::int16_t>(context, max_log2);
  register_narrow_type<__half>(context, max_log2);
  register_narrow_type<__nv_bfloat16>(context, max_log2);
  register_narrow_type<std::uint8_t, std::uint32_t>(context, max_log2);
  register_narrow_type<std::uint16_t, std::uint32_t>(context, max_log2);
  register_sweep_type<std::uint32_t>(context);
  register_sweep_type<std::uint64_t>(context);
  register_sweep_type<std::uint32_t, std::uint32_t>(context);
  register_sweep_type<std::uint64_t, std::uint32_t>(context);
}

}  // namespace gpusort_bench
