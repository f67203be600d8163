// A pre-allocated pool for gpusort's temporary storage, so that neither backend's timing
// includes an allocation: CUB gets its temp storage allocated once up front (the CUB idiom),
// gpusort gets this pool through policy.with_allocator(pool).
//
// It hands out slices of one cudaMalloc'd block, bump-pointer style, and takes the whole
// block back when the last slice is returned. Reusing the block for the next sort is safe
// because every sort that uses a pool runs on the same stream: the next sort's kernels start
// after the previous sort's have finished, whatever the host thinks.
#pragma once

#include "cuda_check.cuh"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <new>

namespace gpusort_bench {

class pool_allocator {
 public:
  static constexpr std::size_t alignment = 256;  // what cudaMalloc guarantees

  pool_allocator() = default;
  ~pool_allocator() { cudaFree(block_); }
  pool_allocator(const pool_allocator&) = delete;
  pool_allocator& operator=(const pool_allocator&) = delete;

  // The interface gpusort::allocator_ref asks for.
  void* allocate(std::size_t bytes, cudaStream_t stream) {
    bytes = round_up(bytes);
    if (used_ + bytes > capacity_) {
      // Only an empty pool can grow (outstanding slices point into the old block). Growing
      // is a synchronous cudaMalloc; the untimed warm-up sort does it, and grow_count()
      // lets a benchmark check that no timed sort did.
      if (outstanding_ != 0) throw std::bad_alloc();
      grow(bytes, stream);
    }
    void* slice = static_cast<char*>(block_) + used_;
    used_ += bytes;
    ++outstanding_;
    return slice;
  }
  void deallocate(void*, std::size_t, cudaStream_t) noexcept {
    if (outstanding_ != 0 && --outstanding_ == 0) used_ = 0;
  }

  std::size_t capacity() const noexcept { return capacity_; }
  int grow_count() const noexcept { return grow_count_; }

 private:
  static std::size_t round_up(std::size_t bytes) {
    return (bytes + alignment - 1) / alignment * alignment;
  }

  void grow(std::size_t bytes, cudaStream_t stream) {
    // Earlier sorts on `stream` may still be using the old block.
    check_cuda(cudaStreamSynchronize(stream), "pool allocator: waiting before growing");
    check_cuda(cudaFree(block_), "pool allocator: freeing the old block");
    block_ = nullptr;
    capacity_ = 0;
    check_cuda(cudaMalloc(&block_, bytes), "pool allocator: allocating its block");
    capacity_ = bytes;
    ++grow_count_;
  }

  void* block_ = nullptr;
  std::size_t capacity_ = 0;
  std::size_t used_ = 0;
  int outstanding_ = 0;
  int grow_count_ = 0;
};

}  // namespace gpusort_bench
