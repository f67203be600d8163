// The exchange between the GPUs of one process (communicator::in_one_process): every rank
// reads the pieces meant for it straight from its peers' arrays (cudaMemcpyPeerAsync, one
// peer after another), so that the copy engines move the data over NVLink while the SMs stay
// free, instead of NCCL's kernels. One small collective then tells every rank that all reads
// are done, before any rank writes its array again.
#pragma once

#include "../../error.cuh"
#include "../communicator.cuh"
#include "collectives.cuh"
#include "host_round_trip.cuh"
#include "run.cuh"

#include <cuda.h>  // the driver's pointer attributes (the runtime has none for this)
#include <cuda_runtime_api.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gpusort::distributed::detail {

// The most ranks that exchange by peer copies; larger communicators go through NCCL (0:
// always). On 4 H200s joined by NVSwitch the copy engines, reading one peer at a time, moved
// 337-345 GB/s out of each GPU with 2 and with 4 ranks, against NCCL's 188-208
// (bench/results/2026-11-26-h200x4-peer-copy-rounds.md); more than 4 GPUs have not been
// measured. Settable for the benchmark's rows and the tests.
inline std::atomic<int>& peer_copies_max_ranks() {
  static std::atomic<int> ranks{4};
  return ranks;
}

// How many exchanges by peer copies have run, on any rank (for the tests).
inline std::atomic<std::uint64_t>& peer_exchanges() {
  static std::atomic<std::uint64_t> exchanges{0};
  return exchanges;
}

inline bool exchanges_by_peer_copies(const communicator& comm) {
  return comm.size() > 1 && comm.size() <= peer_copies_max_ranks() && comm.in_one_process();
}

// cuPointerGetAttribute, looked up through the runtime so that nothing links libcuda (null
// where the driver does not have it).
using get_pointer_attribute = CUresult (*)(void*, CUpointer_attribute, CUdeviceptr);
inline get_pointer_attribute pointer_attribute_getter() {
  static const get_pointer_attribute get = [] {
    void* function = nullptr;
    cudaDriverEntryPointQueryResult found{};
#if CUDART_VERSION >= 12050
    const cudaError_t status = cudaGetDriverEntryPointByVersion(
        "cuPointerGetAttribute", &function, 12000, cudaEnableDefault, &found);
#else  // CUDA 12.0-12.4
    const cudaError_t status =
        cudaGetDriverEntryPoint("cuPointerGetAttribute", &function, cudaEnableDefault, &found);
#endif
    if (status != cudaSuccess || found != cudaDriverEntryPointSuccess) {
      (void)cudaGetLastError();
      return get_pointer_attribute(nullptr);
    }
    return reinterpret_cast<get_pointer_attribute>(function);
  }();
  return get;
}

// Every device: the mask of a plane that is not there.
inline constexpr std::uint64_t all_devices = ~std::uint64_t(0);

// The devices (bit d for device d, below 64) that can read `array`, device memory of
// `owner`, directly once peer access is on. Memory from cudaMalloc: every device, since
// peer access maps it for every peer. Memory from a stream-ordered pool (cudaMallocAsync,
// cudaMallocFromPoolAsync): the owner and the devices the pool grants access
// (cudaMemPoolSetAccess); on 4 H200s one exchange by peer copies of pool memory that the
// peer had no access to never finished. Anything else (virtual memory management, host
// memory): none. Null (no such plane): every device.
inline std::uint64_t devices_reading(const void* array, int owner) {
  if (array == nullptr) return all_devices;
  const get_pointer_attribute get = pointer_attribute_getter();
  if (get == nullptr) return 0;
  const auto address = reinterpret_cast<CUdeviceptr>(array);
  int from_cuda_malloc = 0;
  if (get(&from_cuda_malloc, CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE, address) !=
      CUDA_SUCCESS)
    return 0;
  if (from_cuda_malloc != 0) return all_devices;
  CUmemoryPool pool = nullptr;
  if (get(&pool, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, address) != CUDA_SUCCESS ||
      pool == nullptr)
    return 0;
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  std::uint64_t readers = owner >= 0 && owner < 64 ? std::uint64_t(1) << owner : 0;
  for (int d = 0; d < devices && d < 64; ++d) {
    cudaMemLocation location{};
    location.type = cudaMemLocationTypeDevice;
    location.id = d;
    cudaMemAccessFlags flags = cudaMemAccessFlagsProtNone;
    if (cudaMemPoolGetAccess(&flags, reinterpret_cast<cudaMemPool_t>(pool), &location) !=
        cudaSuccess) {
      (void)cudaGetLastError();
      continue;
    }
    if (flags != cudaMemAccessFlagsProtNone) readers |= std::uint64_t(1) << d;
  }
  return readers;
}

