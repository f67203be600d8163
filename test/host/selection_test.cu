// Compile-time backend selection and the front door's checks that need no GPU.
#include <gpusort/sort.cuh>

#include <gtest/gtest.h>

#include <thrust/device_vector.h>
#include <thrust/functional.h>

#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>

namespace selection_test {

struct point {
  float x, y;
};
struct by_x {
  __host__ __device__ bool operator()(const point& a, const point& b) const { return a.x < b.x; }
};
struct descending_by_parity {
  __host__ __device__ bool operator()(int a, int b) const { return (a & 1) < (b & 1); }
};

}  // namespace selection_test

namespace {

using namespace selection_test;
using gpusort::automatic_backend_t;
using gpusort::comparator_order_v;
using gpusort::key_order;

TEST(Selection, NamedComparatorsAreRecognisedAsTheSameOrders) {
  static_assert(comparator_order_v<gpusort::less<>, float> == key_order::ascending);
  static_assert(comparator_order_v<gpusort::less<float>, float> == key_order::ascending);
  static_assert(comparator_order_v<gpusort::greater<>, int> == key_order::descending);
  static_assert(comparator_order_v<thrust::less<unsigned>, unsigned> == key_order::ascending);
  static_assert(comparator_order_v<thrust::greater<unsigned>, unsigned> == key_order::descending);
  static_assert(comparator_order_v<cuda::std::less<>, double> == key_order::ascending);
  static_assert(comparator_order_v<cuda::std::greater<double>, double> == key_order::descending);
  static_assert(comparator_order_v<std::greater<long>, long> == key_order::descending);
  // A named order for another type converts, so it is not taken for the key's order.
  static_assert(comparator_order_v<gpusort::less<int>, long> == key_order::custom);
  static_assert(comparator_order_v<descending_by_parity, int> == key_order::custom);
  SUCCEED();
}

TEST(Selection, ParPicksRadixForRadixKeysWithNamedOrders) {
  static_assert(std::is_same_v<automatic_backend_t<std::uint32_t, gpusort::less<>>, gpusort::radix_backend>);
  static_assert(std::is_same_v<automatic_backend_t<double, thrust::greater<double>>, gpusort::radix_backend>);
  static_assert(std::is_same_v<automatic_backend_t<__half, gpusort::less<>>, gpusort::radix_backend>);
  static_assert(std::is_same_v<automatic_backend_t<bool, gpusort::greater<>>, gpusort::radix_backend>);
  SUCCEED();
}

TEST(Selection, ParPicksTheComparisonBackendOtherwise) {
  static_assert(std::is_same_v<automatic_backend_t<int, descending_by_parity>, gpusort::merge_backend>);
  static_assert(std::is_same_v<automatic_backend_t<point, by_x>, gpusort::merge_backend>);
  static_assert(!gpusort::backend_can_serve_v<gpusort::radix_backend, point, by_x>);
  static_assert(gpusort::backend_can_serve_v<gpusort::merge_backend, point, by_x>);
  static_assert(!gpusort::backend_can_serve_v<gpusort::merge_backend, point, gpusort::less<>>);
  SUCCEED();
}

TEST(Selection, EveryBuiltInPolicyIsAPolicy) {
  static_assert(gpusort::is_execution_policy_v<decltype(gpusort::par)>);
  static_assert(gpusort::is_execution_policy_v<decltype(gpusort::radix)>);
  static_assert(gpusort::is_execution_policy_v<decltype(gpusort::merge)>);
  static_assert(gpusort::is_execution_policy_v<decltype(gpusort::bucket_bitonic)>);
  static_assert(!gpusort::is_execution_policy_v<int>);
  SUCCEED();
}

TEST(Policy, OnAndWithAllocatorReturnModifiedCopies) {
  struct null_allocator {
    void* allocate(std::size_t, cudaStream_t) { return nullptr; }
    void deallocate(void*, std::size_t, cudaStream_t) {}
  } allocator;
  const auto stream = reinterpret_cast<cudaStream_t>(0x1234);
  const auto policy = gpusort::radix.on(stream).with_allocator(allocator);
  static_assert(std::is_same_v<std::remove_cv_t<decltype(policy)>, gpusort::radix_policy<>>);
  EXPECT_EQ(policy.stream(), stream);
  EXPECT_FALSE(policy.allocator().is_default());
  EXPECT_EQ(gpusort::radix.stream(), nullptr);
  EXPECT_TRUE(gpusort::radix.allocator().is_default());
}

TEST(FrontDoor, EmptyAndSingleElementRangesNeedNoGpu) {
  std::uint32_t* none = nullptr;
  EXPECT_NO_THROW(gpusort::sort(gpusort::radix, none, none));
  EXPECT_NO_THROW(gpusort::stable_sort(gpusort::par, none, none, gpusort::greater<>{}));
  EXPECT_NO_THROW(gpusort::sort_by_key(gpusort::radix, none, none, static_cast<float*>(nullptr)));
  std::uint32_t one = 42;  // one element is sorted wherever it lives
  EXPECT_NO_THROW(gpusort::sort(gpusort::radix, &one, &one + 1));
  EXPECT_EQ(one, 42u);
}

TEST(FrontDoor, LastBeforeFirstIsAnError) {
  std::uint32_t* base = reinterpret_cast<std::uint32_t*>(0x1000);
  try {
    gpusort::sort(gpusort::radix, base + 4, base);
    FAIL() << "expected gpusort::error";
  } catch (const gpusort::error& e) {
    EXPECT_NE(std::string(e.what()).find("last precedes its first"), std::string::npos) << e.what();
  }
}

TEST(Errors, CarryTheCudaErrorAndWhatGpusortWasDoing) {
  try {
    gpusort::detail::check_cuda(cudaErrorMemoryAllocation, "allocating the digit table");
    FAIL() << "expected gpusort::error";
  } catch (const std::runtime_error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("allocating the digit table"), std::string::npos) << message;
    EXPECT_NE(message.find("cudaErrorMemoryAllocation"), std::string::npos) << message;
    EXPECT_EQ(dynamic_cast<const gpusort::error&>(e).code(), cudaErrorMemoryAllocation);
  }
}

}  // namespace
