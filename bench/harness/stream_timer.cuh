// A dedicated non-blocking stream, and CUDA-event timing of the work enqueued on it.
#pragma once

#include "cuda_check.cuh"

#include <cuda_runtime_api.h>

namespace gpusort_bench {

// Non-blocking: it never waits for, or is waited on by, the legacy default stream, so
// nothing else in the process is serialised into the measurement.
class cuda_stream {
 public:
  cuda_stream() {
    check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "creating a stream");
  }
  ~cuda_stream() { cudaStreamDestroy(stream_); }
  cuda_stream(const cuda_stream&) = delete;
  cuda_stream& operator=(const cuda_stream&) = delete;

  cudaStream_t get() const noexcept { return stream_; }
  void synchronize() const { check_cuda(cudaStreamSynchronize(stream_), "waiting for the stream"); }

 private:
  cudaStream_t stream_ = nullptr;
};

// Times the GPU work enqueued on a stream between start() and stop(). Work enqueued before
// start() (the fresh copy of the input) is not counted: the start event only fires once the
// stream has finished it.
class event_timer {
 public:
  event_timer() {
    check_cuda(cudaEventCreate(&start_), "creating the start event");
    check_cuda(cudaEventCreate(&stop_), "creating the stop event");
  }
  ~event_timer() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  event_timer(const event_timer&) = delete;
  event_timer& operator=(const event_timer&) = delete;

  void start(cudaStream_t stream) { check_cuda(cudaEventRecord(start_, stream), "recording the start event"); }

  // Waits for the stop event; returns the milliseconds between the two events.
  float stop_ms(cudaStream_t stream) {
    check_cuda(cudaEventRecord(stop_, stream), "recording the stop event");
    check_cuda(cudaEventSynchronize(stop_), "waiting for the stop event");
    float ms = 0.f;
    check_cuda(cudaEventElapsedTime(&ms, start_, stop_), "reading the event timer");
    return ms;
  }

 private:
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

}  // namespace gpusort_bench
