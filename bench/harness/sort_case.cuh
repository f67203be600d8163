// One benchmark case: n keys of one type from one distribution (uniformly random unless
// said otherwise; random_keys.cuh) and index values, generated once on the device, and
// everything needed to sort them with gpusort and with a CUB reference the same way: the
// same data, the same order (the reference's comparator), the same op.
//
//   source   the pristine input, never sorted
//   work     refreshed from source before every sort; gpusort sorts it in place, and so does
//            an in-place reference (cub::DeviceMergeSort); an out-of-place one
//            (cub::DeviceRadixSort) reads it
//   cub_out  an out-of-place reference's output (not allocated for an in-place one)
//
// The reference (Reference: cub_radix_sorter, the default, or cub_merge_sorter) says which
// comparator both sort by (compare_type), whether the op is the stable_ one (op_is_stable),
// whether it sorts in place (in_place), and whether it is a comparison sort (comparison_sort:
// which Thrust sort stands beside it, see sort_with_thrust).
#pragma once

#include "cub_count.cuh"
#include "cub_radix.cuh"
#include "cuda_check.cuh"
#include "device_buffer.cuh"
#include "device_comparator.cuh"
#include "keys_only.cuh"
#include "pool_allocator.cuh"
#include "random_keys.cuh"
#include "struct_key.cuh"

#include <gpusort/sort.cuh>

#include <thrust/execution_policy.h>
#include <thrust/sort.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace gpusort_bench {

template <class T>
const char* type_name() {
  if constexpr (std::is_same_v<T, std::uint8_t>) return "u8";
  else if constexpr (std::is_same_v<T, std::uint16_t>) return "u16";
  else if constexpr (std::is_same_v<T, std::int8_t>) return "i8";
  else if constexpr (std::is_same_v<T, std::int16_t>) return "i16";
  else if constexpr (std::is_same_v<T, __half>) return "f16";
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return "bf16";
  else if constexpr (std::is_same_v<T, std::uint32_t>) return "u32";
  else if constexpr (std::is_same_v<T, std::uint64_t>) return "u64";
  else if constexpr (std::is_same_v<T, float>) return "f32";
  else if constexpr (std::is_same_v<T, double>) return "f64";
  else if constexpr (std::is_same_v<T, s16_key>) return "s16";
  else static_assert(sizeof(T) == 0, "add a name for this type");
}

// "u32" for keys only, "u32+u32" for pairs: the type field of benchmark names and tables.
template <class Key, class Value>
std::string case_type_name() {
  if constexpr (std::is_same_v<Value, keys_only>) return type_name<Key>();
  else return std::string(type_name<Key>()) + "+" + type_name<Value>();
}

// How gpusort's values must match CUB's in a case with values.
enum class value_check {
  // Byte for byte: after the stable_ op, or a radix sort (sort_by_key, but stable in fact).
  same_as_cub,
  // After an unstable sort_by_key (gpusort::bucket_bitonic): equal keys' values may come in
  // any order, so each run of equal keys must hold the same values in some order, and every
  // value (an input index) must still sit next to its own input key.
  any_order_among_equal_keys,
};

template <class Key, class Value = keys_only, class Reference = cub_radix_sorter<Key, Value>>
class sort_case {
 public:
  using compare_type = typename Reference::compare_type;    // what the sorts compare with
  using host_order = typename Reference::host_order_type;  // the same order, for the checks
  static constexpr bool stable = Reference::op_is_stable;
  static constexpr bool has_values = !std::is_same_v<Value, keys_only>;
  static constexpr bool reference_in_place = Reference::in_place;
  static constexpr std::size_t bytes_per_item = sizeof(Key) + (has_values ? sizeof(Value) : 0);

  // The op field of benchmark names: the gpusort call that is timed.
  static std::string op_name() {
    return std::string(stable ? "stable_" : "") + (has_values ? "sort_by_key" : "sort");
  }

  // Allocates everything (CUB's temp storage included) and generates the input; returns
  // once the input is on the device.
  sort_case(std::size_t n, cudaStream_t stream,
            key_distribution distribution = key_distribution::uniform,
            std::uint64_t seed = 20261121)
      : n_(n), stream_(stream), distribution_(distribution),
        source_keys_(n), source_values_(has_values ? n : 0),
        work_keys_(n), work_values_(has_values ? n : 0),
        cub_keys_(reference_in_place ? 0 : n), cub_values_(has_values && !reference_in_place ? n : 0),
        cub_(n, stream) {
    fill_keys(source_keys_.data(), n, distribution, seed, stream);
    if constexpr (has_values) fill_index(source_values_.data(), n, stream);
    check_cuda(cudaStreamSynchronize(stream), "generating the input");
  }

