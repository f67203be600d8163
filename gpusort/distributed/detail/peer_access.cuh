// Peer access between the GPUs of one process, so that a copy from one GPU's memory to
// another's runs on the copy engines over NVLink or PCIe instead of through host memory.
#pragma once

#include "../../error.cuh"
#include "scoped_device.cuh"

#include <cuda_runtime_api.h>

#include <vector>

namespace gpusort::distributed::detail {

// Turns on peer access from every device in `devices` to every other one (access that is on
// already stays on). Returns false, and leaves the rest as it was, where some pair cannot
// reach each other directly or the driver refuses (e.g. too many peers): copies between
// them would then go through host memory.
inline bool enable_peer_access(const std::vector<int>& devices) {
  for (int from : devices)
    for (int to : devices) {
      if (from == to) continue;
      int can = 0;
      gpusort::detail::check_cuda(cudaDeviceCanAccessPeer(&can, from, to),
                                  "asking whether two GPUs can reach each other");
      if (!can) return false;
    }
  for (int from : devices) {
    scoped_device on(from);
    for (int to : devices) {
      if (from == to) continue;
      const cudaError_t status = cudaDeviceEnablePeerAccess(to, 0);
      if (status == cudaSuccess) continue;
      (void)cudaGetLastError();  // not sticky: clears the error the call set
      if (status == cudaErrorPeerAccessAlreadyEnabled) continue;
      if (status == cudaErrorTooManyPeers || status == cudaErrorPeerAccessUnsupported)
        return false;
      gpusort::detail::check_cuda(status, "turning on peer access between the GPUs");
    }
  }
  return true;
}

}  // namespace gpusort::distributed::detail
