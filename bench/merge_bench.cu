// gpusort_bench's merge rows: gpusort::merge, the comparison backend, against
// cub::DeviceMergeSort with the same comparator, measured as main.cu describes (both sort the
// work buffers in place; CUB's temp storage sized by its two-phase query, gpusort's from the
// pre-allocated pool).
//
// Names (n = 2^16, 2^17, ..., 2^26: every power, since the number of merge passes changes
// with each doubling; up to --gpusort_max_log2), each with <backend> merge (gpusort) and
// cub_merge (CUB), both given the same comparator:
//   sort/<backend>/u32/uniform/<n>                     gpusort::less<>   CUB SortKeys
//   sort/<backend>/f64/uniform/<n>                     gpusort::less<>   CUB SortKeys
//   sort/<backend>/s16/uniform/<n>                     major_minor_less  CUB SortKeys
//   stable_sort_by_key/<backend>/u32+u32/uniform/<n>   gpusort::less<>   CUB StableSortPairs
// (u32 index values 0..n-1 in the pairs).
// s16 is harness/struct_key.cuh: { u64 major; u32 minor; u32 tag; } ordered by (major, minor)
// with 4096 distinct majors and random minors; tag is payload.
//
// Merge rows only: --benchmark_filter=merge (no radix name contains "merge"). One type:
// --benchmark_filter='merge/s16/', the pairs: --benchmark_filter='stable_sort_by_key'.
// Run time of the merge rows (88 benchmarks, Google Benchmark's default 0.5 s minimum each):
// about 1.5-2 minutes on an H100/H200, most of it the timed loops (~1 s of wall time per
// benchmark, each size alike); the rest is building and verifying the cases (about 2 s for
// 2^26 s16). (An estimate from CUB's merge sort times in docs/anchors.md and Google
// Benchmark's iteration rule, not yet a measurement.) Memory: at most about 4 GiB (2^26 s16: input, work buffer, CUB's temp storage,
// gpusort's pool, 1 GiB each).
//
// Verification, once per case: after the unstable sort rows gpusort's keys must equal CUB's
// byte for byte except within runs of keys the comparator calls equivalent (for s16, equal
// (major, minor) with different tags; u32 and f64 have none that differ in bytes), where each
// run must hold the same keys in some order; after stable_sort_by_key, keys and values (the
// input indices) must equal CUB's StableSortPairs byte for byte. Either way the keys must be
// in the comparator's order.

#include "harness/cub_merge.cuh"
#include "harness/sort_benchmark.cuh"
#include "harness/sort_case.cuh"
#include "harness/struct_key.cuh"

#include <gpusort/sort.cuh>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

namespace gpusort_bench {
namespace {

constexpr int merge_min_log2 = 16;
constexpr int merge_max_log2 = 26;

template <class Key, class Value, class Compare, bool Stable>
void register_merge_type(bench_context& context, int max_log2) {
  using merge_case = sort_case<Key, Value, cub_merge_sorter<Key, Value, Compare, Stable>>;
  using cached = verified_case<merge_case, gpusort::merge>;
  for (int log2 = merge_min_log2; log2 <= std::min(max_log2, merge_max_log2); ++log2) {
    const std::size_t n = std::size_t(1) << log2;
    for (side which : {side::gpusort, side::cub}) {
      const std::string name = benchmark_name(merge_case::op_name(),
                                              which == side::gpusort ? "merge" : "cub_merge",
                                              case_type_name<Key, Value>(), n);
      register_sort_benchmark<cached>(context, name, which, n);
    }
  }
}

}  // namespace

void register_merge_benchmarks(bench_context& context, int max_log2) {
  register_merge_type<std::uint32_t, keys_only, gpusort::less<>, false>(context, max_log2);
  register_merge_type<double, keys_only, gpusort::less<>, false>(context, max_log2);
  register_merge_type<s16_key, keys_only, major_minor_less, false>(context, max_log2);
  register_merge_type<std::uint32_t, std::uint32_t, gpusort::less<>, true>(context, max_log2);
}

}  // namespace gpusort_bench
