// A rank's work runs on the rank's device whatever the calling thread had current, and the
// caller gets its own device back afterwards.
#pragma once

#include "../../detail/per_device.cuh"
#include "../../error.cuh"

#include <cuda_runtime_api.h>

namespace gpusort::distributed::detail {

// Makes `device` current for the scope and restores the caller's device after.
class scoped_device {
 public:
  explicit scoped_device(int device) : previous_(gpusort::detail::current_device()) {
    if (device != previous_)
      gpusort::detail::check_cuda(cudaSetDevice(device), "switching to the rank's device");
  }
  ~scoped_device() { cudaSetDevice(previous_); }
  scoped_device(const scoped_device&) = delete;
  scoped_device& operator=(const scoped_device&) = delete;

 private:
  int previous_;
};

}  // namespace gpusort::distributed::detail
