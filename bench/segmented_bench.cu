// gpusort_bench's segmented rows: gpusort::segmented_sort as a user calls it, next to
// cub::DeviceSegmentedSort on the same keys and segments, measured as main.cu describes (an
// untimed fresh copy of the input before every timed sort, CUDA events around the one call).
//
// Names: segmented/<backend>/<type>/<distribution>/<n> (Google Benchmark appends
// /manual_time), n = 2^20 and 2^24 keys in all (up to --gpusort_max_log2), type u32 and f32
// keys (segmented_sort) and u32+u32 pairs (segmented_sort_by_key, values the input indices
// 0..n-1), backend one of
//   par    gpusort::segmented_sort[_by_key](gpusort::par.on(s), keys, keys + n, [values,]
//          offsets, offsets + segments + 1): no allocator, as a user calls it (the headline)
//   merge  the same call with gpusort::merge.on(s) (the comparison backend, gpusort::less<>)
//   cub    cub::DeviceSegmentedSort::SortKeys / SortPairs, out of place, the begin/end-offsets
//          form given d_offsets and d_offsets + 1, temp storage allocated once up front
//          (harness/cub_segmented.cuh)
//   sort   (single only) gpusort::sort / sort_by_key(gpusort::par.on(s), keys, keys + n
//          [, values]) of the same keys: what one segment is set against (the goal: the
//          single segment within 10 % of it)
// and <distribution> the segment sizes, drawn on the host from a fixed seed (mix64, so every
// run and platform gets the same offsets), until the sizes reach n (the last one trimmed):
//   tiny       uniform in 1..32
//   uniform1k  uniform in 1..1024
//   uniform4k  uniform in 1025..4096 (past the 64-thread block's tile for u32: the 128- and
//              256-thread blocks' bands)
//   powerlaw   2^16 segments (n if fewer keys), 1 + floor(w * (n - 2^16) / sum w) keys each,
//              w Pareto type II (Lomax, alpha 1.1: P(w > x) = (1 + x)^-1.1), the rounding
//              remainder one key each to the first segments: sizes from 1 key, at 2^24
//              median 36, 1 % above 2452, the largest 1.13 M; at 2^20 median 3, the largest
//              66 512 (these seeds)
//   huge8      8 segments of n/16 keys (half the keys), the other half in segments uniform in
//              1..32, all in shuffled order
//   single     one segment of all n keys
//   empties    a third of the segments empty (probability 1/3), the others uniform in 1..64
// The keys are uniformly random (harness/random_keys.cuh, sort_case's seed: the same keys as
// the sort/par/<type>/uniform/<n> rows), the offsets int. The segments tile the keys.
// Also copy/cuda_memcpy/u32/uniform/16777216, the device copy of 2^24 u32 keys that these rows
// are set against, where par_bench.cu's copy row is of another size (it copies 2^28 keys, or
// 2^max_log2 with a smaller --gpusort_max_log2).
//
//   --benchmark_filter='^segmented/|^copy/' runs these (and par_bench.cu's copy row);
//   '^segmented/.*/1048576/|^copy/' the quick 2^20 run only;
//   scripts/segmented_report.py turns the JSON output into markdown (and a plot).
//
// Counters as everywhere (main.cu): items_per_second is keys per second; GBps the floor,
// n * (key + value bytes) * 2 / time (the offsets not counted); temp_bytes what gpusort's own
// pool keeps mapped after the run (par, merge, sort) or CUB's temp storage (cub); segments and
// largest_segment describe the case.
//
// Verification, once per case and backend, untimed (it is also each backend's first call):
// the output must equal the host's per-segment std::stable_sort of the input keys byte for
// byte (the keys never hold NaN or -0.0, so keys that compare equal are equal in bytes and
// stability cannot show in keys); with values, each segment's values must be distinct input
// indices of that segment, each sitting next to its own input key (so each segment holds the
// same (key, value) pairs as before; any order among equal keys is accepted, as
// segmented_sort_by_key promises no stability). Else the row reports the mismatch instead of
// a time. For gpusort, gpusort::check_segmented_sorts() must not report bad offsets either.

#include "harness/copy_benchmark.cuh"
#include "harness/cub_segmented.cuh"
#include "harness/cuda_check.cuh"
#include "harness/device_buffer.cuh"
#include "harness/keys_only.cuh"
#include "harness/random_keys.cuh"
#include "harness/sort_benchmark.cuh"
#include "harness/sort_case.cuh"

