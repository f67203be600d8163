// gpusort_bench's merge rows: gpusort::merge, the comparison backend, as a user calls it,
// next to cub::DeviceMergeSort and Thrust with the same comparator, measured as main.cu
// describes (all sort the work buffers in place).
//
// Names: <op>/<backend>/<type>/uniform/<n>, n = 2^10, 2^11, ..., 2^28 (every power, since
// the number of merge passes changes with each doubling; up to --gpusort_max_log2), 3000,
// 4608 and 6000 (the bands of one block of 512 x 9 and 512 x 13 keys, between 2^11 and
// 2^13), and 3000001 and 6000000 (a last pass that merges a full run with a short one, as
// most sizes a user sorts do; with --gpusort_max_log2 of at least 22 and 23), for
//   sort/<backend>/u32/uniform/<n>                     gpusort::less<>
//   sort/<backend>/f64/uniform/<n>                     gpusort::less<>
//   sort/<backend>/s16/uniform/<n>                     major_minor_less
//   stable_sort/<backend>/s16/uniform/<n>              major_minor_less
//   stable_sort_by_key/<backend>/u32+u32/uniform/<n>   gpusort::less<>
// (u32 index values 0..n-1 in the pairs), each with <backend> one of
//   merge         gpusort::sort / gpusort::stable_sort_by_key(gpusort::merge.on(s), ...,
//                 comparator): no allocator, as a user calls it (the headline)
//   merge_pool    the same call with .with_allocator(a pre-allocated block)
//   cub_merge     cub::DeviceMergeSort SortKeys / StableSortPairs, temp storage allocated
//                 once up front
//   thrust_merge  thrust::sort / thrust::stable_sort_by_key(thrust::cuda::par.on(s), ...,
//                 comparator): Thrust's merge sort (it sorts by radix only for its own less
//                 and greater), temporary storage allocated per call. Not "thrust":
//                 par_bench.cu's sort/thrust/u32/... and sort/thrust/f64/... rows are
//                 Thrust's radix sort of the same keys.
// and with a __device__ lambda, [] __device__ (u32 a, u32 b) { return a < b; }, as users
// write one inline:
//   sort/<backend>/u32/uniform/<n>   <backend>: merge_lambda, cub_merge_lambda,
//                                    thrust_merge_lambda (each as above, with the lambda)
// (The merge-vs-cub runs in bench/results/, from before merge_pool, name the pre-allocated
// call merge.)
// s16 is harness/struct_key.cuh: { u32 major; float minor; u64 id; } ordered by (major, minor)
// with 4096 distinct majors and random minors; id is payload. (Results before 2026-11-25
// used { u64 major; u32 minor; u32 tag; }.)
//
// Merge rows only (par's sweep/merge/... rows, a par strategy, also contain "merge"):
//   --benchmark_filter='^(sort|stable_sort|stable_sort_by_key)/(merge|merge_pool|cub_merge|thrust_merge)(_lambda)?/'
// One type: --benchmark_filter='^sort/(merge|merge_pool|cub_merge|thrust_merge)/s16/'; the
// plain call and CUB only:
//   --benchmark_filter='^(sort|stable_sort|stable_sort_by_key)/(merge|cub_merge)(_lambda)?/'.
// Run time of the merge rows (483 benchmarks, Google Benchmark's default 0.5 s minimum
// each): about 8-14 minutes on an H100/H200, most of it the timed loops (about 1-2 s of wall
// time per benchmark, the most at small sizes, where the copy of the input and the event
// synchronisation around each sort take as long as the sort), the rest building and
// verifying the cases (about 10 s for 2^28 s16, with 8 GiB of host copies): an estimate.
// Measured: with --benchmark_min_time=0.1s these rows and copy/ took 218 s on an H200
// (2026-11-24), building gpusort_bench included.
// Memory: at most about 24 GiB (2^28 s16, 4 GiB each: input, work buffer, CUB's temp
// storage, the bench pool, what gpusort's own pool keeps after the plain call, and Thrust's
// temporary storage during its calls), so 2^28 fits every type on an 80 GB GPU.
//
// Verification, once per case (gpusort's output against CUB's; the Thrust rows are not
// verified, as par_bench.cu's are not): after the unstable sort rows gpusort's keys must equal
// CUB's byte for byte except within runs of keys the comparator calls equivalent (for s16,
// equal (major, minor) with different tags; u32 and f64 have none that differ in bytes),
// where each run must hold the same keys in some order; after stable_sort_by_key, keys and
// values (the input indices) must equal CUB's StableSortPairs byte for byte. Either way the
// keys must be in the comparator's order. One verification serves merge and merge_pool: where
// the temporary memory comes from does not change what is sorted.

