// Small arrays of counts between host and device, waited for: the distributed sort decides
// on the host (how much to send where, whether any rank failed) from what the ranks' GPUs
// gathered.
#pragma once

#include "../../error.cuh"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

namespace gpusort::distributed::detail {

inline void copy_to_host(std::vector<std::uint64_t>& host, const std::uint64_t* device,
                         cudaStream_t stream) {
  gpusort::detail::check_cuda(cudaMemcpyAsync(host.data(), device,
                                              host.size() * sizeof(std::uint64_t),
                                              cudaMemcpyDeviceToHost, stream),
                              "copying counts to the host");
  gpusort::detail::check_cuda(cudaStreamSynchronize(stream), "waiting for counts");
}

inline void copy_to_device(std::uint64_t* device, const std::vector<std::uint64_t>& host,
                           cudaStream_t stream) {
  gpusort::detail::check_cuda(cudaMemcpyAsync(device, host.data(),
                                              host.size() * sizeof(std::uint64_t),
                                              cudaMemcpyHostToDevice, stream),
                              "copying counts to the device");
  // The host vector may go away when we return: wait for the copy to read it.
  gpusort::detail::check_cuda(cudaStreamSynchronize(stream), "waiting for counts");
}

}  // namespace gpusort::distributed::detail
