// Small arrays of counts between host and device: the distributed sort decides on the host
// (how much to send where, whether any rank failed) from what the ranks' GPUs gathered.
// Copies to the device are enqueued and not waited for; copies to the host are collected
// until wait(), the round trip's one wait. That wait gives up after the communicator's
// timeout: a rank whose peers never reach the collective (one failed between two agreements,
// or never called) revokes its NCCL communicator, which stops the collective, and throws,
// instead of waiting forever.
#pragma once

#include "../../error.cuh"
#include "../communicator.cuh"
#include "nccl_revoke.cuh"
#include "pinned_staging.cuh"

#include <cuda_runtime_api.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace gpusort::distributed::detail {

class host_round_trip {
 public:
  host_round_trip(const communicator& comm, cudaStream_t stream)
      : comm_(comm), stream_(stream), staging_(pinned_staging::of_this_thread()) {}

  // Enqueues the copy of `host` to `device`; `host` may change or go at once.
  void to_device(std::uint64_t* device, const std::vector<std::uint64_t>& host) {
    std::uint64_t* staged = staging_.take(host.size());
    std::memcpy(staged, host.data(), host.size() * sizeof(std::uint64_t));
    gpusort::detail::check_cuda(cudaMemcpyAsync(device, staged,
                                                host.size() * sizeof(std::uint64_t),
                                                cudaMemcpyHostToDevice, stream_),
                                "copying counts to the device");
  }

  // Enqueues the copy of device[0, host.size()) to `host`, which holds it after wait().
  void to_host(std::vector<std::uint64_t>& host, const std::uint64_t* device) {
    std::uint64_t* staged = staging_.take(host.size());
    gpusort::detail::check_cuda(cudaMemcpyAsync(staged, device,
                                                host.size() * sizeof(std::uint64_t),
                                                cudaMemcpyDeviceToHost, stream_),
                                "copying counts to the host");
    arriving_.push_back({&host, staged});
  }

  // Waits for the stream (for what was enqueued on it, collectives included), then fills the
  // vectors to_host() named. `step` names what the ranks were doing, for the error.
  void wait(const char* step) {
    wait_for_stream(step);
    for (const arrival& a : arriving_)
      std::memcpy(a.host->data(), a.staged, a.host->size() * sizeof(std::uint64_t));
    arriving_.clear();
    staging_.reset();
  }

 private:
  struct arrival {
    std::vector<std::uint64_t>* host;
    const std::uint64_t* staged;
  };

  void wait_for_stream(const char* step) const {
#if GPUSORT_WITH_NCCL
    if (comm_.nccl() != nullptr) {
      wait_for_ranks(step);
      return;
    }
#endif
    (void)step;
    gpusort::detail::check_cuda(cudaStreamSynchronize(stream_), "waiting for counts");
  }

#if GPUSORT_WITH_NCCL
  // Polls the stream until it is done, an NCCL error arrives, or the timeout passes.
  void wait_for_ranks(const char* step) const {
    using clock = std::chrono::steady_clock;
    const clock::time_point deadline = clock::now() + comm_.timeout();
    for (long polls = 0;; ++polls) {
      const cudaError_t state = cudaStreamQuery(stream_);
      if (state == cudaSuccess) return;
      if (state != cudaErrorNotReady) gpusort::detail::check_cuda(state, "waiting for counts");
      ncclResult_t async = ncclSuccess;
      check_nccl(ncclCommGetAsyncError(comm_.nccl(), &async), comm_.nccl(),
                 "asking NCCL for errors (ncclCommGetAsyncError)");
      check_nccl(async, comm_.nccl(), step);
      if (clock::now() > deadline) give_up(step);
      // Spin for the usual round trip of tens of microseconds, then let the core go.
      if (polls < 20000)
        std::this_thread::yield();
      else
        std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
  }

  [[noreturn]] void give_up(const char* step) const {
    std::string message = "gpusort: the distributed sort waited " +
                          std::to_string(comm_.timeout().count()) + " ms on rank " +
                          std::to_string(comm_.rank()) + " for the other ranks " + step +
                          " (communicator::set_timeout); ";
    if (const nccl_revoke_function revoke = nccl_revoke()) {
      // Stops the collective in flight; the communicator can then only be destroyed.
      revoke(comm_.nccl(), 0);
      // Until the stopped collective has ended (bounded: nothing more can be done if not),
      // so that the communicator may be destroyed once this throws.
      const std::chrono::steady_clock::time_point until =
          std::chrono::steady_clock::now() + std::chrono::seconds(10);
      ncclResult_t state = ncclInProgress;
      while (std::chrono::steady_clock::now() < until &&
             ncclCommGetAsyncError(comm_.nccl(), &state) == ncclSuccess &&
             state == ncclInProgress)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      message += "its NCCL communicator is revoked (destroy it and make a new one)";
    } else {
      message += "the collective it waits in is still in flight on the policy's stream: "
                 "abort the NCCL communicator (ncclCommAbort; this NCCL has no ncclCommRevoke)";
    }
    throw gpusort::error(message + "; this rank's data is a permutation of its input");
  }
#endif

  const communicator& comm_;
  cudaStream_t stream_;
  pinned_staging& staging_;
  std::vector<arrival> arriving_;
};

}  // namespace gpusort::distributed::detail
