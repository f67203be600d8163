// A sticky CUDA error from earlier user code (a kernel that faulted) is reported by the next
// sort, with its code, not masked and not blamed on the sort. Its own executable: the fault
// leaves the process's CUDA context unusable.
#include "../support/gpu.cuh"

#include <gpusort/sort.cuh>

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

namespace gpusort::test {
namespace {

__global__ void write_through(int* pointer) { *pointer = 1; }

class StickyError : public GpuTest {};

TEST_F(StickyError, AFaultInEarlierUserWorkIsReported) {
  std::uint32_t* keys = nullptr;
  ASSERT_EQ(cudaMalloc(&keys, 1000 * sizeof(std::uint32_t)), cudaSuccess);
  write_through<<<1, 1>>>(nullptr);
  const cudaError_t fault = cudaDeviceSynchronize();  // the user ignores this
  ASSERT_TRUE(gpusort::detail::is_sticky(fault)) << cudaGetErrorName(fault);
  try {
    gpusort::sort(gpusort::par, keys, keys + 1000);
    FAIL() << "expected a gpusort::error";
  } catch (const gpusort::error& e) {
    EXPECT_EQ(e.code(), fault) << e.what();
    EXPECT_NE(std::string(e.what()).find("pending before the sort call"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("cudaDeviceReset"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gpusort::test
