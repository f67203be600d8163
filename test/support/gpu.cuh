// GPU tests skip themselves (reported as skipped, never passed) where no GPU is present.
#pragma once

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <string>

namespace gpusort::test {

inline bool gpu_present(std::string* why = nullptr) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    cudaGetLastError();
    if (why) *why = cudaGetErrorString(status);
    return false;
  }
  if (why && count == 0) *why = "no CUDA device";
  return count > 0;
}

// An attribute of the current device (EXPECTs the queries to succeed).
inline int device_attribute(cudaDeviceAttr attribute) {
  int device = 0;
  int value = 0;
  EXPECT_EQ(cudaGetDevice(&device), cudaSuccess);
  EXPECT_EQ(cudaDeviceGetAttribute(&value, attribute, device), cudaSuccess);
  return value;
}

class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!gpu_present(&why)) GTEST_SKIP() << "no CUDA GPU here (" << why << ")";
  }
};

}  // namespace gpusort::test
