// The ceiling every sort's bytes are set against: copy/cuda_memcpy/u32/uniform/<n>, a
// device-to-device copy of n u32 keys, timed like the sorts. GBps counts bytes read plus
// bytes written.
#pragma once

#include "device_buffer.cuh"
#include "random_keys.cuh"
#include "sort_benchmark.cuh"

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>

namespace gpusort_bench {

inline void register_copy_benchmark(bench_context& context, std::size_t n) {
  benchmark::RegisterBenchmark(
      ("copy/cuda_memcpy/u32/uniform/" + std::to_string(n)).c_str(),
      [&context, n](benchmark::State& state) {
        try {
          const cudaStream_t stream = context.stream.get();
          context.cases.clear();  // room for the two buffers
          device_buffer<std::uint32_t> from(n), to(n);
          fill_keys(from.data(), n, key_distribution::uniform, 1, stream);
          to.copy_from(from, stream);  // warm-up
          double timed_seconds = 0;
          for (auto _ : state) {
            context.timer.start(stream);
            to.copy_from(from, stream);
            const double seconds = context.timer.stop_ms(stream) / 1e3;
            state.SetIterationTime(seconds);
            timed_seconds += seconds;
          }
          state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
          state.counters["GBps"] = static_cast<double>(state.iterations()) * 2.0 * double(n) *
                                   sizeof(std::uint32_t) / timed_seconds / 1e9;
        } catch (const std::exception& e) {
          state.SkipWithError(e.what());
        }
      })
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond);
}

}  // namespace gpusort_bench
