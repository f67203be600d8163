// The pinned-host sort's copies between the host array and the GPUs.
#pragma once

#include "../../error.cuh"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace gpusort::distributed::detail {

// Transfers go in pieces this large so that progress moves and a copy never pins a GPU's
// copy engine for seconds.
inline constexpr std::size_t transfer_chunk_bytes = std::size_t(256) << 20;

// Copies bytes [0, total) between host and device in chunks, counting them into `moved`.
inline void copy_in_chunks(void* to, const void* from, std::size_t total, cudaMemcpyKind kind,
                           cudaStream_t stream, std::atomic<std::uint64_t>& moved) {
  for (std::size_t at = 0; at < total; at += transfer_chunk_bytes) {
    const std::size_t bytes = std::min(transfer_chunk_bytes, total - at);
    gpusort::detail::check_cuda(cudaMemcpyAsync(static_cast<char*>(to) + at,
                                                static_cast<const char*>(from) + at, bytes, kind,
                                                stream),
                                "copying a chunk between host and device");
    gpusort::detail::check_cuda(cudaStreamSynchronize(stream), "waiting for a chunk");
    moved += bytes;
  }
}

}  // namespace gpusort::distributed::detail