// A rank's row in the table of arrays: its device, the devices that can read all its arrays
// (devices_reading), then the address of each plane (the keys, and the values where there
// are any).
inline constexpr int peer_row_words = 4;

// Where every rank's arrays are, as gathered before the exchange.
class peer_arrays {
 public:
  explicit peer_arrays(std::vector<std::uint64_t> rows) : rows_(std::move(rows)) {}
  int device(int q) const { return int(rows_[std::size_t(q) * peer_row_words]); }
  const char* plane(int q, std::size_t p) const {
    return reinterpret_cast<const char*>(rows_[std::size_t(q) * peer_row_words + 2 + p]);
  }
  std::uint64_t readers(int q) const { return rows_[std::size_t(q) * peer_row_words + 1]; }
  int ranks() const { return int(rows_.size() / peer_row_words); }
  // Whether every rank's arrays can be read by every other rank's device. Every rank computes
  // the same from the same table, so all agree on the way.
  bool readable_everywhere() const {
    for (int q = 0; q < ranks(); ++q)
      for (int r = 0; r < ranks(); ++r) {
        const int reader = device(r);
        if (r != q && (reader < 0 || reader >= 64 || ((readers(q) >> reader) & 1) == 0))
          return false;
      }
    return true;
  }

 private:
  std::vector<std::uint64_t> rows_;
};

// Every rank learns every rank's device and the arrays it sends from (`sends`, one per
// plane). `table` is device memory for ranks + 1 rows (this rank's own in the last).
inline peer_arrays gather_peer_arrays(const communicator& comm, host_round_trip& trip,
                                      const std::vector<const void*>& sends,
                                      std::uint64_t* table, cudaStream_t stream) {
  const int ranks = comm.size();
  std::vector<std::uint64_t> own(peer_row_words, 0);
  own[0] = std::uint64_t(comm.device());
  own[1] = all_devices;
  for (std::size_t p = 0; p < sends.size(); ++p) {
    own[2 + p] = reinterpret_cast<std::uintptr_t>(sends[p]);
    own[1] &= devices_reading(sends[p], comm.device());
  }
  std::uint64_t* own_row = table + std::size_t(ranks) * peer_row_words;
  trip.to_device(own_row, own);
  all_gather_bytes(comm, own_row, table, peer_row_words * sizeof(std::uint64_t), stream);
  std::vector<std::uint64_t> rows(std::size_t(ranks) * peer_row_words);
  trip.to_host(rows, table);
  trip.wait("to gather where the arrays are");
  return peer_arrays(std::move(rows));
}

// The exchange by reads: rank q's piece for this rank, source_begin[q] elements into q's
// plane, lands at recv[recv_pieces[q]] in every plane; the own piece, send[own], is copied
// alongside. The reads run in rounds, one peer at a time: in round k this rank reads from
// rank self + k, so that every GPU serves one reader at a time (all at once, on 4 H200s, each
// GPU served three readers and moved 182 GB/s, against 338 with one). Every rank's sorted data
// must be complete before its peers read it: the collectives before the exchange (the cuts'
// gathering) ensure that. `done` is one device word for the closing collective.
inline void peer_exchange(const communicator& comm, const std::vector<exchange_plane>& planes,
                          const peer_arrays& peers, run own,
                          const std::vector<std::uint64_t>& source_begin,
                          const std::vector<run>& recv_pieces, std::uint64_t* done,
                          cudaStream_t stream) {
  const int self = comm.rank(), ranks = comm.size();
  side_stream own_copy(stream), reads(stream);
  copy_own_piece(planes, own, recv_pieces[self].begin, own_copy.get());
  for (int round = 1; round < ranks; ++round) {
    const int q = (self + round) % ranks;
    for (std::size_t p = 0; p < planes.size() && recv_pieces[q].count > 0; ++p) {
      const std::size_t bytes = planes[p].element_bytes;
      check_cuda(cudaMemcpyPeerAsync(static_cast<char*>(planes[p].recv) +
                                         recv_pieces[q].begin * bytes,
                                     comm.device(), peers.plane(q, p) + source_begin[q] * bytes,
                                     peers.device(q), recv_pieces[q].count * bytes,
                                     reads.get()),
                 "reading a piece from a peer GPU (cudaMemcpyPeerAsync)");
    }
  }
  own_copy.join();
  reads.join();
  // No rank's stream passes this before every rank's reads are done, so no rank overwrites
  // (merges into) its array while a peer still reads it.
  all_reduce_sum(comm, done, 1, stream);
  ++peer_exchanges();
}

}  // namespace gpusort::distributed::detail
