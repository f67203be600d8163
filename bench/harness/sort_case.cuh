// One benchmark case: n uniformly random keys (and index values) of one type, generated once
// on the device, and everything needed to sort them with gpusort and with CUB the same way.
//
//   source   the pristine input, never sorted
//   work     refreshed from source before every sort; gpusort sorts it in place, CUB reads it
//   cub_out  CUB's output (its out-of-place form)
#pragma once

#include "cub_radix.cuh"
#include "cuda_check.cuh"
#include "device_buffer.cuh"
#include "pool_allocator.cuh"
#include "random_keys.cuh"

#include <gpusort/sort.cuh>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace gpusort_bench {

template <class T>
const char* type_name() {
  if constexpr (std::is_same_v<T, std::uint32_t>) return "u32";
  else if constexpr (std::is_same_v<T, std::uint64_t>) return "u64";
  else if constexpr (std::is_same_v<T, float>) return "f32";
  else static_assert(sizeof(T) == 0, "add a name for this type");
}

// "u32" for keys only, "u32+u32" for pairs: the type field of benchmark names and tables.
template <class Key, class Value>
std::string case_type_name() {
  if constexpr (std::is_same_v<Value, keys_only>) return type_name<Key>();
  else return std::string(type_name<Key>()) + "+" + type_name<Value>();
}

template <class Key, class Value = keys_only>
class sort_case {
 public:
  static constexpr bool has_values = !std::is_same_v<Value, keys_only>;
  static constexpr std::size_t bytes_per_item = sizeof(Key) + (has_values ? sizeof(Value) : 0);

  // Allocates everything (CUB's temp storage included) and generates the input; returns
  // once the input is on the device.
  sort_case(std::size_t n, cudaStream_t stream, std::uint64_t seed = 20261121)
      : n_(n), stream_(stream),
        source_keys_(n), source_values_(has_values ? n : 0),
        work_keys_(n), work_values_(has_values ? n : 0),
        cub_keys_(n), cub_values_(has_values ? n : 0),
        cub_(n, stream) {
    fill_uniform(source_keys_.data(), n, seed, stream);
    if constexpr (has_values) fill_index(source_values_.data(), n, stream);
    check_cuda(cudaStreamSynchronize(stream), "generating the input");
  }

  std::size_t size() const noexcept { return n_; }
  cudaStream_t stream() const noexcept { return stream_; }
  // Pass to policy.with_allocator() so that gpusort's temp storage is pre-allocated too.
  pool_allocator& pool() noexcept { return pool_; }
  std::size_t cub_temp_storage_bytes() const noexcept { return cub_.temp_storage_bytes(); }

  // Enqueues a fresh copy of the input into the work buffers.
  void refresh() {
    work_keys_.copy_from(source_keys_, stream_);
    if constexpr (has_values) work_values_.copy_from(source_values_, stream_);
  }

  // Enqueues gpusort's sort of the work buffers, in place. `policy` carries the stream
  // (and allocator); give it this case's stream.
  template <class Policy>
  void sort_with_gpusort(const Policy& policy) {
    Key* keys = work_keys_.data();
    if constexpr (has_values)
      gpusort::sort_by_key(policy, keys, keys + n_, work_values_.data());
    else
      gpusort::sort(policy, keys, keys + n_);
  }

  // Enqueues CUB's sort of the work buffers into cub_out.
  void sort_with_cub() { cub_(work_keys_.data(), cub_keys_.data(), work_values_.data(), cub_values_.data()); }

  // Sorts once with each (untimed; this is also both backends' warm-up) and compares: gpusort's
  // keys and values must equal CUB's byte for byte (both are stable, so the index values must
  // match too), and the keys must be ascending. Returns "" or what differs.
  template <class Policy>
  std::string check_against_cub(const Policy& policy) {
    refresh();
    sort_with_gpusort(policy);
    const std::vector<Key> gpusort_keys = work_keys_.to_host(stream_);
    const std::vector<Value> gpusort_values = work_values_.to_host(stream_);
    refresh();
    sort_with_cub();
    const std::vector<Key> cub_keys = cub_keys_.to_host(stream_);
    const std::vector<Value> cub_values = cub_values_.to_host(stream_);

    if (auto where = first_difference(gpusort_keys, cub_keys); where != n_)
      return "keys differ from CUB's at index " + std::to_string(where);
    if (auto where = first_difference(gpusort_values, cub_values); where != n_)
      return "values differ from CUB's at index " + std::to_string(where);
    if (!std::is_sorted(gpusort_keys.begin(), gpusort_keys.end()))
      return "keys are not in ascending order";
    return {};
  }

 private:
  // Index of the first element whose bytes differ, or n_ when none does (also when T is
  // keys_only and both vectors are empty).
  template <class T>
  std::size_t first_difference(const std::vector<T>& a, const std::vector<T>& b) const {
    if (a.size() != b.size()) return 0;
    if (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0) return n_;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (std::memcmp(&a[i], &b[i], sizeof(T)) != 0) return i;
    return n_;
  }

  std::size_t n_;
  cudaStream_t stream_;
  device_buffer<Key> source_keys_;
  device_buffer<Value> source_values_;
  device_buffer<Key> work_keys_;
  device_buffer<Value> work_values_;
  device_buffer<Key> cub_keys_;
  device_buffer<Value> cub_values_;
  cub_radix_sorter<Key, Value> cub_;
  pool_allocator pool_;
};

}  // namespace gpusort_bench