  std::size_t size() const noexcept { return n_; }
  key_distribution distribution() const noexcept { return distribution_; }
  cudaStream_t stream() const noexcept { return stream_; }
  // Pass to policy.with_allocator() so that gpusort's temp storage is pre-allocated too.
  pool_allocator& pool() noexcept { return pool_; }
  std::size_t cub_temp_storage_bytes(cub_count count = cub_count::int_count) const {
    if constexpr (Reference::takes_count_type) return cub_.temp_storage_bytes(count);
    else return cub_.temp_storage_bytes();
  }

  // Enqueues a fresh copy of the input into the work buffers.
  void refresh() {
    work_keys_.copy_from(source_keys_, stream_);
    if constexpr (has_values) work_values_.copy_from(source_values_, stream_);
  }

  // Enqueues gpusort's sort of the work buffers, in place, with the reference's comparator
  // and op. `policy` carries the stream (and allocator); give it this case's stream.
  template <class Policy>
  void sort_with_gpusort(const Policy& policy) {
    Key* keys = work_keys_.data();
    const compare_type comp = device_comparator<compare_type>();
    if constexpr (has_values && stable)
      gpusort::stable_sort_by_key(policy, keys, keys + n_, work_values_.data(), comp);
    else if constexpr (has_values)
      gpusort::sort_by_key(policy, keys, keys + n_, work_values_.data(), comp);
    else if constexpr (stable)
      gpusort::stable_sort(policy, keys, keys + n_, comp);
    else
      gpusort::sort(policy, keys, keys + n_, comp);
  }

  // Enqueues CUB's sort of the work buffers: in place, or into cub_out; with its item count
  // as `count` says, where the reference takes either (cub_radix_sorter).
  void sort_with_cub(cub_count count = cub_count::int_count) {
    if constexpr (!Reference::takes_count_type) {
      if (count != cub_count::int_count)
        throw std::logic_error("this CUB reference takes an int count only");
    }
    if constexpr (reference_in_place)
      cub_(work_keys_.data(), work_values_.data());
    else
      cub_(work_keys_.data(), cub_keys_.data(), work_values_.data(), cub_values_.data(), count);
  }

  // Enqueues Thrust's sort of the work buffers, in place, as a Thrust user writes it
  // (thrust::cuda::par.on(stream): temporary storage allocated per call). Beside a comparison
  // reference, with the case's comparator and op (thrust::sort, stable_sort, sort_by_key or
  // stable_sort_by_key): Thrust runs its merge sort for a comparator it does not know. Beside
  // a radix reference, thrust::sort or sort_by_key without a comparator, so that Thrust picks
  // its radix sort; its default order is gpusort::less<>'s for arithmetic keys only.
  void sort_with_thrust() {
    const auto policy = thrust::cuda::par.on(stream_);
    Key* keys = work_keys_.data();
    if constexpr (Reference::comparison_sort) {
      const compare_type comp = device_comparator<compare_type>();
      if constexpr (has_values && stable)
        thrust::stable_sort_by_key(policy, keys, keys + n_, work_values_.data(), comp);
      else if constexpr (has_values)
        thrust::sort_by_key(policy, keys, keys + n_, work_values_.data(), comp);
      else if constexpr (stable)
        thrust::stable_sort(policy, keys, keys + n_, comp);
      else
        thrust::sort(policy, keys, keys + n_, comp);
    } else if constexpr (std::is_arithmetic_v<Key>) {  // compare_type: gpusort::less<>
      if constexpr (has_values)
        thrust::sort_by_key(policy, keys, keys + n_, work_values_.data());
      else
        thrust::sort(policy, keys, keys + n_);
    } else {
      throw std::logic_error("a radix case's thrust row needs arithmetic keys");
    }
  }

  // Sorts once with each (untimed; this is also both backends' warm-up) and compares: gpusort's
  // keys must equal CUB's byte for byte, except that after an unstable op keys the comparator
  // calls equivalent may come in any order among themselves; values (the input indices) as
  // `values` says (by default byte for byte: the stable_ op, or a radix sort); and the keys
  // must be in the comparator's (ascending) order. Returns "" or what differs.
  template <class Policy>
  std::string check_against_cub(const Policy& policy, value_check values = value_check::same_as_cub) {
    refresh();
    sort_with_gpusort(policy);
    const std::vector<Key> gpusort_keys = work_keys_.to_host(stream_);
    const std::vector<Value> gpusort_values = work_values_.to_host(stream_);
    refresh();
    sort_with_cub();
    const std::vector<Key> cub_keys = cub_output_keys().to_host(stream_);
    const std::vector<Value> cub_values = cub_output_values().to_host(stream_);

    if (auto where = first_key_difference(gpusort_keys, cub_keys); where != n_)
      return "keys differ from CUB's at index " + std::to_string(where);
    const std::size_t value_difference =
        values == value_check::same_as_cub
            ? first_difference(gpusort_values, cub_values)
            : first_unordered_value_difference(gpusort_keys, gpusort_values, cub_keys, cub_values);
    if (value_difference != n_)
      return "values differ from CUB's at index " + std::to_string(value_difference);
    if (!std::is_sorted(gpusort_keys.begin(), gpusort_keys.end(), host_order{}))
      return "keys are not in ascending order";
    return {};
  }

