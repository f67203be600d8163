// The three collective steps the distributed sort needs, over NCCL or for one rank:
// gather a small block from every rank, sum small counters across ranks, and the
// all-to-all exchange of variable-sized pieces. All are enqueued on `stream`.
#pragma once

#include "../communicator.cuh"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
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

// One array taking part in an exchange (the keys; the values alongside).
struct exchange_plane {
  const void* send;
  void* recv;
  std::size_t element_bytes;
};

// Rank r's elements send[send_offsets[q], send_offsets[q + 1]) go to rank q, where they
// land at recv[recv_offsets[r], recv_offsets[r + 1]) (offsets in elements, one entry per
// rank and one more). One NCCL group of point-to-point sends and receives; the rank's own
// piece is a device copy.
inline void exchange(const communicator& comm, const std::vector<exchange_plane>& planes,
                     const std::vector<std::size_t>& send_offsets,
                     const std::vector<std::size_t>& recv_offsets, cudaStream_t stream) {
  const int self = comm.rank();
  for (const exchange_plane& plane : planes) {
    const std::size_t count = send_offsets[self + 1] - send_offsets[self];
    if (count == 0) continue;
    check_cuda(cudaMemcpyAsync(static_cast<char*>(plane.recv) + recv_offsets[self] * plane.element_bytes,
                               static_cast<const char*>(plane.send) +
                                   send_offsets[self] * plane.element_bytes,
                               count * plane.element_bytes, cudaMemcpyDeviceToDevice, stream),
               "keeping the rank's own piece");
  }
  if (comm.size() == 1) return;
#if GPUSORT_WITH_NCCL
  ncclComm_t nccl = comm.nccl();
  check_nccl(ncclGroupStart(), nccl, "starting the exchange (ncclGroupStart)");
  for (int peer = 0; peer < comm.size(); ++peer) {
    if (peer == self) continue;
    for (const exchange_plane& plane : planes) {
      const std::size_t send_count = send_offsets[peer + 1] - send_offsets[peer];
      const std::size_t recv_count = recv_offsets[peer + 1] - recv_offsets[peer];
      if (send_count > 0)
        check_nccl(ncclSend(static_cast<const char*>(plane.send) +
                                send_offsets[peer] * plane.element_bytes,
                            send_count * plane.element_bytes, ncclUint8, peer, nccl, stream),
                   nccl, "sending a piece (ncclSend)");
      if (recv_count > 0)
        check_nccl(ncclRecv(static_cast<char*>(plane.recv) + recv_offsets[peer] * plane.element_bytes,
                            recv_count * plane.element_bytes, ncclUint8, peer, nccl, stream),
                   nccl, "receiving a piece (ncclRecv)");
    }
  }
  check_nccl(ncclGroupEnd(), nccl, "running the exchange (ncclGroupEnd)");
#endif
}

}  // namespace gpusort::distributed::detail