#include <gpusort/memory.cuh>
#include <gpusort/segmented_sort.cuh>
#include <gpusort/sort.cuh>

#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace gpusort_bench {
namespace {

using offset_t = int;  // what CUB users mostly pass, and gpusort takes any integral type

enum class segment_distribution { tiny, uniform1k, uniform4k, powerlaw, huge8, single, empties };

const char* segment_distribution_name(segment_distribution distribution) {
  switch (distribution) {
    case segment_distribution::tiny: return "tiny";
    case segment_distribution::uniform1k: return "uniform1k";
    case segment_distribution::uniform4k: return "uniform4k";
    case segment_distribution::powerlaw: return "powerlaw";
    case segment_distribution::huge8: return "huge8";
    case segment_distribution::single: return "single";
    case segment_distribution::empties: return "empties";
  }
  return "unknown";
}

enum class segmented_backend { par, merge, cub, sort };
constexpr int segmented_backend_count = 4;

const char* segmented_backend_name(segmented_backend backend) {
  switch (backend) {
    case segmented_backend::par: return "par";
    case segmented_backend::merge: return "merge";
    case segmented_backend::cub: return "cub";
    case segmented_backend::sort: return "sort";
  }
  return "unknown";
}

// ---- segment sizes --------------------------------------------------------------------------

// A counter-based stream of random numbers on the host (detail::mix64, as the keys): the same
// seed gives the same sizes on every platform (std::uniform_int_distribution would not).
class size_rng {
 public:
  explicit size_rng(std::uint64_t seed) : seed_(seed) {}
  std::uint64_t next() { return detail::mix64(seed_ ^ detail::mix64(counter_++)); }
  // Uniform in [lo, hi] (the modulo bias is below 2^-50 for these ranges).
  std::size_t uniform(std::size_t lo, std::size_t hi) { return lo + next() % (hi - lo + 1); }
  // Uniform in [0, 1).
  double unit() { return static_cast<double>(next() >> 11) * 0x1p-53; }

 private:
  std::uint64_t seed_;
  std::uint64_t counter_ = 0;
};

// Appends sizes from `draw` until they add up to `total` (the last one trimmed to fit).
template <class Draw>
void draw_sizes_until(std::vector<std::size_t>& sizes, std::size_t total, Draw draw) {
  std::size_t sum = 0;
  while (sum < total) {
    const std::size_t size = std::min(draw(), total - sum);
    sizes.push_back(size);
    sum += size;
  }
}

std::vector<std::size_t> segment_sizes(std::size_t n, segment_distribution distribution,
                                       std::uint64_t seed) {
  size_rng rng(seed);
  std::vector<std::size_t> sizes;
  switch (distribution) {
    case segment_distribution::tiny:
      draw_sizes_until(sizes, n, [&] { return rng.uniform(1, 32); });
      break;
    case segment_distribution::uniform1k:
      draw_sizes_until(sizes, n, [&] { return rng.uniform(1, 1024); });
      break;
    case segment_distribution::uniform4k:
      draw_sizes_until(sizes, n, [&] { return rng.uniform(1025, 4096); });
      break;
    case segment_distribution::powerlaw: {
      const std::size_t count = std::min<std::size_t>(std::size_t(1) << 16, n);
      constexpr double alpha = 1.1;
      std::vector<double> weights(count);
      double weight_sum = 0;
      for (double& w : weights) {
        w = std::pow(1.0 - rng.unit(), -1.0 / alpha) - 1.0;  // Lomax: from 0, heavy tail
        weight_sum += w;
      }
      const double scale = weight_sum > 0 ? double(n - count) / weight_sum : 0.0;
      std::size_t sum = 0;
      for (double w : weights) {
        sizes.push_back(1 + static_cast<std::size_t>(std::floor(w * scale)));
        sum += sizes.back();
      }
      // Rounding down leaves sum <= n (floating point may overshoot by a key or so: take it
      // back from the largest segment); the rest one key each to the first segments.
      while (sum > n) {
        --*std::max_element(sizes.begin(), sizes.end());
        --sum;
      }
      for (std::size_t i = 0; sum < n; i = (i + 1) % count, ++sum) ++sizes[i];
      break;
    }
    case segment_distribution::huge8: {
      const std::size_t huge_total = n / 2, huge = huge_total / 8;
      for (int i = 0; i < 8; ++i) sizes.push_back(i < 7 ? huge : huge_total - 7 * huge);
      draw_sizes_until(sizes, n - huge_total, [&] { return rng.uniform(1, 32); });
      for (std::size_t i = sizes.size() - 1; i > 0; --i)  // Fisher-Yates
        std::swap(sizes[i], sizes[rng.uniform(0, i)]);
      break;
    }
    case segment_distribution::single:
      sizes.push_back(n);
      break;
    case segment_distribution::empties:
      draw_sizes_until(sizes, n, [&] { return rng.next() % 3 == 0 ? 0 : rng.uniform(1, 64); });
      break;
  }
  return sizes;
}

// segments + 1 offsets: 0, then the running sums of the sizes.
std::vector<offset_t> offsets_of(const std::vector<std::size_t>& sizes) {
  std::vector<offset_t> offsets(sizes.size() + 1);
  std::size_t sum = 0;
  offsets[0] = 0;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    sum += sizes[i];
    if (sum > static_cast<std::size_t>(INT_MAX))
      throw std::length_error("segmented bench: more than INT_MAX keys for int offsets");
    offsets[i + 1] = static_cast<offset_t>(sum);
  }
  return offsets;
}

