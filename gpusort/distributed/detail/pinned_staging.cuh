// Page-locked words of the calling thread, through which the distributed sort's small counts
// travel between host and device: a copy from page-locked memory is asynchronous (so an
// upload needs no wait), and a copy into it does not block the host (so the one wait of a
// round trip can give up; host_round_trip.cuh). Pageable memory offers neither.
#pragma once

#include "../../error.cuh"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gpusort::distributed::detail {

class pinned_staging {
 public:
  // This thread's staging (one sort at a time per thread: a rank's sort blocks its thread).
  static pinned_staging& of_this_thread() {
    thread_local pinned_staging staging;
    return staging;
  }

  // `words` words of their own until reset(): each copy enqueued between two waits takes
  // its own, since the copies run later. An area that runs out is kept for its copies in
  // flight, and a larger one is taken.
  std::uint64_t* take(std::size_t words) {
    if (used_ + words > capacity_) {
      if (words_ != nullptr) retired_.push_back(words_);
      const std::size_t grown = std::max<std::size_t>(words, 2 * capacity_ + 512);
      void* fresh = nullptr;
      // Portable: page-locked for every device's context, since a thread may sort on one
      // device, then on another (each copy into memory pageable to its context would wait).
      gpusort::detail::check_cuda(
          cudaHostAlloc(&fresh, grown * sizeof(std::uint64_t), cudaHostAllocPortable),
          "allocating page-locked staging for the distributed sort");
      words_ = static_cast<std::uint64_t*>(fresh);
      capacity_ = grown;
      used_ = 0;
    }
    std::uint64_t* slice = words_ + used_;
    used_ += words;
    return slice;
  }

  // Once every copy enqueued so far is done: every word may be taken again.
  void reset() noexcept {
    for (std::uint64_t* old : retired_) cudaFreeHost(old);
    retired_.clear();
    used_ = 0;
  }

  ~pinned_staging() {
    reset();
    if (words_ != nullptr) cudaFreeHost(words_);
  }

  pinned_staging(const pinned_staging&) = delete;
  pinned_staging& operator=(const pinned_staging&) = delete;

 private:
  pinned_staging() = default;

  std::uint64_t* words_ = nullptr;
  std::size_t capacity_ = 0;
  std::size_t used_ = 0;
  std::vector<std::uint64_t*> retired_;
};

}  // namespace gpusort::distributed::detail
