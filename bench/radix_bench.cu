// gpusort_bench's radix rows: gpusort::radix against cub::DeviceRadixSort (SortKeys /
// SortPairs, out-of-place form, all key bits), measured as main.cu describes.
//
// Names: sort/radix/<type>/uniform/<n> and sort/cub_radix/<type>/uniform/<n> for u32, u64 and
// f32 keys, sort_by_key/radix/u32+u32/uniform/<n> and sort_by_key/cub_radix/u32+u32/... for
// u32 keys with u32 index values (and u64+u32 likewise); n = 2^10, 2^12, ..., 2^28 (up to
// --gpusort_max_log2). cub_radix calls CUB with an int item count, cub_radix_size_t (the same
// names otherwise) with a std::size_t one (harness/cub_count.cuh).
// --benchmark_filter='radix/.*/uniform' runs these only (a regex: write "u32\+u32" for the
// pairs); 'radix' alone also runs bucket_bitonic_bench.cu's CUB rows on skewed keys, named
// cub_radix too. The u32 and f32 uniform CUB rows here are also bucket_bitonic_bench.cu's
// uniform partners.
// Verification: both sorts are stable, so keys and values must equal CUB's byte for byte.

#include "harness/sort_benchmark.cuh"
#include "harness/sort_case.cuh"

#include <gpusort/sort.cuh>

#include <cstddef>
#include <cstdint>
#include <string>

namespace gpusort_bench {
namespace {

template <class Key, class Value = keys_only>
void register_radix_type(bench_context& context, int max_log2) {
  using radix_case = sort_case<Key, Value>;  // the reference: cub_radix_sorter
  using cached = verified_case<radix_case, gpusort::radix>;
  for (int log2 = 10; log2 <= max_log2; log2 += 2) {
    const std::size_t n = std::size_t(1) << log2;
    for (side which : {side::gpusort, side::cub, side::cub_size_t_count}) {
      const char* backend = which == side::gpusort ? "radix"
                            : which == side::cub   ? "cub_radix"
                                                   : "cub_radix_size_t";
      const std::string name =
          benchmark_name(radix_case::op_name(), backend, case_type_name<Key, Value>(), n);
      register_sort_benchmark<cached>(context, name, which, n);
    }
  }
}

}  // namespace

void register_radix_benchmarks(bench_context& context, int max_log2) {
  register_radix_type<std::uint32_t>(context, max_log2);
  register_radix_type<std::uint64_t>(context, max_log2);
  register_radix_type<float>(context, max_log2);
  register_radix_type<std::uint32_t, std::uint32_t>(context, max_log2);
  register_radix_type<std::uint64_t, std::uint32_t>(context, max_log2);
}

}  // namespace gpusort_bench
