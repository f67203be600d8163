// gpusort::distributed::communicator: who takes part in a distributed sort, and how they talk.
//
// A thin handle around an NCCL communicator (one rank = one GPU), or a one-rank "solo"
// communicator that needs no NCCL at all. NCCL support is compiled in where the build
// defines GPUSORT_WITH_NCCL (CMake: link gpusort::distributed, which exists where NCCL was
// found); without it only solo communicators exist and the sort still runs on one GPU.
#pragma once

#include "../detail/device_range.cuh"
#include "../error.cuh"
#include "detail/peer_access.cuh"

#include <cuda_runtime_api.h>

#if GPUSORT_WITH_NCCL
#include <nccl.h>
#endif

#include <chrono>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

namespace gpusort::distributed {

#if GPUSORT_WITH_NCCL
namespace detail {

inline void check_nccl(ncclResult_t result, ncclComm_t comm, const char* doing) {
  if (result == ncclSuccess || result == ncclInProgress) return;
  std::string message = std::string("gpusort: ") + doing + ": NCCL error: " +
                        ncclGetErrorString(result);
  const char* last = comm != nullptr ? ncclGetLastError(comm) : nullptr;
  if (last != nullptr && *last != '\0') message += " (" + std::string(last) + ")";
  throw error(message);
}

}  // namespace detail
#endif

class communicator {
 public:
  // One rank on `device` (the current device when negative). Needs no NCCL.
  static communicator solo(int device = -1) {
    communicator c;
    c.device_ = device >= 0 ? device : gpusort::detail::current_device();
    return c;
  }

#if GPUSORT_WITH_NCCL
  // Wraps a communicator the caller created (ncclCommInitRank, ...) and destroys after
  // the last sort that uses it; works wherever NCCL does, across nodes included.
  explicit communicator(ncclComm_t comm) : comm_(comm) {
    detail::check_nccl(ncclCommUserRank(comm, &rank_), comm, "asking NCCL for the rank");
    detail::check_nccl(ncclCommCount(comm, &size_), comm, "asking NCCL for the rank count");
    detail::check_nccl(ncclCommCuDevice(comm, &device_), comm, "asking NCCL for the device");
  }

  // One communicator per device in `devices` (rank i drives devices[i]), for one process
  // that drives them all, one host thread per rank. gpusort owns these: the NCCL
  // communicators are destroyed with the last copy of each. Where every pair of the devices
  // can reach each other, this turns peer access on between them (cudaDeviceEnablePeerAccess),
  // so that the sort's exchange may copy on the GPUs' copy engines (in_one_process()).
  static std::vector<communicator> for_devices(const std::vector<int>& devices) {
    if (devices.empty()) gpusort::detail::throw_usage_error("for_devices: no devices named");
    std::vector<ncclComm_t> comms(devices.size());
    detail::check_nccl(ncclCommInitAll(comms.data(), int(devices.size()), devices.data()),
                       nullptr, "creating NCCL communicators for the local devices");
    std::vector<communicator> result;
    for (ncclComm_t comm : comms) {
      communicator c(comm);
      c.owner_ = std::shared_ptr<ncclComm>(comm, [](ncclComm_t owned) { ncclCommDestroy(owned); });
      result.push_back(std::move(c));
    }
    const bool peers = detail::enable_peer_access(devices);
    for (communicator& c : result) c.in_one_process_ = peers;
    return result;
  }

  // As for_devices, with every visible device.
  static std::vector<communicator> for_local_devices() {
    int count = 0;
    gpusort::detail::check_cuda(cudaGetDeviceCount(&count), "counting the devices");
    std::vector<int> devices(count);
    std::iota(devices.begin(), devices.end(), 0);
    return for_devices(devices);
  }

  // The NCCL communicator; null for a solo one.
  ncclComm_t nccl() const noexcept { return comm_; }
#endif

  // How long this rank waits for the others at one step of a distributed sort (ten minutes
  // unless set). A rank that waits longer, because a peer failed where the ranks could not
  // agree on it or never called, throws; where the NCCL library has ncclCommRevoke it first
  // revokes the communicator (the collective it waits in stops; the communicator can then
  // only be destroyed), elsewhere the error says to abort it.
  std::chrono::milliseconds timeout() const noexcept { return timeout_; }
  communicator& set_timeout(std::chrono::milliseconds timeout) {
    if (timeout.count() <= 0)
      gpusort::detail::throw_usage_error("a communicator's timeout must be positive");
    timeout_ = timeout;
    return *this;
  }

  int rank() const noexcept { return rank_; }
  int size() const noexcept { return size_; }
  // The CUDA device this rank's data lives on; the sort runs there.
  int device() const noexcept { return device_; }
  // Whether every rank is a GPU of this process with peer access to every other (made by
  // for_devices): the exchange may then read each piece from the peer's memory on the copy
  // engines instead of running NCCL's kernels (detail/peer_copy_exchange.cuh says when).
  bool in_one_process() const noexcept { return in_one_process_; }

 private:
  communicator() = default;

  int rank_ = 0;
  int size_ = 1;
  int device_ = 0;
  std::chrono::milliseconds timeout_ = std::chrono::minutes(10);
  bool in_one_process_ = false;
#if GPUSORT_WITH_NCCL
  ncclComm_t comm_ = nullptr;
  std::shared_ptr<ncclComm> owner_;
#endif
};

}  // namespace gpusort::distributed