 private:
  const device_buffer<Key>& cub_output_keys() const {
    return reference_in_place ? work_keys_ : cub_keys_;
  }
  const device_buffer<Value>& cub_output_values() const {
    return reference_in_place ? work_values_ : cub_values_;
  }

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

  // As first_difference for a stable op. After an unstable one, equivalent keys (neither
  // precedes the other: the s16 keys' tags, say) may be ordered either way, so from the first
  // byte difference on, each run of keys equivalent in CUB's output must be matched by
  // equivalent keys in gpusort's, holding the same keys byte for byte in some order. Returns
  // the first index where that fails (the start of the run when the keys differ), or n_.
  std::size_t first_key_difference(const std::vector<Key>& mine, const std::vector<Key>& cub) const {
    const std::size_t first = first_difference(mine, cub);
    if (stable || first == n_ || mine.size() != cub.size()) return first;
    const host_order comp{};
    const auto equivalent = [&](const Key& a, const Key& b) { return !comp(a, b) && !comp(b, a); };
    const auto bytes_less = [](const Key& a, const Key& b) { return std::memcmp(&a, &b, sizeof(Key)) < 0; };

    std::size_t run_begin = first;  // the start of the run that holds the first difference
    while (run_begin > 0 && equivalent(cub[run_begin - 1], cub[first])) --run_begin;
    std::vector<Key> mine_run, cub_run;
    while (run_begin < n_) {
      std::size_t run_end = run_begin + 1;
      while (run_end < n_ && equivalent(cub[run_end], cub[run_begin])) ++run_end;
      for (std::size_t i = run_begin; i < run_end; ++i)
        if (!equivalent(mine[i], cub[run_begin])) return i;
      const std::size_t run_bytes = (run_end - run_begin) * sizeof(Key);
      if (std::memcmp(&mine[run_begin], &cub[run_begin], run_bytes) != 0) {
        mine_run.assign(mine.begin() + run_begin, mine.begin() + run_end);
        cub_run.assign(cub.begin() + run_begin, cub.begin() + run_end);
        std::sort(mine_run.begin(), mine_run.end(), bytes_less);
        std::sort(cub_run.begin(), cub_run.end(), bytes_less);
        if (std::memcmp(mine_run.data(), cub_run.data(), run_bytes) != 0) return run_begin;
      }
      run_begin = run_end;
    }
    return n_;
  }

  // value_check::any_order_among_equal_keys, once the keys have matched (so gpusort's runs of
  // equal keys are CUB's): every value must be the input index of the key beside it, and each
  // run of CUB's equivalent keys must hold the same values in both outputs, in some order.
  // Returns the first index where that fails (the start of the run for the second), or n_.
  std::size_t first_unordered_value_difference(const std::vector<Key>& mine_keys,
                                               const std::vector<Value>& mine_values,
                                               const std::vector<Key>& cub_keys,
                                               const std::vector<Value>& cub_values) const {
    if constexpr (!has_values) {
      return n_;
    } else {
      static_assert(std::is_integral_v<Value>, "the values of a case are input indices");
      const std::vector<Key> source_keys = source_keys_.to_host(stream_);
      for (std::size_t i = 0; i < n_; ++i) {
        const auto from = static_cast<std::size_t>(mine_values[i]);
        if (from >= n_ || std::memcmp(&source_keys[from], &mine_keys[i], sizeof(Key)) != 0) return i;
      }
      const host_order comp{};
      std::vector<Value> mine_run, cub_run;
      for (std::size_t run_begin = 0; run_begin < n_;) {
        std::size_t run_end = run_begin + 1;
        while (run_end < n_ && !comp(cub_keys[run_begin], cub_keys[run_end])) ++run_end;
        const std::size_t run_bytes = (run_end - run_begin) * sizeof(Value);
        if (std::memcmp(&mine_values[run_begin], &cub_values[run_begin], run_bytes) != 0) {
          mine_run.assign(mine_values.begin() + run_begin, mine_values.begin() + run_end);
          cub_run.assign(cub_values.begin() + run_begin, cub_values.begin() + run_end);
          std::sort(mine_run.begin(), mine_run.end());
          std::sort(cub_run.begin(), cub_run.end());
          if (mine_run != cub_run) return run_begin;
        }
        run_begin = run_end;
      }
      return n_;
    }
  }

  std::size_t n_;
  cudaStream_t stream_;
  key_distribution distribution_;
  device_buffer<Key> source_keys_;
  device_buffer<Value> source_values_;
  device_buffer<Key> work_keys_;
  device_buffer<Value> work_values_;
  device_buffer<Key> cub_keys_;
  device_buffer<Value> cub_values_;
  Reference cub_;
  pool_allocator pool_;
};

}  // namespace gpusort_bench
