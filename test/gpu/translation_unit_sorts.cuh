// The sorts the translation-units test runs in each of its two units. Each unit includes this
// file, so each has its own copy of every kernel these sorts instantiate (nvcc 13 gives a
// kernel template's host stub internal linkage: -static-global-template-stub), as a program
// of several .cu files that call gpusort has. One unit sorts in ascending order, the other in
// descending order, so that the two also instantiate different host functions around the
// same kernels, as two files of a program do (the comparison sort's case: sort in one unit,
// stable_sort in the other, with one comparator).
#pragma once

#include "../support/device_vector.cuh"
#include "../support/sort_checks.cuh"

#include <gpusort/sort.cuh>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>
#include <type_traits>
#include <vector>

namespace gpusort::test {

// Every path whose kernels need a setting made once per device (more than 48 KB of shared
// memory, clusters): par from the network through clusters and the sort by buckets to the
// one-sweep passes, 16-bit keys counted, the merge backend's cluster sort, the radix sort's
// up-front histogram past its small grid, and bucket_bitonic.
enum class unit_sort {
  par_u32_4096, par_u32_2e15, par_u32_2e17, par_u32_2e19, par_u32_2e21,
  par_u64_2e15, par_u64_2e17, par_u64_2e20, par_pairs_2e17, par_u16_2e22,
  merge_functor_2e14, radix_u32_past_small_grid, radix_u64_past_small_grid,
  bucket_bitonic_u32_2e20, count
};

// An order only the comparison sort serves, one type in both units (a type of the unnamed
// namespace below would be each unit's own, and so would every function around it): the
// units share the merge backend's cluster sorter, one calling sort, the other stable_sort.
struct by_low_half_then_high {
  __host__ __device__ bool operator()(std::uint32_t a, std::uint32_t b) const {
    return (a << 16 | a >> 16) < (b << 16 | b >> 16);
  }
};

namespace {  // internal linkage: a copy in each unit

template <bool Descending>
using unit_order = std::conditional_t<Descending, gpusort::greater<>, gpusort::less<>>;

// "" where sort(device copy of input) leaves `expected` on the device, else what went wrong
// (the exception's text where it threw).
template <class Key, class Sort>
std::string device_result(const std::vector<Key>& input, const std::vector<Key>& expected,
                          Sort&& sort) {
  try {
    device_array<Key> device(input);
    sort(device.begin(), device.end());
    return device.to_host() == expected ? "" : "differs from the host's sort";
  } catch (const std::exception& e) {
    return e.what();
  }
}

template <bool Descending, class Key, class Policy>
std::string sorted_like_std_sort(const Policy& policy, std::size_t n, std::uint64_t seed) {
  const std::vector<Key> keys = make_keys<Key>(n, distribution::uniform, seed);
  std::vector<Key> expected = keys;
  std::sort(expected.begin(), expected.end());
  if (Descending) std::reverse(expected.begin(), expected.end());
  return device_result(keys, expected, [&](Key* first, Key* last) {
    gpusort::sort(policy, first, last, unit_order<Descending>{});
  });
}

// u32 keys with their positions as values: the values must come out in std::stable_sort's
// order of the positions.
template <bool Descending>
std::string pairs_sorted_like_std_stable_sort(std::size_t n, std::uint64_t seed) {
  const std::vector<std::uint32_t> keys = make_keys<std::uint32_t>(n, distribution::uniform, seed);
  std::vector<std::uint32_t> positions(n);
  for (std::size_t i = 0; i < n; ++i) positions[i] = std::uint32_t(i);
  std::vector<std::uint32_t> order = positions;
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    return Descending ? keys[b] < keys[a] : keys[a] < keys[b];
  });
  // (device_result catches what the sort throws; device_array's upload does not throw.)
  device_array<std::uint32_t> device_keys(keys);
  return device_result(positions, order, [&](std::uint32_t* first, std::uint32_t*) {
    gpusort::sort_by_key(gpusort::par, device_keys.begin(), device_keys.end(), first,
                         unit_order<Descending>{});
  });
}

// "" where the sort's result equals the host's, else what went wrong (an exception's text).
template <bool Descending>
std::string run_in_this_unit(unit_sort which) {
  using u32 = std::uint32_t;
  using u64 = std::uint64_t;
  constexpr auto D = Descending;
  const auto at = [](int log2) { return std::size_t(1) << log2; };
  const std::size_t past_small_grid = radix_tuning_sm90::knobs.histogram_small_max_keys + 1;
  const gpusort::radix_policy<radix_tuning_sm90> radix_sm90;
  switch (which) {
    case unit_sort::par_u32_4096: return sorted_like_std_sort<D, u32>(gpusort::par, 4096, 1);
    case unit_sort::par_u32_2e15: return sorted_like_std_sort<D, u32>(gpusort::par, at(15), 2);
    case unit_sort::par_u32_2e17: return sorted_like_std_sort<D, u32>(gpusort::par, at(17), 3);
    case unit_sort::par_u32_2e19: return sorted_like_std_sort<D, u32>(gpusort::par, at(19), 4);
    case unit_sort::par_u32_2e21: return sorted_like_std_sort<D, u32>(gpusort::par, at(21), 5);
    case unit_sort::par_u64_2e15: return sorted_like_std_sort<D, u64>(gpusort::par, at(15), 6);
    case unit_sort::par_u64_2e17: return sorted_like_std_sort<D, u64>(gpusort::par, at(17), 7);
    case unit_sort::par_u64_2e20: return sorted_like_std_sort<D, u64>(gpusort::par, at(20), 8);
    case unit_sort::par_pairs_2e17: return pairs_sorted_like_std_stable_sort<D>(at(17), 9);
    case unit_sort::par_u16_2e22:
      return sorted_like_std_sort<D, std::uint16_t>(gpusort::par, at(22), 10);
    case unit_sort::merge_functor_2e14: {
      const std::vector<u32> keys = make_keys<u32>(at(14), distribution::uniform, 11);
      std::vector<u32> expected = keys;
      std::sort(expected.begin(), expected.end(), by_low_half_then_high{});
      return device_result(keys, expected, [](u32* first, u32* last) {
        if constexpr (D)
          gpusort::stable_sort(gpusort::merge, first, last, by_low_half_then_high{});
        else
          gpusort::sort(gpusort::merge, first, last, by_low_half_then_high{});
      });
    }
    case unit_sort::radix_u32_past_small_grid:
      return sorted_like_std_sort<D, u32>(radix_sm90, past_small_grid, 12);
    case unit_sort::radix_u64_past_small_grid:
      return sorted_like_std_sort<D, u64>(radix_sm90, past_small_grid, 13);
    case unit_sort::bucket_bitonic_u32_2e20:
      return sorted_like_std_sort<D, u32>(gpusort::bucket_bitonic, at(20), 14);
    case unit_sort::count: break;
  }
  return "no such sort";
}

}  // namespace

// The other unit's copy (translation_units_other.cu), ascending; this unit's run descending.
std::string run_in_other_unit(unit_sort which);

}  // namespace gpusort::test