#include "harness/cub_merge.cuh"
#include "harness/sort_benchmark.cuh"
#include "harness/sort_case.cuh"
#include "harness/struct_key.cuh"

#include <gpusort/sort.cuh>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gpusort_bench {
namespace {

constexpr int merge_min_log2 = 10;
constexpr int merge_max_log2 = 28;  // 2^28 s16: about 24 GiB of device memory (above)

// The rows of the merge report (sort_row: the backend named in the benchmark, who sorts, and
// where its temporary memory comes from).
inline constexpr sort_row merge_rows[] = {
    {"merge", side::gpusort, storage_source::gpusort_default},
    {"merge_pool", side::gpusort, storage_source::bench_pool},
    {"cub_merge", side::cub, storage_source::bench_pool},
    {"thrust_merge", side::thrust, storage_source::gpusort_default},
};

// The rows with a __device__ lambda: the plain call, CUB and Thrust with the same lambda
// (bench_table.py compares merge_lambda with cub_merge_lambda).
inline constexpr sort_row lambda_rows[] = {
    {"merge_lambda", side::gpusort, storage_source::gpusort_default},
    {"cub_merge_lambda", side::cub, storage_source::bench_pool},
    {"thrust_merge_lambda", side::thrust, storage_source::gpusort_default},
};

// Every size of one type's rows. HostOrder: Compare's order for the host's checks (see
// cub_merge_sorter).
template <class Key, class Value, class Compare, bool Stable, class HostOrder = Compare,
          std::size_t Rows>
void register_merge_type(bench_context& context, int max_log2, const sort_row (&rows)[Rows]) {
  using merge_case =
      sort_case<Key, Value, cub_merge_sorter<Key, Value, Compare, Stable, HostOrder>>;
  using cached = verified_case<merge_case, gpusort::merge>;
  std::vector<std::size_t> sizes = {3000, 4608, 6000};
  for (int log2 = merge_min_log2; log2 <= std::min(max_log2, merge_max_log2); ++log2)
    sizes.push_back(std::size_t(1) << log2);
  for (const std::size_t n : {std::size_t(3000001), std::size_t(6000000)})
    if (n <= std::size_t(1) << std::min(max_log2, merge_max_log2)) sizes.push_back(n);
  std::sort(sizes.begin(), sizes.end());
  for (const std::size_t n : sizes) {
    for (const sort_row& r : rows) {
      const std::string name =
          benchmark_name(merge_case::op_name(), r.backend, case_type_name<Key, Value>(), n);
      register_sort_benchmark<cached>(context, name, r.which, n, key_distribution::uniform,
                                      r.source);
    }
  }
}

}  // namespace

void register_merge_benchmarks(bench_context& context, int max_log2) {
  register_merge_type<std::uint32_t, keys_only, gpusort::less<>, false>(context, max_log2,
                                                                       merge_rows);
  register_merge_type<double, keys_only, gpusort::less<>, false>(context, max_log2, merge_rows);
  register_merge_type<s16_key, keys_only, major_minor_less, false>(context, max_log2, merge_rows);
  register_merge_type<s16_key, keys_only, major_minor_less, true>(context, max_log2, merge_rows);
  register_merge_type<std::uint32_t, std::uint32_t, gpusort::less<>, true>(context, max_log2,
                                                                          merge_rows);
  // Defined here: an extended lambda may not be defined at namespace scope or in a function
  // with a deduced return type. The host checks order the keys with gpusort::less<>.
  auto lambda_less = [] __device__(std::uint32_t a, std::uint32_t b) { return a < b; };
  register_device_comparator(lambda_less);
  register_merge_type<std::uint32_t, keys_only, decltype(lambda_less), false, gpusort::less<>>(
      context, max_log2, lambda_rows);
}

}  // namespace gpusort_bench
