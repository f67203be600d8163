// What every gpusort_bench benchmark shares (Google Benchmark side; the demo does not use
// this): the context (stream, timer, the one live case), the verified case, the timed loop
// and the registration. radix_bench.cu, merge_bench.cu and bucket_bitonic_bench.cu only say
// which cases and names.
#pragma once

#include "cub_count.cuh"
#include "cuda_check.cuh"
#include "malloc_async_allocator.cuh"
#include "random_keys.cuh"
#include "stream_timer.cuh"

#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>
#include <gpusort/memory.cuh>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <type_traits>

namespace gpusort_bench {

// Where the timed gpusort sorts of a case take their temporary storage.
enum class storage_source {
  bench_pool,          // a pre-allocated block (pool_allocator.cuh), as CUB's temp storage is
  gpusort_default,     // none given: what a user's plain call gets (gpusort's own pool)
  device_default_pool  // cudaMallocAsync on the device's default pool (malloc_async_allocator.cuh)
};

struct cached_case_base {
  virtual ~cached_case_base() = default;
};

// One case (a sort_case: one reference, type, distribution and size) with its verification
// result: sorted once, untimed, by gpusort through the policy `Backend` (gpusort::radix,
// gpusort::merge, gpusort::bucket_bitonic, gpusort::par) on the case's stream and pool, and
// once by the reference, and compared. The storage source does not change what is sorted, so
// one verification serves every source.
template <class Case, const auto& Backend>
struct verified_case : cached_case_base {
  verified_case(std::size_t n, key_distribution distribution, cudaStream_t stream)
      : data(n, stream, distribution),
        mismatch(data.check_against_cub(policy(stream, storage_source::bench_pool))) {}

  // The policy every timed gpusort sort of this case uses, with storage from `source`.
  auto policy(cudaStream_t stream, storage_source source) {
    switch (source) {
      case storage_source::bench_pool: return Backend.on(stream).with_allocator(data.pool());
      case storage_source::device_default_pool:
        return Backend.on(stream).with_allocator(malloc_async);
      case storage_source::gpusort_default: break;
    }
    return Backend.on(stream);
  }

