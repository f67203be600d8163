// gpusort_bench: gpusort::radix against cub::DeviceRadixSort, on the same data, in the same
// process, measured the same way (the method of docs/anchors.md):
//   - uniformly random keys (floats uniform in [-1e6, 1e6]; values are the indices 0..n-1),
//     generated once per (type, size) on the device;
//   - before every timed sort, an untimed fresh copy of that input into the work buffer;
//   - CUDA events around the sort call only (manual time), on a dedicated non-blocking stream;
//   - no allocation inside the timing for either backend: CUB's temp storage is allocated once
//     up front, gpusort gets a pre-allocated pool through .with_allocator() (harness/pool_allocator.cuh);
//   - once per (type, size), untimed: gpusort's output must equal CUB's byte for byte, or the
//     gpusort benchmark reports an error instead of a time.
//
// Names: <op>/<backend>/<type>/<distribution>/<n>, e.g. sort/radix/u32/uniform/1048576,
// sort/cub_radix/u32/uniform/1048576, sort_by_key/radix/u32+u32/uniform/1048576 (Google
// Benchmark appends /manual_time). Filter with --benchmark_filter (a regex: write "u32\+u32");
// --gpusort_max_log2=N drops sizes above 2^N (default 28; 2^28 u32+u32 needs about 10 GiB).
// scripts/bench_table.py turns the JSON output (--benchmark_out=r.json) into markdown tables.
//
// Counters: items_per_second is keys per second. GBps is n * (key + value bytes) * 2 / time:
// the floor, one read and one write of the data, which any out-of-place sort must move. An LSD
// radix sort moves several times that (about 36 B/key for u32, see anchors.md), so GBps divided
// by the copy bandwidth says how far a sort is from the floor, not how well it uses its passes.
// temp_bytes is the temporary storage the backend asked for.

#include "harness/cuda_check.cuh"
#include "harness/gpu_info.cuh"
#include "harness/sort_case.cuh"
#include "harness/stream_timer.cuh"

#include <gpusort/sort.cuh>

#include <benchmark/benchmark.h>
#include <cub/version.cuh>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <type_traits>

namespace {

using namespace gpusort_bench;

enum class backend { gpusort_radix, cub_radix };

const char* backend_name(backend b) { return b == backend::gpusort_radix ? "radix" : "cub_radix"; }

// One (type, size) case with its verification result. Only the most recent case is kept:
// the benchmarks of one case (both backends, any repetitions) run one after another, and the
// largest cases need gigabytes.
struct cached_case_base {
  virtual ~cached_case_base() = default;
};

template <class Key, class Value>
struct cached_case : cached_case_base {
  cached_case(std::size_t n, cudaStream_t stream)
      : data(n, stream),
        mismatch(data.check_against_cub(gpusort::radix.on(stream).with_allocator(data.pool()))) {}
  sort_case<Key, Value> data;
  std::string mismatch;  // empty when gpusort's output equals CUB's
};

class case_cache {
 public:
  template <class Key, class Value>
  cached_case<Key, Value>& get(std::size_t n, cudaStream_t stream) {
    auto* cached = dynamic_cast<cached_case<Key, Value>*>(current_.get());
    if (cached != nullptr && cached->data.size() == n) return *cached;
    current_.reset();  // free the previous case before allocating the next
    auto fresh = std::make_unique<cached_case<Key, Value>>(n, stream);
    cached = fresh.get();
    current_ = std::move(fresh);
    return *cached;
  }
  void clear() { current_.reset(); }

 private:
  std::unique_ptr<cached_case_base> current_;
};

// What every benchmark shares; lives in main, so that its device memory is freed before the
// CUDA runtime shuts down.
struct bench_context {
  cuda_stream stream;
  event_timer timer;
  case_cache cases;
};

template <class Key, class Value>
void sort_benchmark(benchmark::State& state, bench_context& context, backend which, std::size_t n) {
  try {
    const cudaStream_t stream = context.stream.get();
    auto& cached = context.cases.get<Key, Value>(n, stream);
    auto& data = cached.data;
    if (which == backend::gpusort_radix && !cached.mismatch.empty()) {
      state.SkipWithError(("gpusort's output differs from CUB's: " + cached.mismatch).c_str());
      return;
    }
    const auto policy = gpusort::radix.on(stream).with_allocator(data.pool());
    const int pool_grows_before = data.pool().grow_count();

    double timed_seconds = 0;
    for (auto _ : state) {
      data.refresh();
      context.timer.start(stream);
      if (which == backend::gpusort_radix)
        data.sort_with_gpusort(policy);
      else
        data.sort_with_cub();
      const double seconds = context.timer.stop_ms(stream) / 1e3;
      state.SetIterationTime(seconds);
      timed_seconds += seconds;
    }

    if (data.pool().grow_count() != pool_grows_before) {
      state.SkipWithError("the pool allocator grew during timing: an allocation was timed");
      return;
    }
    // items_per_second: keys per second of timed (manual) time.
    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
    // GBps is computed here rather than as a kIsRate counter so that it prints as a plain
    // number: bytes of the floor model over the same timed seconds.
    const double floor_bytes = static_cast<double>(n * sort_case<Key, Value>::bytes_per_item * 2);
    state.counters["GBps"] = static_cast<double>(state.iterations()) * floor_bytes / timed_seconds / 1e9;
    // The temporary storage each backend asked for (gpusort: what its pool had to hold).
    state.counters["temp_bytes"] = static_cast<double>(
        which == backend::gpusort_radix ? data.pool().capacity() : data.cub_temp_storage_bytes());
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

template <class Key, class Value = keys_only>
void register_type(bench_context& context, int max_log2) {
  const std::string op = std::is_same_v<Value, keys_only> ? "sort" : "sort_by_key";
  for (int log2 = 10; log2 <= max_log2; log2 += 2) {
    const std::size_t n = std::size_t(1) << log2;
    for (backend which : {backend::gpusort_radix, backend::cub_radix}) {
      const std::string name = op + "/" + backend_name(which) + "/" +
                               case_type_name<Key, Value>() + "/uniform/" + std::to_string(n);
      benchmark::RegisterBenchmark(name.c_str(),
                                   [&context, which, n](benchmark::State& state) {
                                     sort_benchmark<Key, Value>(state, context, which, n);
                                   })
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond);
    }
  }
}

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
    register_type<std::uint32_t>(context, max_log2);
    register_type<std::uint64_t>(context, max_log2);
    register_type<float>(context, max_log2);
    register_type<std::uint32_t, std::uint32_t>(context, max_log2);
    benchmark::RunSpecifiedBenchmarks();
    context.cases.clear();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpusort_bench: %s\n", e.what());
    return 1;
  }
  benchmark::Shutdown();
  return 0;
}
