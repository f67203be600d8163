// The counting sort of narrow keys (keys only: integer, character and bool keys of at most
// 16 bits), through every call that reaches it: gpusort::sort with par and radix, and
// stable_sort, ascending and descending, compared with std::sort on the host. Written once,
// instantiated per key width in separate translation units.
#pragma once

#include "../support/counting_tuning.cuh"
#include "../support/device_vector.cuh"
#include "../support/gpu.cuh"
#include "../support/sort_checks.cuh"

#include <gpusort/sort.cuh>

#include <thrust/functional.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace gpusort::test {

// What the counting sort's work depends on: how the keys fill the bins.
enum class narrow_input { uniform, all_equal, one_value_99_percent, two_values, sorted, reversed };

inline const char* name_of(narrow_input d) {
  switch (d) {
    case narrow_input::uniform: return "uniform";
    case narrow_input::all_equal: return "all_equal";
    case narrow_input::one_value_99_percent: return "one_value_99_percent";
    case narrow_input::two_values: return "two_values";
    case narrow_input::sorted: return "sorted";
    case narrow_input::reversed: return "reversed";
  }
  return "?";
}

inline constexpr narrow_input every_narrow_input[] = {
    narrow_input::uniform,    narrow_input::all_equal, narrow_input::one_value_99_percent,
    narrow_input::two_values, narrow_input::sorted,    narrow_input::reversed};

// Keys as their bytes: bool keys live in bytes (0 or 1), std::vector<bool> has no storage.
template <class Key>
using narrow_storage_t = std::conditional_t<std::is_same_v<Key, bool>, std::uint8_t, Key>;

template <class Key>
narrow_storage_t<Key> random_narrow_key(std::mt19937_64& rng) {
  if constexpr (std::is_same_v<Key, bool>) return std::uint8_t(rng() & 1);
  else return from_bits<Key>(same_size_bits_t<Key>(rng()));
}

template <class Key>
std::vector<narrow_storage_t<Key>> make_narrow_keys(std::size_t n, narrow_input d,
                                                    std::uint64_t seed) {
  using stored = narrow_storage_t<Key>;
  std::mt19937_64 rng(seed);
  std::vector<stored> keys(n);
  const stored common = random_narrow_key<Key>(rng);
  stored other = random_narrow_key<Key>(rng);
  while (other == common) other = random_narrow_key<Key>(rng);
  for (auto& k : keys) {
    switch (d) {
      case narrow_input::all_equal: k = common; break;
      case narrow_input::one_value_99_percent:
        k = rng() % 100 != 0 ? common : random_narrow_key<Key>(rng);
        break;
      case narrow_input::two_values: k = (rng() & 1) ? common : other; break;
      default: k = random_narrow_key<Key>(rng); break;
    }
  }
  if (d == narrow_input::sorted) std::sort(keys.begin(), keys.end());
  if (d == narrow_input::reversed) std::sort(keys.begin(), keys.end(), std::greater<stored>());
  return keys;
}

enum class narrow_call { par_sort, radix_sort, par_stable_sort, radix_stable_sort, counting_sort };

inline const char* name_of(narrow_call call) {
  switch (call) {
    case narrow_call::par_sort: return "sort(par)";
    case narrow_call::radix_sort: return "sort(radix)";
    case narrow_call::par_stable_sort: return "stable_sort(par)";
    case narrow_call::radix_stable_sort: return "stable_sort(radix)";
    case narrow_call::counting_sort: return "sort(radix, counting from one key)";
  }
  return "?";
}

