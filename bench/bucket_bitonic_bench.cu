// gpusort_bench's bucket_bitonic rows: gpusort::bucket_bitonic (min/max bucket partition,
// then bitonic sorts of the buckets; unstable) against cub::DeviceRadixSort (SortKeys,
// out-of-place form, all key bits) on uniform and on skewed keys, measured as main.cu
// describes. A bucket partition cut between min and max is only as good as the keys are
// spread, so each distribution gets its own rows (harness/random_keys.cuh defines them).
//
// Names, for <type> u32, f32, u64 and f64, n = 2^20, 2^22, ..., 2^28 (up to
// --gpusort_max_log2), and <dist> uniform, normal, exponential, zipf, all_equal, two_values,
// outlier, sorted, reversed, clustered:
//   sort/bucket_bitonic/<type>/<dist>/<n>   gpusort::sort(gpusort::bucket_bitonic, ...)
//   sort/cub_radix/<type>/<dist>/<n>        cub::DeviceRadixSort::SortKeys, same data
// and for u64+u32 pairs, uniform keys only:
//   sort_by_key/bucket_bitonic/u64+u32/uniform/<n>
// The uniform CUB rows of u32, f32, u64 and u64+u32 are radix_bench.cu's (the same names,
// the same data: keys are a pure function of (seed, index)); registering them again would
// run them twice.
//
// Only these rows and their CUB partners (names are matched by regex):
//   --benchmark_filter='bucket_bitonic|cub_radix/(u32|f32|u64|f64|u64\+u32)/'
// That also runs radix_bench.cu's uniform CUB rows below 2^20 (a few seconds). Measured: the
// four types' rows at 2^20, 2^22, ..., 2^28 with their CUB partners and the copy rows, at
// --benchmark_min_time=0.05 and 3 repetitions, took 250-285 s on an H100 and an H200 (the
// runs behind bench/results/2026-11-25-*-bucket-bitonic-vs-cub.md); Google Benchmark's
// default of 0.5 s of timed sorts per row takes longer. Memory at 2^28 keys of 8 bytes: about 8 GiB (input, work buffer, CUB's
// output and temp storage, 2 GiB each) plus bucket_bitonic's pool.
//
// Verification, once per case: the keys must equal CUB's byte for byte. The sort is
// unstable, but no type has keys that are equal without being identical (no distribution
// makes -0.0 or NaN), so the sorted sequence is unique.

#include "harness/sort_benchmark.cuh"
#include "harness/sort_case.cuh"

#include <gpusort/sort.cuh>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

namespace gpusort_bench {
namespace {

constexpr int bucket_bitonic_min_log2 = 20;

// Keys only: every distribution; with values: uniform keys only (sort_by_key rows).
template <class Key, class Value = keys_only>
void register_bucket_bitonic_type(bench_context& context, int max_log2) {
  using bucket_case = sort_case<Key, Value>;  // the reference: cub_radix_sorter
  using cached = verified_case<bucket_case, gpusort::bucket_bitonic>;
  // radix_bench.cu registers these types' uniform CUB rows under the same names.
  constexpr bool radix_bench_has_uniform_cub = !std::is_same_v<Key, double>;
  for (key_distribution distribution : all_key_distributions) {
    if (!std::is_same_v<Value, keys_only> && distribution != key_distribution::uniform) continue;
    for (int log2 = bucket_bitonic_min_log2; log2 <= max_log2; log2 += 2) {
      const std::size_t n = std::size_t(1) << log2;
      for (side which : {side::gpusort, side::cub}) {
        if (which == side::cub && distribution == key_distribution::uniform &&
            radix_bench_has_uniform_cub)
          continue;
        const std::string name = benchmark_name(bucket_case::op_name(),
                                                which == side::gpusort ? "bucket_bitonic" : "cub_radix",
                                                case_type_name<Key, Value>(), n, distribution);
        register_sort_benchmark<cached>(context, name, which, n, distribution);
      }
    }
  }
}

}  // namespace

void register_bucket_bitonic_benchmarks(bench_context& context, int max_log2) {
  register_bucket_bitonic_type<std::uint32_t>(context, max_log2);
  register_bucket_bitonic_type<float>(context, max_log2);
  register_bucket_bitonic_type<std::uint64_t>(context, max_log2);
  register_bucket_bitonic_type<double>(context, max_log2);
  register_bucket_bitonic_type<std::uint64_t, std::uint32_t>(context, max_log2);
}

}  // namespace gpusort_bench
