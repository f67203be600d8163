// The device side of a case: a cudaMalloc'd copy of a host vector, every CUDA call checked,
// and the lock that gives one case at a time the device. The fuzzer runs outside gtest, so
// a failing call throws harness_error (the case reports it as its failure) instead of
// test/support/device_vector.cuh's EXPECTs.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpusort::fuzz {

// A failure of the fuzzer's own CUDA calls around the sort (not of gpusort).
struct harness_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

inline void check_harness_cuda(cudaError_t status, const char* doing) {
  if (status != cudaSuccess)
    throw harness_error(std::string("CUDA error ") + doing + ": " + cudaGetErrorName(status) +
                        " (" + cudaGetErrorString(status) + ")");
}

// The device sorts one case at a time, however many host threads make and check cases
// (gpusort_fuzz --jobs): every case sees the GPU as `gpusort_fuzz --case` alone shows it.
inline std::mutex& device_mutex() {
  static std::mutex device;
  return device;
}

// After a failing case: whether the CUDA context still works. A fault inside a kernel
// leaves a sticky error, and every later case would fail for it.
inline bool device_still_usable() {
  const std::lock_guard<std::mutex> lock(device_mutex());
  cudaGetLastError();  // clears an error that is not sticky
  return cudaDeviceSynchronize() == cudaSuccess;
}

template <class T>
class device_buffer {
 public:
  explicit device_buffer(const std::vector<T>& host) : size_(host.size()) {
    // Never cudaMallocAsync: the sorts' own temporary memory comes from there.
    check_harness_cuda(cudaMalloc(&data_, (size_ == 0 ? 1 : size_) * sizeof(T)),
                       "allocating a device buffer");
    const cudaError_t copied =
        cudaMemcpy(data_, host.data(), size_ * sizeof(T), cudaMemcpyHostToDevice);
    // Landed before the sort starts: a pageable upload may return while its DMA is under
    // way, and a sort on a non-blocking stream does not wait for it.
    const cudaError_t landed = copied == cudaSuccess ? cudaDeviceSynchronize() : copied;
    if (landed != cudaSuccess) cudaFree(data_);  // no destructor runs after a throw here
    check_harness_cuda(landed, "uploading a device buffer");
  }
  ~device_buffer() { cudaFree(data_); }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;

  T* data() const { return data_; }

  // The caller synchronises first (and checks that), so a fault inside the sort is
  // reported as the sort's, not as this copy's.
  std::vector<T> to_host() const {
    std::vector<T> host(size_);
    check_harness_cuda(cudaMemcpy(host.data(), data_, size_ * sizeof(T), cudaMemcpyDeviceToHost),
                       "downloading a device buffer");
    return host;
  }

 private:
  std::size_t size_;
  T* data_ = nullptr;
};

}  // namespace gpusort::fuzz
