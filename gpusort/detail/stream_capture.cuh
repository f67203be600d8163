// Whether a stream is being captured into a CUDA graph: some calls are not allowed on such a
// stream (asking for its device, waiting for the device), and gpusort skips them there.
#pragma once

#include "../error.cuh"

#include <cuda_runtime_api.h>

namespace gpusort::detail {

inline bool stream_is_capturing(cudaStream_t stream) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  check_cuda(cudaStreamIsCapturing(stream, &status), "asking whether the stream is captured");
  return status != cudaStreamCaptureStatusNone;
}

}  // namespace gpusort::detail
