// gpusort_demo: sorts 2^24 uniformly random keys with gpusort and with cub::DeviceRadixSort,
// checks that gpusort's output equals CUB's, and prints how long each took.
//
//   gpusort::sort(gpusort::par.on(stream), keys, keys + n);                 // automatic choice
//   gpusort::sort(gpusort::radix.on(stream).with_allocator(pool), keys, keys + n);
//   gpusort::sort_by_key(gpusort::radix.on(stream), keys, keys + n, values);
//   gpusort::sort(gpusort::bucket_bitonic.on(stream).with_allocator(pool), keys, keys + n);
//
// Each time is the median of 10 runs, CUDA events around the sort call only, with an untimed
// fresh copy of the input before each run (as gpusort_bench times, README "Benchmarks";
// gpusort_bench does the full sweep of sizes). Exit status: 0 when every gpusort output matched CUB's (or when
// there is no GPU), 1 otherwise.

#include "harness/cuda_check.cuh"
#include "harness/gpu_info.cuh"
#include "harness/sort_case.cuh"
#include "harness/stream_timer.cuh"

#include <gpusort/sort.cuh>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

namespace {

using namespace gpusort_bench;

constexpr std::size_t demo_size = std::size_t(1) << 24;
constexpr int timed_runs = 10;

// Median over `timed_runs` runs of the GPU time of sort_once(), each on a fresh copy of the input.
template <class Case, class SortOnce>
double median_ms(Case& data, event_timer& timer, SortOnce sort_once) {
  std::vector<double> times;
  for (int run = 0; run < timed_runs; ++run) {
    data.refresh();
    timer.start(data.stream());
    sort_once();
    times.push_back(timer.stop_ms(data.stream()));
  }
  std::sort(times.begin(), times.end());
  const std::size_t mid = times.size() / 2;
  return times.size() % 2 ? times[mid] : (times[mid - 1] + times[mid]) / 2;
}

struct result_row {
  std::string backend, temp_storage, type;
  std::size_t n;
  double ms;
  std::string check;  // "verified", "reference" or "MISMATCH: ..."
};

void print_table(const std::vector<result_row>& rows) {
  std::printf("%-14s %-16s %-8s %10s %10s %10s %8s  %s\n", "backend", "temp storage", "type", "n",
              "time ms", "G keys/s", "vs CUB", "check");
  double cub_ms = 0;
  for (const result_row& row : rows) {
    if (row.backend == "cub_radix") cub_ms = row.ms;  // each type's CUB row comes first
    std::printf("%-14s %-16s %-8s %10zu %10.3f %10.2f %7.2fx  %s\n", row.backend.c_str(),
                row.temp_storage.c_str(), row.type.c_str(), row.n, row.ms,
                static_cast<double>(row.n) / (row.ms * 1e-3) / 1e9, cub_ms / row.ms,
                row.check.c_str());
  }
  std::printf("vs CUB: CUB's time / this time (above 1 means faster than CUB).\n");
}

// Times CUB, gpusort::par as a user calls it (no allocator: gpusort's own pool inside the call),
// gpusort::radix and gpusort::bucket_bitonic (a pre-allocated pool, like CUB's pre-allocated
// temp storage) on one case.
template <class Key, class Value = keys_only>
bool run_case(cudaStream_t stream, event_timer& timer, std::vector<result_row>& rows) {
  sort_case<Key, Value> data(demo_size, stream);
  const std::string type = case_type_name<Key, Value>();
  const auto par = gpusort::par.on(stream);
  const auto radix = gpusort::radix.on(stream).with_allocator(data.pool());
  const auto bucket_bitonic = gpusort::bucket_bitonic.on(stream).with_allocator(data.pool());

  // Verification first: it is also every backend's warm-up run. bucket_bitonic is unstable:
  // equal keys' values (some of 2^24 random u32 keys repeat) may come in another order than CUB's.
  const std::string par_mismatch = data.check_against_cub(par);
  const std::string radix_mismatch = data.check_against_cub(radix);
  const std::string bucket_bitonic_mismatch =
      data.check_against_cub(bucket_bitonic, value_check::any_order_among_equal_keys);
  const auto check = [](const std::string& mismatch) {
    return mismatch.empty() ? std::string("verified") : "MISMATCH: " + mismatch;
  };

  rows.push_back({"cub_radix", "pre-allocated", type, demo_size,
                  median_ms(data, timer, [&] { data.sort_with_cub(); }), "reference"});
  rows.push_back({"par", "none (default)", type, demo_size,
                  median_ms(data, timer, [&] { data.sort_with_gpusort(par); }), check(par_mismatch)});
  rows.push_back({"radix", "pool", type, demo_size,
                  median_ms(data, timer, [&] { data.sort_with_gpusort(radix); }),
                  check(radix_mismatch)});
  rows.push_back({"bucket_bitonic", "pool", type, demo_size,
                  median_ms(data, timer, [&] { data.sort_with_gpusort(bucket_bitonic); }),
                  check(bucket_bitonic_mismatch)});
  return par_mismatch.empty() && radix_mismatch.empty() && bucket_bitonic_mismatch.empty();
}

}  // namespace

int main() {
  const gpu_lookup gpu = find_gpu();
  if (!gpu.found) {
    std::printf("no CUDA GPU found: %s; nothing to run\n", gpu.why_not.c_str());
    return 0;
  }
  std::printf("gpusort_demo on %s (compute capability %d.%d, %d SMs): uniform random keys, "
              "median of %d runs\n\n",
              gpu.properties.name, gpu.properties.major, gpu.properties.minor,
              gpu.properties.multiProcessorCount, timed_runs);
  try {
    cuda_stream stream;
    event_timer timer;
    std::vector<result_row> rows;
    bool all_match = run_case<std::uint32_t>(stream.get(), timer, rows);
    all_match &= run_case<float>(stream.get(), timer, rows);
    all_match &= run_case<std::uint32_t, std::uint32_t>(stream.get(), timer, rows);
    print_table(rows);
    if (!all_match) {
      std::printf("\nFAILED: gpusort's output differs from CUB's\n");
      return 1;
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpusort_demo: %s\n", e.what());
    return 1;
  }
}