// The call on keys [first, last), either order (descending through a different named
// comparator per call, so that every way of saying "greater" is used).
template <class Key>
void run_narrow_call(narrow_call call, Key* first, Key* last, bool descending) {
  switch (call) {
    case narrow_call::par_sort:
      if (descending) gpusort::sort(gpusort::par, first, last, gpusort::greater<>{});
      else gpusort::sort(gpusort::par, first, last);
      return;
    case narrow_call::radix_sort:
      if (descending) gpusort::sort(gpusort::radix, first, last, thrust::greater<Key>{});
      else gpusort::sort(gpusort::radix, first, last, thrust::less<Key>{});
      return;
    case narrow_call::par_stable_sort:
      if (descending) gpusort::stable_sort(gpusort::par, first, last, std::greater<>{});
      else gpusort::stable_sort(gpusort::par, first, last, std::less<>{});
      return;
    case narrow_call::radix_stable_sort:
      if (descending) gpusort::stable_sort(gpusort::radix, first, last, gpusort::greater<>{});
      else gpusort::stable_sort(gpusort::radix, first, last, gpusort::less<>{});
      return;
    case narrow_call::counting_sort: {
      const gpusort::radix_policy<counting_from_one_key> counting;
      if (descending) gpusort::sort(counting, first, last, gpusort::greater<>{});
      else gpusort::sort(counting, first, last);
      return;
    }
  }
}

// std::sort's order of the keys (signed keys as signed, bool false before true).
template <class Key>
std::vector<narrow_storage_t<Key>> narrow_reference(std::vector<narrow_storage_t<Key>> keys,
                                                    bool descending) {
  if (descending)
    std::sort(keys.begin(), keys.end(), std::greater<narrow_storage_t<Key>>());
  else
    std::sort(keys.begin(), keys.end());
  return keys;
}

// Sorts `keys` placed `offset` elements into a device buffer between guard elements (so the
// range starts and ends off any 16-byte boundary), with each call and order, and compares with
// std::sort; the guards must be untouched.
template <class Key>
void expect_counts_like_std_sort(const std::vector<narrow_storage_t<Key>>& keys,
                                 std::size_t offset, const std::vector<narrow_call>& calls) {
  using stored = narrow_storage_t<Key>;
  constexpr std::size_t guard = 40;
  const stored guard_key = stored(0x5A);
  for (bool descending : {false, true}) {
    const std::vector<stored> expected = narrow_reference<Key>(keys, descending);
    for (narrow_call call : calls) {
      SCOPED_TRACE(std::string(name_of(call)) + (descending ? " descending" : " ascending") +
                   " offset=" + std::to_string(offset));
      std::vector<stored> buffer(offset + keys.size() + guard, guard_key);
      std::copy(keys.begin(), keys.end(), buffer.begin() + std::ptrdiff_t(offset));
      device_array<stored> device(buffer);
      Key* first = reinterpret_cast<Key*>(device.begin()) + offset;
      run_narrow_call<Key>(call, first, first + keys.size(), descending);
      const std::vector<stored> got = device.to_host();
      for (std::size_t i = 0; i < offset; ++i) ASSERT_EQ(got[i], guard_key) << "guard " << i;
      for (std::size_t i = offset + keys.size(); i < got.size(); ++i)
        ASSERT_EQ(got[i], guard_key) << "guard " << i;
      const auto mismatch =
          std::mismatch(expected.begin(), expected.end(), got.begin() + std::ptrdiff_t(offset));
      ASSERT_TRUE(mismatch.first == expected.end())
          << "differs first at index " << (mismatch.first - expected.begin()) << ": got "
          << +*mismatch.second << ", expected " << +*mismatch.first;
    }
  }
}

inline const std::vector<narrow_call>& every_narrow_call() {
  static const std::vector<narrow_call> calls = {
      narrow_call::par_sort, narrow_call::radix_sort, narrow_call::par_stable_sort,
      narrow_call::radix_stable_sort, narrow_call::counting_sort};
  return calls;
}

// Sizes around par's switch from the cluster sort (2^16), the count step and fill tile, a
// prime above 10^6, and beyond 2^24.
inline std::vector<std::size_t> counting_sizes() {
  return capped({0, 1, 2, 31, 1000, 4097, 16383, 65535, 65537, 100003, 1000003});
}
inline constexpr std::size_t counting_big_size = (std::size_t(1) << 24) + 5;

template <class Key>
class CountingSort : public GpuTest {};
TYPED_TEST_SUITE_P(CountingSort);