// ---- one case -------------------------------------------------------------------------------

// n uniformly random keys (and index values) in segments of one distribution, and everything
// to sort them with each backend:
//   source   the pristine input, never sorted
//   work     refreshed from source before every sort; gpusort sorts it in place, CUB reads it
//   cub_out  CUB's output (out of place)
template <class Key, class Value>
class segmented_case {
 public:
  static constexpr bool has_values = !std::is_same_v<Value, keys_only>;
  static constexpr std::size_t bytes_per_item = sizeof(Key) + (has_values ? sizeof(Value) : 0);

  segmented_case(std::size_t n, segment_distribution segments, cudaStream_t stream,
                 std::uint64_t key_seed = 20261121)
      : n_(n), stream_(stream),
        host_offsets_(offsets_of(segment_sizes(n, segments, 20261124 + int(segments)))),
        offsets_(host_offsets_.size()),
        source_keys_(n), source_values_(has_values ? n : 0),
        work_keys_(n), work_values_(has_values ? n : 0),
        cub_keys_(n), cub_values_(has_values ? n : 0),
        cub_(n, segment_count(), offsets_.data(), stream) {
    check_cuda(cudaMemcpyAsync(offsets_.data(), host_offsets_.data(), offsets_.bytes(),
                               cudaMemcpyHostToDevice, stream),
               "copying the segment offsets to the device");
    fill_keys(source_keys_.data(), n, key_distribution::uniform, key_seed, stream);
    if constexpr (has_values) fill_index(source_values_.data(), n, stream);
    check_cuda(cudaStreamSynchronize(stream), "generating the input");
  }

  // What case_cache compares (with the case type, which names the segment distribution).
  std::size_t size() const noexcept { return n_; }
  key_distribution distribution() const noexcept { return key_distribution::uniform; }

  std::size_t segment_count() const noexcept { return host_offsets_.size() - 1; }
  std::size_t largest_segment() const {
    std::size_t largest = 0;
    for (std::size_t i = 0; i + 1 < host_offsets_.size(); ++i)
      largest = std::max<std::size_t>(largest, host_offsets_[i + 1] - host_offsets_[i]);
    return largest;
  }
  std::size_t cub_temp_storage_bytes() const noexcept { return cub_.temp_storage_bytes(); }

  // Enqueues a fresh copy of the input into the work buffers.
  void refresh() {
    work_keys_.copy_from(source_keys_, stream_);
    if constexpr (has_values) work_values_.copy_from(source_values_, stream_);
  }

  // Enqueues `backend`'s sort of the work buffers (CUB's into cub_out) on the case's stream.
  void sort_with(segmented_backend backend) {
    switch (backend) {
      case segmented_backend::par: sort_segments(gpusort::par.on(stream_)); break;
      case segmented_backend::merge: sort_segments(gpusort::merge.on(stream_)); break;
      case segmented_backend::cub:
        cub_(work_keys_.data(), cub_keys_.data(), work_values_.data(), cub_values_.data());
        break;
      case segmented_backend::sort: {
        Key* keys = work_keys_.data();
        if constexpr (has_values)
          gpusort::sort_by_key(gpusort::par.on(stream_), keys, keys + n_, work_values_.data());
        else
          gpusort::sort(gpusort::par.on(stream_), keys, keys + n_);
        break;
      }
    }
  }

