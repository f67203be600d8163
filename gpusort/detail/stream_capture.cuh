// Whether a stream is being captured into a CUDA graph: some calls are not allowed on such a
// stream (asking for its device, waiting for the device), and gpusort skips them there.
#pragma once

#include "../error.cuh"

#include <cuda_runtime_api.h>

namespace gpusort::detail {

inline bool stream_is_capturing(cudaStream_t stream) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  const cudaError_t asked = cudaStreamIsCapturing(stream, &status);
  if (asked == cudaErrorStreamCaptureImplicit) {
    cudaGetLastError();  // not sticky, and the capture goes on: leave no trace for the next call
    throw_cuda_error(asked, "sorting on the legacy default stream while another stream of the "
                            "device is captured into a graph (sort on the capturing stream: "
                            "gpusort::par.on(stream))");
  }
  check_cuda(asked, "asking whether the stream is captured");
  return status != cudaStreamCaptureStatusNone;
}

// For its lifetime, this thread's CUDA calls run in the relaxed capture mode: objects that
// gpusort makes once, on first use (its memory pool, the offsets report), may be made while
// the caller's stream is being captured in the global mode, which forbids such calls. They
// enqueue nothing on any stream.
class relaxed_capture_mode {
 public:
  relaxed_capture_mode() {
    check_cuda(cudaThreadExchangeStreamCaptureMode(&mode_), "entering relaxed capture mode");
  }
  ~relaxed_capture_mode() { cudaThreadExchangeStreamCaptureMode(&mode_); }
  relaxed_capture_mode(const relaxed_capture_mode&) = delete;
  relaxed_capture_mode& operator=(const relaxed_capture_mode&) = delete;

 private:
  cudaStreamCaptureMode mode_ = cudaStreamCaptureModeRelaxed;
};

}  // namespace gpusort::detail
