// The three collective steps the distributed sort needs, over NCCL or for one rank:
// gather a small block from every rank, sum small counters across ranks, and the
// all-to-all exchange of variable-sized pieces. All are enqueued on `stream`.
#pragma once

#include "../communicator.cuh"
#include "run.cuh"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace gpusort::distributed::detail {

using gpusort::detail::check_cuda;

// recv[r * bytes, (r + 1) * bytes) receives rank r's send[0, bytes).
inline void all_gather_bytes(const communicator& comm, const void* send, void* recv,
                             std::size_t bytes, cudaStream_t stream) {
#if GPUSORT_WITH_NCCL
  if (comm.nccl() != nullptr) {
    check_nccl(ncclAllGather(send, recv, bytes, ncclUint8, comm.nccl(), stream), comm.nccl(),
               "gathering from every rank (ncclAllGather)");
    return;
  }
#endif
  if (send != recv)
    check_cuda(cudaMemcpyAsync(recv, send, bytes, cudaMemcpyDeviceToDevice, stream),
               "gathering from the one rank");
}

// counters[0, count) becomes the sum over ranks, on every rank.
inline void all_reduce_sum(const communicator& comm, std::uint64_t* counters, std::size_t count,
                           cudaStream_t stream) {
#if GPUSORT_WITH_NCCL
  if (comm.nccl() != nullptr)
    check_nccl(ncclAllReduce(counters, counters, count, ncclUint64, ncclSum, comm.nccl(), stream),
               comm.nccl(), "summing counts across ranks (ncclAllReduce)");
#else
  (void)comm, (void)counters, (void)count, (void)stream;
#endif
}

// A stream that starts after the work enqueued so far on `parent`, and that `parent` waits
// for at join(): for work that can overlap the parent's next steps.
class side_stream {
 public:
  explicit side_stream(cudaStream_t parent) : parent_(parent) {
    check_cuda(cudaStreamCreateWithFlags(&side_, cudaStreamNonBlocking), "creating a side stream");
    check_cuda(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming), "creating an event");
    check_cuda(cudaEventRecord(event_, parent_), "forking a side stream");
    check_cuda(cudaStreamWaitEvent(side_, event_), "forking a side stream");
  }
  ~side_stream() {
    if (!joined_) join_noexcept();
    cudaEventDestroy(event_);
    cudaStreamDestroy(side_);  // released once its work is done
  }
  side_stream(const side_stream&) = delete;
  side_stream& operator=(const side_stream&) = delete;

  cudaStream_t get() const noexcept { return side_; }
  void join() {
    joined_ = true;
    check_cuda(cudaEventRecord(event_, side_), "joining a side stream");
    check_cuda(cudaStreamWaitEvent(parent_, event_), "joining a side stream");
  }

 private:
  void join_noexcept() noexcept {
    cudaEventRecord(event_, side_);
    cudaStreamWaitEvent(parent_, event_);
  }
  cudaStream_t parent_, side_ = nullptr;
  cudaEvent_t event_ = nullptr;
  bool joined_ = false;
};

// One array taking part in an exchange (the keys; the values alongside).
struct exchange_plane {
  const void* send;
  void* recv;
  std::size_t element_bytes;
};

// Copies this rank's own piece, send[from] to recv at element `to`, in every plane.
inline void copy_own_piece(const std::vector<exchange_plane>& planes, run from, std::size_t to,
                           cudaStream_t stream) {
  if (from.count == 0) return;
  for (const exchange_plane& plane : planes)
    check_cuda(cudaMemcpyAsync(static_cast<char*>(plane.recv) + to * plane.element_bytes,
                               static_cast<const char*>(plane.send) +
                                   from.begin * plane.element_bytes,
                               from.count * plane.element_bytes, cudaMemcpyDeviceToDevice,
                               stream),
               "keeping the rank's own piece");
}

// Who copies a rank's own piece in an exchange: the exchange (on a side stream, so that it
// overlaps the transfers), or the caller, who has its own use for it.
enum class own_piece { copied, left_to_caller };

// This rank's elements send[send_pieces[q]] go to rank q, and rank q's piece for this rank
// lands at recv[recv_pieces[q]] (runs in elements, one per rank). One NCCL group of
// point-to-point sends and receives.
inline void exchange(const communicator& comm, const std::vector<exchange_plane>& planes,
                     const std::vector<run>& send_pieces, const std::vector<run>& recv_pieces,
                     cudaStream_t stream, own_piece own = own_piece::copied) {
  const int self = comm.rank();
  std::optional<side_stream> own_copy;
  if (own == own_piece::copied) {
    own_copy.emplace(stream);
    copy_own_piece(planes, send_pieces[self], recv_pieces[self].begin, own_copy->get());
  }
#if GPUSORT_WITH_NCCL
  if (comm.size() > 1) {
    ncclComm_t nccl = comm.nccl();
    check_nccl(ncclGroupStart(), nccl, "starting the exchange (ncclGroupStart)");
    for (int peer = 0; peer < comm.size(); ++peer) {
      if (peer == self) continue;
      for (const exchange_plane& plane : planes) {
        const run send = send_pieces[peer], recv = recv_pieces[peer];
        if (send.count > 0)
          check_nccl(ncclSend(static_cast<const char*>(plane.send) +
                                  send.begin * plane.element_bytes,
                              send.count * plane.element_bytes, ncclUint8, peer, nccl, stream),
                     nccl, "sending a piece (ncclSend)");
        if (recv.count > 0)
          check_nccl(ncclRecv(static_cast<char*>(plane.recv) + recv.begin * plane.element_bytes,
                              recv.count * plane.element_bytes, ncclUint8, peer, nccl, stream),
                     nccl, "receiving a piece (ncclRecv)");
      }
    }
    check_nccl(ncclGroupEnd(), nccl, "running the exchange (ncclGroupEnd)");
  }
#endif
  if (own_copy) own_copy->join();
}

}  // namespace gpusort::distributed::detail