  Case data;
  malloc_async_allocator malloc_async;
  std::string mismatch;  // empty when gpusort's output equals CUB's
};

// Only the most recent case is kept: the benchmarks of one case (both backends, any
// repetitions) run one after another, and the largest cases need gigabytes.
class case_cache {
 public:
  template <class Cached>
  Cached& get(std::size_t n, key_distribution distribution, cudaStream_t stream) {
    auto* cached = dynamic_cast<Cached*>(current_.get());
    if (cached != nullptr && cached->data.size() == n && cached->data.distribution() == distribution)
      return *cached;
    current_.reset();  // free the previous case before allocating the next
    auto fresh = std::make_unique<Cached>(n, distribution, stream);
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

// Which side of a case a benchmark times: gpusort, the CUB reference (with an int item count,
// or a std::size_t one where the reference takes either: cub_count.cuh), or Thrust as its
// users call it, allocating its temporary storage per call (sort_case::sort_with_thrust: its
// radix sort beside CUB's, its merge sort with the same comparator beside CUB's merge sort).
enum class side { gpusort, cub, cub_size_t_count, thrust };

constexpr bool is_cub(side which) { return which == side::cub || which == side::cub_size_t_count; }

constexpr cub_count count_of(side which) {
  return which == side::cub_size_t_count ? cub_count::size_t_count : cub_count::int_count;
}

// One row of a report that sets a gpusort call beside its alternatives (par_bench.cu,
// merge_bench.cu): the backend named in the benchmark, who sorts, and where gpusort's
// temporary memory comes from. (CUB's rows name bench_pool: its temp storage is allocated up
// front; Thrust's gpusort_default: it allocates per call, after an untimed first call, as
// run_sort_benchmark gives every source but the bench pool.)
struct sort_row {
  const char* backend;
  side which;
  storage_source source;
};

// <op>/<backend>/<type>/<distribution>/<n>: the name scripts/bench_table.py parses.
inline std::string benchmark_name(const std::string& op, const std::string& backend,
                                  const std::string& type, std::size_t n,
                                  key_distribution distribution = key_distribution::uniform) {
  return op + "/" + backend + "/" + type + "/" + distribution_name(distribution) + "/" +
         std::to_string(n);
}

// The body of every benchmark: an untimed fresh copy of the input, then CUDA events around
// the one sort call (manual time). With the bench pool no allocation is inside the timing
// (checked: the pool must not grow); with another storage source, the sort's own allocation
// is, as in a user's call, after one untimed sort (a first call in a process pays once for
// what every later call reuses). A gpusort benchmark whose case failed verification reports
// the mismatch instead of a time.
template <class Cached>
void run_sort_benchmark(benchmark::State& state, bench_context& context, side which, std::size_t n,
                        key_distribution distribution, storage_source source) {
  try {
    const cudaStream_t stream = context.stream.get();
    auto& cached = context.cases.get<Cached>(n, distribution, stream);
    auto& data = cached.data;
    if (which == side::gpusort && !cached.mismatch.empty()) {
      state.SkipWithError(("gpusort's output differs from CUB's: " + cached.mismatch).c_str());
      return;
    }
    const auto policy = cached.policy(stream, source);
    if (!is_cub(which) && source != storage_source::bench_pool) {
      data.refresh();
      if (which == side::gpusort)
        data.sort_with_gpusort(policy);
      else
        data.sort_with_thrust();
    }
    const int pool_grows_before = data.pool().grow_count();

    double timed_seconds = 0;
    for (auto _ : state) {
      data.refresh();
      context.timer.start(stream);
      if (which == side::gpusort)
        data.sort_with_gpusort(policy);
      else if (is_cub(which))
        data.sort_with_cub(count_of(which));
      else
        data.sort_with_thrust();
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
    const double floor_bytes = static_cast<double>(n * std::decay_t<decltype(data)>::bytes_per_item * 2);
    state.counters["GBps"] = static_cast<double>(state.iterations()) * floor_bytes / timed_seconds / 1e9;
    // The temporary storage each backend asked for (gpusort: what its pool had to hold, or
    // what gpusort's own pool keeps mapped after the run).
    const std::size_t gpusort_bytes = source == storage_source::gpusort_default
                                          ? gpusort::cached_memory_bytes()
                                          : data.pool().capacity();
    state.counters["temp_bytes"] = static_cast<double>(
        which == side::gpusort ? gpusort_bytes
        : is_cub(which)        ? data.cub_temp_storage_bytes(count_of(which))
                               : 0);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

// Registers one benchmark of the case Cached; it runs in registration order.
template <class Cached>
void register_sort_benchmark(bench_context& context, const std::string& name, side which,
                             std::size_t n,
                             key_distribution distribution = key_distribution::uniform,
                             storage_source source = storage_source::bench_pool) {
  benchmark::RegisterBenchmark(
      name.c_str(),
      [&context, which, n, distribution, source](benchmark::State& state) {
        run_sort_benchmark<Cached>(state, context, which, n, distribution, source);
      })
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
}

// Each benchmark file's registration (radix_bench.cu, merge_bench.cu,
// bucket_bitonic_bench.cu, par_bench.cu, segmented_bench.cu); main.cu calls them in this
// order. Sizes above 2^max_log2 are left out.
void register_radix_benchmarks(bench_context& context, int max_log2);
void register_merge_benchmarks(bench_context& context, int max_log2);
void register_bucket_bitonic_benchmarks(bench_context& context, int max_log2);
void register_par_benchmarks(bench_context& context, int max_log2);
void register_segmented_benchmarks(bench_context& context, int max_log2);

}  // namespace gpusort_bench