  // Sorts once with `backend` (untimed) and checks the output against the host's reference
  // (see the top of the file). Returns "" or what differs.
  std::string check(segmented_backend backend) {
    refresh();
    sort_with(backend);
    const bool into_cub_out = backend == segmented_backend::cub;
    const std::vector<Key> keys = (into_cub_out ? cub_keys_ : work_keys_).to_host(stream_);
    const std::vector<Value> values = (into_cub_out ? cub_values_ : work_values_).to_host(stream_);
    if (backend != segmented_backend::cub) gpusort::check_segmented_sorts();  // throws if bad

    const std::vector<Key>& expected = reference_keys();
    if (std::memcmp(keys.data(), expected.data(), n_ * sizeof(Key)) != 0) {
      std::size_t i = 0;
      while (std::memcmp(&keys[i], &expected[i], sizeof(Key)) == 0) ++i;
      return "keys differ from the per-segment std::stable_sort at index " + std::to_string(i) +
             where(i);
    }
    if constexpr (has_values) {
      static_assert(std::is_integral_v<Value>, "the values of a case are input indices");
      std::vector<bool> seen(n_, false);
      for (std::size_t s = 0; s < segment_count(); ++s) {
        const auto begin = static_cast<std::size_t>(host_offsets_[s]);
        const auto end = static_cast<std::size_t>(host_offsets_[s + 1]);
        for (std::size_t i = begin; i < end; ++i) {
          const auto from = static_cast<std::size_t>(values[i]);
          if (from < begin || from >= end || seen[from])
            return "the value at index " + std::to_string(i) + where(i) +
                   " is not a distinct input index of its segment";
          if (std::memcmp(&host_source_keys_[from], &keys[i], sizeof(Key)) != 0)
            return "the value at index " + std::to_string(i) + where(i) +
                   " is not the input index of the key beside it";
          seen[from] = true;
        }
      }
    }
    return {};
  }

 private:
  // Each segment of the input keys, std::stable_sort'ed on the host; computed at the first
  // check (it also keeps the input keys, for the value check).
  const std::vector<Key>& reference_keys() {
    if (reference_keys_.empty() && n_ != 0) {
      host_source_keys_ = source_keys_.to_host(stream_);
      reference_keys_ = host_source_keys_;
      for (std::size_t s = 0; s < segment_count(); ++s)
        std::stable_sort(reference_keys_.begin() + host_offsets_[s],
                         reference_keys_.begin() + host_offsets_[s + 1], std::less<Key>{});
    }
    return reference_keys_;
  }

  // " (segment s of k keys)" for a key index.
  std::string where(std::size_t i) const {
    const auto s = static_cast<std::size_t>(
        std::upper_bound(host_offsets_.begin(), host_offsets_.end(), static_cast<offset_t>(i)) -
        host_offsets_.begin() - 1);
    return " (segment " + std::to_string(s) + " of " +
           std::to_string(host_offsets_[s + 1] - host_offsets_[s]) + " keys)";
  }

  template <class Policy>
  void sort_segments(const Policy& policy) {
    Key* keys = work_keys_.data();
    const offset_t* offsets = offsets_.data();
    const offset_t* offsets_last = offsets + host_offsets_.size();
    if constexpr (has_values)
      gpusort::segmented_sort_by_key(policy, keys, keys + n_, work_values_.data(), offsets,
                                     offsets_last);
    else
      gpusort::segmented_sort(policy, keys, keys + n_, offsets, offsets_last);
  }

  std::size_t n_;
  cudaStream_t stream_;
  std::vector<offset_t> host_offsets_;
  device_buffer<offset_t> offsets_;
  device_buffer<Key> source_keys_;
  device_buffer<Value> source_values_;
  device_buffer<Key> work_keys_;
  device_buffer<Value> work_values_;
  device_buffer<Key> cub_keys_;
  device_buffer<Value> cub_values_;
  cub_segmented_sorter<Key, Value, offset_t> cub_;
  std::vector<Key> host_source_keys_;
  std::vector<Key> reference_keys_;
};

// The case as bench_context's case_cache keeps it: one type per segment distribution, so that
// the cache (which compares n and the key distribution) tells the distributions apart. Each
// backend is verified once, at its first benchmark.
template <class Key, class Value, segment_distribution Segments>
struct segmented_cached : cached_case_base {
  segmented_cached(std::size_t n, key_distribution, cudaStream_t stream)
      : data(n, Segments, stream) {}

