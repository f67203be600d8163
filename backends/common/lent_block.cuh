// A part of a sort's one temporary allocation, lent, whole, to each sort it calls in turn
// (the sample sort's: its sample's, its scatter's, its buckets'), as their allocator: so that
// the sort allocates everything at once, before it touches the input, as allocator.cuh asks
// of every backend, and an allocator that hands out one block at a time serves it too.
#pragma once

#include <gpusort/error.cuh>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

namespace gpusort::backends {

class lent_block {
 public:
  lent_block(void* base, std::size_t bytes) : base_(base), bytes_(bytes) {}

  void* allocate(std::size_t bytes, cudaStream_t) {
    // The block was sized from the inner sort's own layout: anything else is gpusort's bug.
    if (lent_ || bytes > bytes_)
      detail::throw_usage_error("internal error: a lent block of " + std::to_string(bytes_) +
                                " bytes was asked for " + std::to_string(bytes) + " bytes" +
                                (lent_ ? " while lent" : ""));
    lent_ = true;
    return base_;
  }
  void deallocate(void*, std::size_t, cudaStream_t) noexcept { lent_ = false; }

 private:
  void* base_;
  std::size_t bytes_;
  bool lent_ = false;
};

}  // namespace gpusort::backends
