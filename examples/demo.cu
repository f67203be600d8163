// gpusort_demo: sorts 2^24 uniformly random keys (u32, f32, and u32 keys with u32 values) with
// gpusort::par as a user calls it, with cub::DeviceRadixSort (temporary storage allocated
// beforehand; called with an int and with a std::size_t count, the faster of the two the
// reference) and with thrust::sort; checks that gpusort's output equals CUB's, and prints how
// long each took. Standalone: copy this file and link gpusort::gpusort.
//
// Each time is the median of 10 runs: CUDA events around the sort call only, after an untimed
// fresh copy of the input. (gpusort_bench, README "Benchmarks", measures every size and
// backend.) Exit status: 0 when every gpusort output matched CUB's, or when there is no GPU.

#include <gpusort/sort.cuh>

#include <cub/device/device_radix_sort.cuh>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/host_vector.h>
#include <thrust/sort.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace {

constexpr std::size_t demo_size = std::size_t(1) << 24;
constexpr int timed_runs = 10;

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess)
    throw gpusort::error(std::string(what) + ": " + cudaGetErrorString(status), status);
}

// Median GPU time of sort_once() over timed_runs runs, each after prepare() (untimed).
template <class Prepare, class SortOnce>
double median_ms(Prepare prepare, SortOnce sort_once) {
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  std::vector<float> times;
  for (int run = 0; run <= timed_runs; ++run) {  // run 0 warms up
    prepare();
    check(cudaEventRecord(start), "cudaEventRecord");
    sort_once();
    check(cudaEventRecord(stop), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    if (run > 0) times.push_back(ms);
  }
  check(cudaEventDestroy(start), "cudaEventDestroy");
  check(cudaEventDestroy(stop), "cudaEventDestroy");
  std::sort(times.begin(), times.end());
  return (times[(times.size() - 1) / 2] + times[times.size() / 2]) / 2;
}

template <class T>
thrust::device_vector<T> random_device_vector(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  thrust::host_vector<T> host(n);
  for (T& x : host) {
    if constexpr (std::is_floating_point_v<T>)
      x = T(std::uniform_real_distribution<double>(-1e6, 1e6)(random));
    else
      x = T(random());
  }
  return thrust::device_vector<T>(host);
}

// One key type (with values when WithValues): CUB, thrust::sort and gpusort::par timed on the
// same input; true when gpusort's keys and values equal CUB's (both sorts are stable).
template <class Key, bool WithValues>
bool demo_case(const char* name) {
  const auto input_keys = random_device_vector<Key>(demo_size, 1);
  const auto input_values = random_device_vector<std::uint32_t>(WithValues ? demo_size : 0, 2);
  thrust::device_vector<Key> keys(demo_size), cub_keys(demo_size);
  thrust::device_vector<std::uint32_t> values(input_values.size()), cub_values(values.size());
  const auto fresh_input = [&] {
    thrust::copy(input_keys.begin(), input_keys.end(), keys.begin());
    thrust::copy(input_values.begin(), input_values.end(), values.begin());
  };

  // CUB as its users call it: temporary storage sized and allocated before timing. CUB picks
  // its tiles by the count's type, and neither an int nor a std::size_t count is the faster
  // for every key type (u32 keys: std::size_t; u32+u32 pairs: int), so both are timed and the
  // faster is the reference.
  const Key* in = thrust::raw_pointer_cast(keys.data());
  Key* out = thrust::raw_pointer_cast(cub_keys.data());
  const std::uint32_t* values_in = thrust::raw_pointer_cast(values.data());
  std::uint32_t* values_out = thrust::raw_pointer_cast(cub_values.data());
  const auto cub_sort = [&](void* temp, std::size_t& temp_bytes, auto count) {
    if constexpr (WithValues)
      check(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, in, out, values_in, values_out,
                                            count),
            "cub::DeviceRadixSort::SortPairs");
    else
      check(cub::DeviceRadixSort::SortKeys(temp, temp_bytes, in, out, count),
            "cub::DeviceRadixSort::SortKeys");
  };
  std::size_t int_bytes = 0, size_t_bytes = 0;
  cub_sort(nullptr, int_bytes, int(demo_size));
  cub_sort(nullptr, size_t_bytes, demo_size);
  thrust::device_vector<char> temp(std::max(int_bytes, size_t_bytes));
  void* temp_data = thrust::raw_pointer_cast(temp.data());
  const double cub_int_ms =
      median_ms(fresh_input, [&] { cub_sort(temp_data, int_bytes, int(demo_size)); });
  const double cub_size_t_ms =
      median_ms(fresh_input, [&] { cub_sort(temp_data, size_t_bytes, demo_size); });
  const double cub_ms = std::min(cub_int_ms, cub_size_t_ms);
  const char* cub_label = cub_int_ms <= cub_size_t_ms ? "cub (int n)" : "cub (size_t n)";

  const double thrust_ms = median_ms(fresh_input, [&] {
    if constexpr (WithValues)
      thrust::sort_by_key(thrust::device, keys.begin(), keys.end(), values.begin());
    else
      thrust::sort(thrust::device, keys.begin(), keys.end());
  });

  // The call a user writes: no allocator, no stream.
  const double gpusort_ms = median_ms(fresh_input, [&] {
    if constexpr (WithValues)
      gpusort::sort_by_key(gpusort::par, keys.begin(), keys.end(), values.begin());
    else
      gpusort::sort(gpusort::par, keys.begin(), keys.end());
  });
  const bool matches = keys == cub_keys && values == cub_values;

  const auto keys_per_second = [](double ms) { return double(demo_size) / (ms * 1e-3) / 1e9; };
  std::printf("%-10s %-14s %9.3f ms %8.2f G keys/s (the faster of CUB's two calls)\n", name,
              cub_label, cub_ms, keys_per_second(cub_ms));
  std::printf("%-10s %-14s %9.3f ms %8.2f G keys/s %6.2fx CUB\n", name, "thrust::sort",
              thrust_ms, keys_per_second(thrust_ms), cub_ms / thrust_ms);
  std::printf("%-10s %-14s %9.3f ms %8.2f G keys/s %6.2fx CUB  %s\n", name, "gpusort::par",
              gpusort_ms, keys_per_second(gpusort_ms), cub_ms / gpusort_ms,
              matches ? "same output as CUB" : "DIFFERS FROM CUB");
  return matches;
}

}  // namespace

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::puts("gpusort_demo: no CUDA GPU found; nothing to run");
    return 0;
  }
  try {
    cudaDeviceProp properties{};
    check(cudaGetDeviceProperties(&properties, 0), "cudaGetDeviceProperties");
    std::printf("gpusort_demo on %s: %zu uniformly random keys, median of %d runs\n\n",
                properties.name, demo_size, timed_runs);
    bool all_match = demo_case<std::uint32_t, false>("u32");
    all_match &= demo_case<float, false>("f32");
    all_match &= demo_case<std::uint32_t, true>("u32+u32");
    std::puts("\nx CUB: CUB's time / this time (above 1: faster than CUB)");
    return all_match ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpusort_demo: %s\n", e.what());
    return 1;
  }
}
