// An owning, typed block of device memory: cudaMalloc'd once, freed on destruction.
#pragma once

#include "cuda_check.cuh"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>
#include <vector>

namespace gpusort_bench {

template <class T>
class device_buffer {
 public:
  device_buffer() = default;
  explicit device_buffer(std::size_t count) : count_(count) {
    if (count != 0)
      check_cuda(cudaMalloc(reinterpret_cast<void**>(&data_), count * sizeof(T)),
                 "allocating a device buffer");
  }
  ~device_buffer() { cudaFree(data_); }

  device_buffer(device_buffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  device_buffer& operator=(device_buffer&& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(count_, other.count_);
    return *this;
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;

  T* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return count_; }
  std::size_t bytes() const noexcept { return count_ * sizeof(T); }

  // Enqueues a device-to-device copy of `source` (same size) on `stream`.
  void copy_from(const device_buffer& source, cudaStream_t stream) {
    check_cuda(cudaMemcpyAsync(data_, source.data_, bytes(), cudaMemcpyDeviceToDevice, stream),
               "copying a device buffer");
  }

  // Waits for `stream`, then returns the contents.
  std::vector<T> to_host(cudaStream_t stream) const {
    std::vector<T> host(count_);
    check_cuda(cudaMemcpyAsync(host.data(), data_, bytes(), cudaMemcpyDeviceToHost, stream),
               "copying a device buffer to the host");
    check_cuda(cudaStreamSynchronize(stream), "waiting for a device-to-host copy");
    return host;
  }

 private:
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace gpusort_bench