TYPED_TEST_P(CountingSort, MatchesStdSortForEveryInputSizeAndCall) {
  for (std::size_t n : counting_sizes())
    for (narrow_input d : every_narrow_input) {
      SCOPED_TRACE("n=" + std::to_string(n) + " input=" + name_of(d));
      expect_counts_like_std_sort<TypeParam>(make_narrow_keys<TypeParam>(n, d, n * 31 + int(d)),
                                             0, every_narrow_call());
      if (::testing::Test::HasFatalFailure()) return;
    }
}

// Ranges that start at every byte offset of a 16-byte vector, so head and tail keys are
// counted and filled apart from the vectors; guards either side stay untouched.
TYPED_TEST_P(CountingSort, RangesStartingAnywhereLeaveTheirNeighboursAlone) {
  for (std::size_t offset = 1; offset < 16; ++offset)
    for (std::size_t n : capped({3, 17, 100003})) {
      SCOPED_TRACE("n=" + std::to_string(n));
      expect_counts_like_std_sort<TypeParam>(
          make_narrow_keys<TypeParam>(n, narrow_input::uniform, offset * 7 + n), offset,
          {narrow_call::par_sort, narrow_call::counting_sort});
      if (::testing::Test::HasFatalFailure()) return;
    }
}

TYPED_TEST_P(CountingSort, BeyondTwoToThe24) {
  for (narrow_input d : {narrow_input::uniform, narrow_input::one_value_99_percent,
                         narrow_input::two_values, narrow_input::reversed}) {
    SCOPED_TRACE(std::string("input=") + name_of(d));
    for (std::size_t n : capped({counting_big_size}))
      expect_counts_like_std_sort<TypeParam>(make_narrow_keys<TypeParam>(n, d, 11 + int(d)), 3,
                                             {narrow_call::par_sort, narrow_call::radix_sort});
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// Every key the same value in long runs and a few others: counters fill up (2^15 keys of
// one value per block counter) and are flushed many times.
TYPED_TEST_P(CountingSort, CountersFlushedManyTimesLoseNoKey) {
  for (std::size_t n : capped({std::size_t(1) << 22, (std::size_t(1) << 22) + 9}))
    expect_counts_like_std_sort<TypeParam>(
        make_narrow_keys<TypeParam>(n, narrow_input::all_equal, n), 5,
        {narrow_call::radix_sort, narrow_call::counting_sort});
}

// 16-byte vectors whose keys are all one value (counted in one add) beside vectors where one
// key, at each position in turn, differs from the rest: a test that looked at fewer than all
// of a vector's keys would miscount. The groups follow the vectors of the range (which start
// at the first 16-byte boundary inside it).
TYPED_TEST_P(CountingSort, VectorsOfOneValueBesideVectorsWithOneOtherKey) {
  using stored = narrow_storage_t<TypeParam>;
  constexpr std::size_t per_vector = 16 / sizeof(stored);
  for (std::size_t offset : {std::size_t(0), std::size_t(5)})
    for (std::size_t n : capped({100003, (std::size_t(1) << 22) + 3})) {
      SCOPED_TRACE("n=" + std::to_string(n));
      std::mt19937_64 rng(n + offset);
      std::vector<stored> keys(n);
      for (std::size_t i = 0; i < n;) {
        const std::size_t group = (i + offset) / per_vector;
        const stored value = random_narrow_key<TypeParam>(rng);
        stored other = random_narrow_key<TypeParam>(rng);
        while (other == value) other = random_narrow_key<TypeParam>(rng);
        for (; i < n && (i + offset) / per_vector == group; ++i)
          keys[i] = group % 3 != 0 && (i + offset) % per_vector == group % per_vector ? other
                                                                                    : value;
      }
      expect_counts_like_std_sort<TypeParam>(keys, offset,
                                             {narrow_call::par_sort, narrow_call::counting_sort});
      if (::testing::Test::HasFatalFailure()) return;
    }
}

REGISTER_TYPED_TEST_SUITE_P(CountingSort, MatchesStdSortForEveryInputSizeAndCall,
                            RangesStartingAnywhereLeaveTheirNeighboursAlone, BeyondTwoToThe24,
                            CountersFlushedManyTimesLoseNoKey,
                            VectorsOfOneValueBesideVectorsWithOneOtherKey);

}  // namespace gpusort::test