  const std::string& mismatch(segmented_backend backend) {
    auto& verdict = verdicts[static_cast<int>(backend)];
    if (!verdict) verdict = data.check(backend);
    return *verdict;
  }

  segmented_case<Key, Value> data;
  std::optional<std::string> verdicts[segmented_backend_count];
};

// The body of every segmented benchmark, as run_sort_benchmark (harness/sort_benchmark.cuh):
// verification (untimed, the first call), for gpusort one more untimed call (a first call in a
// process pays once for what every later call reuses), then per iteration an untimed fresh
// copy of the input and CUDA events around the one sort call (manual time).
template <class Cached>
void run_segmented_benchmark(benchmark::State& state, bench_context& context,
                             segmented_backend backend, std::size_t n) {
  try {
    const cudaStream_t stream = context.stream.get();
    auto& cached = context.cases.get<Cached>(n, key_distribution::uniform, stream);
    auto& data = cached.data;
    if (const std::string& mismatch = cached.mismatch(backend); !mismatch.empty()) {
      state.SkipWithError((std::string(segmented_backend_name(backend)) +
                           "'s output differs from the host's: " + mismatch).c_str());
      return;
    }
    if (backend != segmented_backend::cub) {
      data.refresh();
      data.sort_with(backend);
    }

    double timed_seconds = 0;
    for (auto _ : state) {
      data.refresh();
      context.timer.start(stream);
      data.sort_with(backend);
      const double seconds = context.timer.stop_ms(stream) / 1e3;
      state.SetIterationTime(seconds);
      timed_seconds += seconds;
    }
    if (backend == segmented_backend::par || backend == segmented_backend::merge)
      gpusort::check_segmented_sorts();

    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
    const double floor_bytes =
        static_cast<double>(n * std::decay_t<decltype(data)>::bytes_per_item * 2);
    state.counters["GBps"] =
        static_cast<double>(state.iterations()) * floor_bytes / timed_seconds / 1e9;
    state.counters["temp_bytes"] = static_cast<double>(
        backend == segmented_backend::cub ? data.cub_temp_storage_bytes()
                                          : gpusort::cached_memory_bytes());
    state.counters["segments"] = static_cast<double>(data.segment_count());
    state.counters["largest_segment"] = static_cast<double>(data.largest_segment());
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

template <class Key, class Value, segment_distribution Segments>
void register_segmented_case(bench_context& context, std::size_t n) {
  using cached = segmented_cached<Key, Value, Segments>;
  for (segmented_backend backend : {segmented_backend::par, segmented_backend::merge,
                                    segmented_backend::cub, segmented_backend::sort}) {
    if (backend == segmented_backend::sort && Segments != segment_distribution::single) continue;
    const std::string name = std::string("segmented/") + segmented_backend_name(backend) + "/" +
                             case_type_name<Key, Value>() + "/" +
                             segment_distribution_name(Segments) + "/" + std::to_string(n);
    benchmark::RegisterBenchmark(name.c_str(),
                                 [&context, backend, n](benchmark::State& state) {
                                   run_segmented_benchmark<cached>(state, context, backend, n);
                                 })
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond);
  }
}

template <class Key, class Value = keys_only>
void register_segmented_type(bench_context& context, std::size_t n) {
  register_segmented_case<Key, Value, segment_distribution::tiny>(context, n);
  register_segmented_case<Key, Value, segment_distribution::uniform1k>(context, n);
  register_segmented_case<Key, Value, segment_distribution::uniform4k>(context, n);
  register_segmented_case<Key, Value, segment_distribution::powerlaw>(context, n);
  register_segmented_case<Key, Value, segment_distribution::huge8>(context, n);
  register_segmented_case<Key, Value, segment_distribution::single>(context, n);
  register_segmented_case<Key, Value, segment_distribution::empties>(context, n);
}


}  // namespace

void register_segmented_benchmarks(bench_context& context, int max_log2) {
  // par_bench.cu's copy row copies 2^min(max_log2, 28) keys: at max_log2 = 24 it is this one.
  constexpr int copy_log2 = 24;
  if (max_log2 > copy_log2) register_copy_benchmark(context, std::size_t(1) << copy_log2);
  for (int log2 : {20, 24}) {
    if (log2 > max_log2) continue;
    const std::size_t n = std::size_t(1) << log2;
    register_segmented_type<std::uint32_t>(context, n);
    register_segmented_type<float>(context, n);
    register_segmented_type<std::uint32_t, std::uint32_t>(context, n);
  }
}

}  // namespace gpusort_bench
