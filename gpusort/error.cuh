// gpusort::error and the one helper every CUDA call goes through.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <stdexcept>
#include <string>

namespace gpusort {

// Thrown for every failure gpusort detects: a CUDA error (code() says which), or bad
// arguments (code() is cudaSuccess). what() says what gpusort was doing.
class error : public std::runtime_error {
 public:
  error(const std::string& message, cudaError_t code = cudaSuccess)
      : std::runtime_error(message), code_(code) {}

  cudaError_t code() const noexcept { return code_; }

 private:
  cudaError_t code_;
};

namespace detail {

// The errors after which the CUDA context is unusable until the process resets the device;
// they often come from earlier work (any kernel's fault shows at the next call).
inline bool is_sticky(cudaError_t status) {
  switch (status) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
      return true;
    default:
      return false;
  }
}

// The errors that mean this process has no GPU to sort on: no device, no driver, or a driver
// too old for this CUDA runtime. Whatever gpusort was doing, that is what the user must hear.
inline bool means_no_usable_device(cudaError_t status) {
  switch (status) {
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorStubLibrary:
    case cudaErrorSystemDriverMismatch:
    case cudaErrorCompatNotSupportedOnDevice:
    case cudaErrorDevicesUnavailable:
      return true;
    default:
      return false;
  }
}

[[noreturn]] inline void throw_cuda_error(cudaError_t status, const char* doing) {
  if (means_no_usable_device(status))
    throw error(std::string("gpusort: no usable CUDA device or driver: ") +
                    cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + "), while " +
                    doing,
                status);
  std::string message = std::string("gpusort: ") + doing + ": " + cudaGetErrorName(status) +
                        " (" + cudaGetErrorString(status) + ")";
  if (is_sticky(status))
    message += "; a kernel faulted (this call's or earlier work's): the CUDA context is "
               "unusable until cudaDeviceReset";
  throw error(message, status);
}

inline void check_cuda(cudaError_t status, const char* doing) {
  if (status != cudaSuccess) throw_cuda_error(status, doing);
}

// After a kernel launch: catches bad launch configurations at once; faults inside the
// kernel surface at the next synchronising call, as everywhere in CUDA.
inline void check_launch(const char* kernel_name) {
  check_cuda(cudaGetLastError(), kernel_name);
}

// Names what the sort needed and what the device had, so that a user can tell "too big for
// this GPU" from "something else holds the memory".
[[noreturn]] inline void throw_allocation_error(cudaError_t status, std::size_t bytes) {
  std::size_t free_bytes = 0, total_bytes = 0;
  std::string free_text = "free memory unknown";
  if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess)
    free_text = std::to_string(free_bytes) + " bytes free of " + std::to_string(total_bytes);
  else
    cudaGetLastError();
  throw_cuda_error(status, ("allocating temporary storage: " + std::to_string(bytes) +
                            " bytes needed, " + free_text + "; the input is untouched")
                               .c_str());
}

[[noreturn]] inline void throw_usage_error(const std::string& message) {
  throw error("gpusort: " + message);
}

}  // namespace detail
}  // namespace gpusort
