// CUDA graphs in the tests: a call captured from its stream (global mode, the strictest: a
// call that synchronises or allocates outside the stream fails it), and new input copied in
// before a replay.
#pragma once

#include "device_vector.cuh"

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <exception>
#include <vector>

namespace gpusort::test {

// Captures what `call` enqueues on `stream` into an executable graph; null where capturing
// failed (and said why).
template <class Call>
cudaGraphExec_t capture(cudaStream_t stream, Call call) {
  cudaGraph_t graph = nullptr;
  EXPECT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal), cudaSuccess);
  try {
    call();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "the call threw while its stream was captured: " << e.what();
  }
  const cudaError_t ended = cudaStreamEndCapture(stream, &graph);
  EXPECT_EQ(ended, cudaSuccess) << cudaGetErrorString(ended) << " (a call that synchronises?)";
  if (ended != cudaSuccess || graph == nullptr) return nullptr;
  cudaGraphExec_t exec = nullptr;
  EXPECT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  cudaGraphDestroy(graph);
  return exec;
}

// The copy finishes before this returns: cudaMemcpy from pageable memory may return while
// its DMA is still under way, and a graph launched on a non-blocking stream does not wait
// for it (the replay then sorted a partly copied input when other work shared the GPU).
template <class T>
void copy_to(const device_array<T>& device, const std::vector<T>& host) {
  ASSERT_EQ(device.size(), host.size());
  GPUSORT_TEST_CUDA(cudaMemcpy(device.begin(), host.data(), host.size() * sizeof(T),
                               cudaMemcpyHostToDevice));
  GPUSORT_TEST_CUDA(cudaDeviceSynchronize());
}

}  // namespace gpusort::test
