// gpusort_bench: each gpusort backend against its CUB counterpart, on the same data, in the
// same process, measured the same way (README, "Benchmarks"):
//   radix_bench.cu   gpusort::radix  vs cub::DeviceRadixSort   (backends radix, cub_radix, and
//                    cub_radix_size_t: CUB with a std::size_t count, harness/cub_count.cuh)
//   merge_bench.cu   gpusort::merge  vs cub::DeviceMergeSort and Thrust's merge sort, all with
//                    the same comparator (backends merge, merge_pool, cub_merge, thrust_merge)
//   bucket_bitonic_bench.cu  gpusort::bucket_bitonic vs cub::DeviceRadixSort
//                                                   (backends bucket_bitonic, cub_radix)
//   par_bench.cu     gpusort::par    vs cub::DeviceRadixSort and thrust::sort (backends par,
//                    par_pool, par_mallocasync, cub_radix, cub_radix_size_t, thrust), the
//                    device copy (copy/...), host time per call (host/...), and the sweep of
//                    par's strategies behind its dispatch tables (sweep/...)
//   segmented_bench.cu  gpusort::segmented_sort (par, merge) vs cub::DeviceSegmentedSort and,
//                    for one segment, gpusort::sort (segmented/...), with a copy row of 2^24
//                    keys (copy/...)
//
//   - uniformly random keys (floating point uniform in [-1e6, 1e6); values are the indices
//     0..n-1), and for the bucket_bitonic rows also skewed ones (harness/random_keys.cuh),
//     generated once per (op, type, distribution, size) on the device;
//   - before every timed sort, an untimed fresh copy of that input into the work buffer;
//   - CUDA events around the sort call only (manual time), on a dedicated non-blocking stream;
//   - no allocation inside the timing for the backend rows: CUB's temp storage is allocated
//     once up front (its two-phase size query), gpusort gets a pre-allocated pool through
//     .with_allocator() (harness/pool_allocator.cuh); the par and merge rows time the plain
//     call, whose storage comes from gpusort's own pool, and the pre-allocated one beside it
//     (par_pool, merge_pool); Thrust's rows allocate per call, as Thrust does;
//   - once per case, untimed: gpusort's output must equal CUB's (harness/sort_case.cuh says
//     exactly how), or the gpusort benchmark reports an error instead of a time.
// The shared machinery is harness/sort_benchmark.cuh; this file only runs it.
//
// Names: <op>/<backend>/<type>/<distribution>/<n>, e.g. sort/radix/u32/uniform/1048576 (Google
// Benchmark appends /manual_time). --benchmark_filter takes a regex over the names:
// 'radix/.*/uniform' runs the radix rows only ('radix' alone also catches the bucket_bitonic
// rows' CUB partners on skewed keys, named cub_radix too),
// '^(sort|stable_sort|stable_sort_by_key)/(merge|merge_pool|cub_merge|thrust_merge)(_lambda)?/'
// the merge rows only,
// 'bucket_bitonic|cub_radix/(u32|f32)/' the bucket_bitonic rows with their CUB partners
// (each file's header lists its names).
// --gpusort_max_log2=N drops sizes above 2^N (default 28; 2^28 u32+u32 needs about 10 GiB,
// the merge rows' 2^28 s16 keys about 24 GiB).
// scripts/bench_table.py turns the JSON output (--benchmark_out=r.json) into markdown tables.
//
// Counters: items_per_second is keys per second. GBps is n * (key + value bytes) * 2 / time:
// the floor, one read and one write of the data, which any out-of-place sort must move; real
// sorts move several times that (an LSD radix sort about 36 B/key for u32 with 8-bit digits; a
// merge sort one read and write per merge pass), so GBps divided by the copy bandwidth says
// how far a sort is from the floor, not how well it uses its passes. temp_bytes is the
// temporary storage the backend asked for.

#include "harness/cuda_check.cuh"
#include "harness/gpu_info.cuh"
#include "harness/sort_benchmark.cuh"

#include <benchmark/benchmark.h>
#include <cub/version.cuh>
#include <gpusort/detail/device_facts.cuh>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

namespace {

using namespace gpusort_bench;

// Takes --gpusort_max_log2=N out of argv (Google Benchmark rejects flags it does not know).
// Returns false on a malformed value.
bool take_max_log2_flag(int& argc, char** argv, int& max_log2) {
  constexpr const char* flag = "--gpusort_max_log2=";
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], flag, std::strlen(flag)) == 0) {
      char* end = nullptr;
      const long value = std::strtol(argv[i] + std::strlen(flag), &end, 10);
      if (*end != '\0' || value < 10 || value > 30) return false;
      max_log2 = static_cast<int>(value);
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  return true;
}

void add_gpu_context(const cudaDeviceProp& gpu) {
  int runtime = 0, driver = 0;
  check_cuda(cudaRuntimeGetVersion(&runtime), "querying the CUDA runtime version");
  check_cuda(cudaDriverGetVersion(&driver), "querying the CUDA driver version");
  const auto cuda_version = [](int v) {
    return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
  };
  // Google Benchmark writes "date" (and host, CPU) into the context itself.
  benchmark::AddCustomContext("gpu", gpu.name);
  benchmark::AddCustomContext("gpu_compute_capability",
                              std::to_string(gpu.major) + "." + std::to_string(gpu.minor));
  benchmark::AddCustomContext("gpu_sms", std::to_string(gpu.multiProcessorCount));
  // What gpusort::par keys its dispatch table by (with the compute capability): the peak
  // memory bandwidth as gpusort computes it (scripts/par_table.py writes it into a table).
  int device = 0;
  check_cuda(cudaGetDevice(&device), "querying the current device");
  benchmark::AddCustomContext(
      "gpu_peak_memory_bandwidth_gbps",
      std::to_string(gpusort::detail::facts_of_device(device).peak_memory_bandwidth / 1e9));
  benchmark::AddCustomContext("gpu_memory_gib",
                              std::to_string(gpu.totalGlobalMem / (1024.0 * 1024 * 1024)));
  benchmark::AddCustomContext("cuda_runtime", cuda_version(runtime));
  benchmark::AddCustomContext("cuda_driver", cuda_version(driver));
  benchmark::AddCustomContext("cub", std::to_string(CUB_MAJOR_VERSION) + "." +
                                         std::to_string(CUB_MINOR_VERSION) + "." +
                                         std::to_string(CUB_SUBMINOR_VERSION));
}

}  // namespace

int main(int argc, char** argv) {
  // Before Google Benchmark runs anything: a machine without a GPU has nothing to measure,
  // and that is not a failure. (stderr, so that stdout stays clean for --benchmark_format=json.)
  const gpu_lookup gpu = find_gpu();
  if (!gpu.found) {
    std::fprintf(stderr, "no CUDA GPU found: %s; nothing to benchmark\n", gpu.why_not.c_str());
    return 0;
  }

  int max_log2 = 28;
  if (!take_max_log2_flag(argc, argv, max_log2)) {
    std::fprintf(stderr, "gpusort_bench: --gpusort_max_log2 takes an integer from 10 to 30\n");
    return 2;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;

  try {
    add_gpu_context(gpu.properties);
    bench_context context;
    register_radix_benchmarks(context, max_log2);
    register_merge_benchmarks(context, max_log2);
    register_bucket_bitonic_benchmarks(context, max_log2);
    register_par_benchmarks(context, max_log2);
    register_segmented_benchmarks(context, max_log2);
    benchmark::RunSpecifiedBenchmarks();
    context.cases.clear();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpusort_bench: %s\n", e.what());
    return 1;
  }
  benchmark::Shutdown();
  return 0;
}
