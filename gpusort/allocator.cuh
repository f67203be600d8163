// Temporary storage: the allocator a policy carries, and the single up-front allocation a
// backend makes through it.
#pragma once

#include "detail/temporary_pool.cuh"
#include "error.cuh"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>

namespace gpusort {

// A non-owning handle to the user's allocator (or memory resource). Any object with
//   void* allocate(std::size_t bytes, cudaStream_t stream);
//   void  deallocate(void* p, std::size_t bytes, cudaStream_t stream);
// can be passed to policy.with_allocator(obj); it must outlive the sort call.
// A default-constructed allocator_ref takes stream-ordered memory from gpusort's own pool on
// the current device (gpusort/memory.cuh says what it keeps and how to give it back).
class allocator_ref {
 public:
  constexpr allocator_ref() = default;

  template <class Allocator,
            class = std::enable_if_t<!std::is_same_v<std::decay_t<Allocator>, allocator_ref>>>
  explicit allocator_ref(Allocator& allocator)
      : state_(&allocator), allocate_(&allocate_with<Allocator>),
        deallocate_(&deallocate_with<Allocator>) {}

  void* allocate(std::size_t bytes, cudaStream_t stream) const {
    if (allocate_ == nullptr) return detail::allocate_temporary(bytes, stream);
    void* p = allocate_(state_, bytes, stream);
    if (p == nullptr && bytes != 0)
      detail::throw_usage_error("the policy's allocator returned null for " +
                                std::to_string(bytes) + " bytes");
    return p;
  }

  // Never throws: it runs from destructors, possibly while an exception is in flight.
  void deallocate(void* p, std::size_t bytes, cudaStream_t stream) const noexcept {
    if (p == nullptr) return;
    if (deallocate_ == nullptr) {
      detail::deallocate_temporary(p, bytes, stream);
      return;
    }
    deallocate_(state_, p, bytes, stream);
  }

  bool is_default() const noexcept { return allocate_ == nullptr; }

 private:
  template <class Allocator>
  static void* allocate_with(void* state, std::size_t bytes, cudaStream_t stream) {
    return static_cast<Allocator*>(state)->allocate(bytes, stream);
  }
  template <class Allocator>
  static void deallocate_with(void* state, void* p, std::size_t bytes,
                              cudaStream_t stream) noexcept {
    static_cast<Allocator*>(state)->deallocate(p, bytes, stream);
  }

  void* state_ = nullptr;
  void* (*allocate_)(void*, std::size_t, cudaStream_t) = nullptr;
  void (*deallocate_)(void*, void*, std::size_t, cudaStream_t) noexcept = nullptr;
};

// Plans one allocation for several typed buffers, then hands out their addresses.
// Backends size everything first and allocate once, before the input is touched, so that
// an allocation failure leaves the user's data exactly as it was.
class storage_plan {
 public:
  static constexpr std::size_t alignment = 256;  // what cudaMalloc guarantees

  // Reserves room for `count` objects of T and returns the slot's offset.
  template <class T>
  std::size_t reserve(std::size_t count) {
    return reserve_bytes(count * sizeof(T));
  }
  std::size_t reserve_bytes(std::size_t bytes) {
    std::size_t offset = total_;
    total_ += (bytes + alignment - 1) / alignment * alignment;
    return offset;
  }
  std::size_t total_bytes() const noexcept { return total_; }

 private:
  std::size_t total_ = 0;
};

// Owns one block of temporary device memory for the duration of a sort call; it is
// released in stream order, so the kernels that use it may still be running.
class temporary_storage {
 public:
  temporary_storage(allocator_ref allocator, std::size_t bytes, cudaStream_t stream)
      : allocator_(allocator), bytes_(bytes), stream_(stream),
        base_(bytes == 0 ? nullptr : static_cast<char*>(allocator.allocate(bytes, stream))) {}
  ~temporary_storage() { allocator_.deallocate(base_, bytes_, stream_); }
  temporary_storage(const temporary_storage&) = delete;
  temporary_storage& operator=(const temporary_storage&) = delete;

  template <class T>
  T* at(std::size_t offset) const {
    return reinterpret_cast<T*>(base_ + offset);
  }

 private:
  allocator_ref allocator_;
  std::size_t bytes_;
  cudaStream_t stream_;
  char* base_;
};

}  // namespace gpusort
