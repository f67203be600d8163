// The counting sort of 16-bit floats (__half, __nv_bfloat16; keys only): counted where every
// zero and every NaN of the input has one bit pattern, sorted by the one-sweep passes where
// -0.0 and +0.0, or two NaN payloads, both occur (the stable order then keeps them in input
// order). Compared bit for bit with a stable sort on the host by the radix order (-0.0 equal
// to +0.0, every NaN one value after +inf).
#include "../support/counting_tuning.cuh"
#include "../support/device_vector.cuh"
#include "../support/gpu.cuh"
#include "../support/sort_checks.cuh"

#include <gpusort/sort.cuh>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace gpusort::test {
namespace {

// Which zeros and NaNs an input holds; the rest of its keys are finite, non-zero, ±inf.
enum class specials {
  none,
  positive_zeros,        // one pattern per class: counted
  negative_zeros,
  one_nan_payload,       // a negative-signed NaN: it still sorts after +inf
  both_zeros,            // two patterns in a class: its keys kept aside in input order
  two_nan_payloads,
  both_zeros_and_two_nan_payloads,  // both classes mixed at once
  all_one_nan,
  all_zeros_of_both_signs,          // every key kept aside
};

const char* name_of(specials s) {
  switch (s) {
    case specials::none: return "none";
    case specials::positive_zeros: return "positive_zeros";
    case specials::negative_zeros: return "negative_zeros";
    case specials::one_nan_payload: return "one_nan_payload";
    case specials::both_zeros: return "both_zeros";
    case specials::two_nan_payloads: return "two_nan_payloads";
    case specials::both_zeros_and_two_nan_payloads: return "both_zeros_and_two_nan_payloads";
    case specials::all_one_nan: return "all_one_nan";
    case specials::all_zeros_of_both_signs: return "all_zeros_of_both_signs";
  }
  return "?";
}

constexpr specials every_specials[] = {
    specials::none,       specials::positive_zeros,   specials::negative_zeros,
    specials::one_nan_payload, specials::both_zeros, specials::two_nan_payloads,
    specials::both_zeros_and_two_nan_payloads, specials::all_one_nan,
    specials::all_zeros_of_both_signs};

template <class Key>
std::vector<std::uint16_t> make_half_bits(std::size_t n, specials s, std::uint64_t seed) {
  using traits = radix_key_traits<Key>;
  constexpr std::uint16_t infinity = traits::infinity_bits;
  constexpr std::uint16_t sign = traits::sign_mask;
  std::mt19937_64 rng(seed);
  std::vector<std::uint16_t> bits(n);
  for (auto& b : bits) {
    const unsigned pick = unsigned(rng() % 16);
    std::uint16_t finite = std::uint16_t(rng() % infinity);  // magnitude below +inf
    if (finite == 0) finite = 1;
    b = std::uint16_t(finite | (rng() & 1 ? sign : 0));
    if (pick == 0) b = std::uint16_t(infinity | (rng() & 1 ? sign : 0));
    if (pick < 4) continue;
    if (pick < 8) {  // a zero, where the input has zeros
      if (s == specials::positive_zeros) b = 0;
      if (s == specials::negative_zeros) b = sign;
      if (s == specials::both_zeros || s == specials::both_zeros_and_two_nan_payloads)
        b = (rng() & 1) ? 0 : sign;
    } else if (pick < 10) {  // a NaN, where the input has NaNs
      if (s == specials::one_nan_payload) b = std::uint16_t(sign | infinity | 1);
      if (s == specials::two_nan_payloads || s == specials::both_zeros_and_two_nan_payloads)
        b = std::uint16_t(infinity | ((rng() & 1) ? 1 : 3));
    }
  }
  if (s == specials::all_one_nan) std::fill(bits.begin(), bits.end(), std::uint16_t(infinity | 5));
  if (s == specials::all_zeros_of_both_signs)
    for (auto& b : bits) b = (rng() & 1) ? 0 : sign;
  return bits;
}

// The stable sort's output, by the radix order.
template <class Key>
std::vector<std::uint16_t> stable_reference(std::vector<std::uint16_t> bits, bool descending) {
  const auto order = [](std::uint16_t b) {
    Key key;
    std::memcpy(static_cast<void*>(&key), &b, sizeof(key));  // (__half: protected members)
    return radix_key_traits<Key>::sort_bits(key);
  };
  std::stable_sort(bits.begin(), bits.end(), [&](std::uint16_t a, std::uint16_t b) {
    return descending ? order(b) < order(a) : order(a) < order(b);
  });
  return bits;
}

enum class half_call { par, counting };

// Keys uniform in value over [-range, range] (the benchmark's data): most keys in the bins of
// the largest magnitudes, the bins around zero nearly all empty, and whole groups of bins
// (the subnormals', the smallest exponents') without a key, which the fill passes over.
template <class Key>
std::vector<std::uint16_t> make_value_uniform_bits(std::size_t n, float range,
                                                   std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> value(-range, range);
  std::vector<std::uint16_t> bits(n);
  for (auto& b : bits) {
    Key key;
    if constexpr (std::is_same_v<Key, __half>) key = __float2half(value(rng));
    else key = __float2bfloat16(value(rng));
    std::memcpy(&b, static_cast<const void*>(&key), sizeof(b));  // (__half: protected members)
  }
  return bits;
}

template <class Key>
void expect_stable_bits(const std::vector<std::uint16_t>& input, const std::string& what,
                        half_call call) {
  const std::size_t n = input.size();
  for (bool descending : {false, true}) {
    SCOPED_TRACE(what + " n=" + std::to_string(n) +
                 (call == half_call::par ? " par" : " counting") +
                 (descending ? " descending" : " ascending"));
    device_array<std::uint16_t> device(input);
    Key* first = reinterpret_cast<Key*>(device.begin());
    if (call == half_call::par) {
      if (descending) gpusort::sort(gpusort::par, first, first + n, gpusort::greater<>{});
      else gpusort::sort(gpusort::par, first, first + n);
    } else {
      const gpusort::radix_policy<counting_from_one_key> counting;
      if (descending) gpusort::sort(counting, first, first + n, gpusort::greater<>{});
      else gpusort::sort(counting, first, first + n);
    }
    const std::vector<std::uint16_t> got = device.to_host();
    const std::vector<std::uint16_t> expected = stable_reference<Key>(input, descending);
    const auto mismatch = std::mismatch(expected.begin(), expected.end(), got.begin());
    ASSERT_TRUE(mismatch.first == expected.end())
        << "differs first at index " << (mismatch.first - expected.begin()) << ": got 0x"
        << std::hex << *mismatch.second << ", expected 0x" << *mismatch.first;
  }
}

template <class Key>
void expect_stable_bits(std::size_t n, specials s, half_call call, std::uint64_t seed) {
  expect_stable_bits<Key>(make_half_bits<Key>(n, s, seed), name_of(s), call);
}

template <class Key>
class HalfCountingSort : public GpuTest {};
using HalfKeys = ::testing::Types<__half, __nv_bfloat16>;
TYPED_TEST_SUITE(HalfCountingSort, HalfKeys);

// Every kind of input at sizes around a count step and fill tile, counted from the first key:
// the counted classes keep their one pattern, the mixed ones their keys in input order (kept
// aside before the fill: from 4097 keys, in several chunks).
TYPED_TEST(HalfCountingSort, EveryZeroAndNanPatternKeepsTheStableOrder) {
  for (std::size_t n : capped({1, 2, 1000, 4097, 65537, 100003}))
    for (specials s : every_specials) {
      expect_stable_bits<TypeParam>(n, s, half_call::counting, n * 13 + int(s));
      if (::testing::Test::HasFatalFailure()) return;
    }
}

// gpusort::par counts from 2^22 16-bit float keys: the same inputs through the plain call.
TYPED_TEST(HalfCountingSort, ParCountsLargeInputs) {
  for (std::size_t n : capped({(std::size_t(1) << 22) + 3}))
    for (specials s : {specials::none, specials::negative_zeros, specials::both_zeros,
                       specials::both_zeros_and_two_nan_payloads}) {
      expect_stable_bits<TypeParam>(n, s, half_call::par, 7 + int(s));
      if (::testing::Test::HasFatalFailure()) return;
    }
}

// Values uniform in a wide range: fill blocks whose positions span thousands of bins, most
// of them empty, and whole groups of empty bins between keys; counted from the first key and
// through par on both sides of its switch to counting.
TYPED_TEST(HalfCountingSort, ValuesUniformInAWideRange) {
  for (std::size_t n : capped({std::size_t(4097), std::size_t(100003), std::size_t(1) << 20}))
    expect_stable_bits<TypeParam>(make_value_uniform_bits<TypeParam>(n, 60000.f, n), "+-60000",
                                  half_call::counting);
  for (std::size_t n : capped({(std::size_t(1) << 22) - 1, (std::size_t(1) << 22) + 5}))
    expect_stable_bits<TypeParam>(make_value_uniform_bits<TypeParam>(n, 60000.f, n), "+-60000",
                                  half_call::par);
  // Few keys in a narrow range far from zero: most of a block's span empty groups.
  expect_stable_bits<TypeParam>(make_value_uniform_bits<TypeParam>(65537, 3.f, 9), "+-3",
                                half_call::counting);
}

// One allocation per call, made before the input is touched, even where the count shows two
// zero patterns and the zeros are kept aside: their memory comes with the count's.
struct counting_calls_allocator {
  int allocations = 0;
  void* allocate(std::size_t bytes, cudaStream_t) {
    ++allocations;
    void* p = nullptr;
    return cudaMalloc(&p, bytes) == cudaSuccess ? p : nullptr;
  }
  void deallocate(void* p, std::size_t, cudaStream_t stream) {
    cudaStreamSynchronize(stream);
    cudaFree(p);
  }
};

TYPED_TEST(HalfCountingSort, OneAllocationWhateverTheCountFinds) {
  for (specials s : {specials::none, specials::both_zeros}) {
    SCOPED_TRACE(name_of(s));
    const std::size_t n = 100003;
    const std::vector<std::uint16_t> input = make_half_bits<TypeParam>(n, s, 5);
    device_array<std::uint16_t> device(input);
    TypeParam* first = reinterpret_cast<TypeParam*>(device.begin());
    counting_calls_allocator allocator;
    gpusort::sort(gpusort::radix_policy<counting_from_one_key>{}.with_allocator(allocator), first,
                  first + n);
    EXPECT_EQ(allocator.allocations, 1);
    EXPECT_EQ(device.to_host(), stable_reference<TypeParam>(input, false));
  }
}

}  // namespace
}  // namespace gpusort::test
