// Copies between host vectors and device memory for the tests, every call checked.
#pragma once

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <vector>

namespace gpusort::test {

#define GPUSORT_TEST_CUDA(call) ASSERT_EQ((call), cudaSuccess) << #call << ": " << cudaGetErrorString(cudaGetLastError())

// A cudaMalloc'd array (never cudaMallocAsync, so the tests also cover ordinary memory). Its
// upload has landed when the constructor returns: cudaMemcpy from pageable memory may return
// while its DMA is under way, and work on a non-blocking stream does not wait for it.
template <class T>
class device_array {
 public:
  explicit device_array(const std::vector<T>& host) : size_(host.size()) {
    if (size_ == 0) return;
    EXPECT_EQ(cudaMalloc(&data_, size_ * sizeof(T)), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(data_, host.data(), size_ * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  }
  // n elements, not initialised (the huge tests fill theirs on the device); begin() is null
  // where cudaMalloc failed (and the test has failed).
  explicit device_array(std::size_t n) : size_(n) {
    if (size_ != 0) EXPECT_EQ(cudaMalloc(&data_, size_ * sizeof(T)), cudaSuccess);
  }
  ~device_array() { cudaFree(data_); }
  device_array(const device_array&) = delete;
  device_array& operator=(const device_array&) = delete;

  T* begin() const { return data_; }
  T* end() const { return data_ + size_; }
  std::size_t size() const { return size_; }

  std::vector<T> to_host() const {
    std::vector<T> host(size_);
    if (size_ != 0) {
      EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      EXPECT_EQ(cudaMemcpy(host.data(), data_, size_ * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
    }
    return host;
  }

 private:
  std::size_t size_;
  T* data_ = nullptr;
};

}  // namespace gpusort::test
