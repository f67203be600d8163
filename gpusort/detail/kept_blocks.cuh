// Blocks of temporary memory kept for the stream that last gave them back, one table per
// device: the next sort without an allocator on that stream takes its block without a call
// into CUDA's allocator. On an H200, cudaMallocFromPoolAsync and cudaFreeAsync cost a sort
// 1-6 us of host time, 1.5-3 % of a sort of 2^16-2^20 keys (bench/results/NOTES.md,
// 2026-12-01).
//
// Safe by stream order: a block kept for a stream was last used by work on that stream, and a
// later sort on it runs after that work. Streams are told apart by cudaStreamGetId, which CUDA
// never hands out twice in a process (a destroyed stream's handle may come back for a new one,
// and every thread's per-thread default stream has the same handle). A block is given back to
// the pool only on its own stream, by a sort running on it (so the stream is alive), or once
// the whole device is idle (release_all).
//
// Bounded: at most kept_block_streams blocks, each of at most kept_block_most_bytes (the saving
// matters only for short sorts; a long one hides it), and no more in all than the cached-memory
// limit. A stream beyond the table's slots gets its storage from the pool as before.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <mutex>

namespace gpusort::detail {

inline constexpr int kept_block_streams = 4;
inline constexpr std::size_t kept_block_most_bytes = std::size_t(64) << 20;

// How a block goes back to the pool: cudaFreeAsync (the host test records it instead).
using block_release = void (*)(void* block, cudaStream_t stream);
inline void free_in_stream_order(void* block, cudaStream_t stream) { cudaFreeAsync(block, stream); }

class kept_blocks {
 public:
  explicit kept_blocks(block_release release = free_in_stream_order) : release_(release) {}

  // The block kept for stream `id` if it holds `bytes`, lent until given back; else null. A
  // kept block too small for this call is given back to the pool, on `stream`, its own.
  void* take(unsigned long long id, std::size_t bytes, cudaStream_t stream) {
    std::lock_guard<std::mutex> guard(mutex_);
    slot* s = slot_of_stream(id);
    if (s == nullptr || s->lent) return nullptr;
    if (s->bytes >= bytes) {
      s->lent = true;
      return s->block;
    }
    release_(s->block, stream);
    forget(*s);
    return nullptr;
  }

  // Takes back `block`, the storage of a sort on stream `id` that has just been enqueued:
  // kept for the stream's next sort where the bounds allow, else given back to the pool on
  // `stream`. `bytes`: what the sort asked for (a lent block keeps its own size).
  void give_back(unsigned long long id, void* block, std::size_t bytes,
                 cudaStream_t stream) noexcept {
    std::lock_guard<std::mutex> guard(mutex_);
    for (slot& s : slots_)
      if (s.block == block) {
        s.lent = false;
        s.given_back_as = given_back_++;
        if (kept_bytes_ > limit_) {  // the limit was lowered meanwhile
          release_(block, stream);
          forget(s);
        }
        return;
      }
    slot* free_slot = unused_slot();
    const bool keep = free_slot != nullptr && slot_of_stream(id) == nullptr &&
                      bytes <= kept_block_most_bytes && kept_bytes_ + bytes <= limit_;
    if (!keep) {
      release_(block, stream);
      return;
    }
    *free_slot = slot{id, block, bytes, false, given_back_++};
    kept_bytes_ += bytes;
  }

  // How many blocks have been given back so far: a mark for release_all.
  unsigned long long given_back_count() noexcept {
    std::lock_guard<std::mutex> guard(mutex_);
    return given_back_;
  }

  // Gives back to the pool every block that was given back before `mark` (given_back_count()
  // taken before the device went idle) and is not lent now. Their streams may be gone, so
  // they are freed on the calling thread's default stream, which is safe only because the
  // work that used them has finished; a block given back since (by a sort on another thread,
  // its work perhaps still running) stays.
  void release_all(unsigned long long mark) noexcept {
    std::lock_guard<std::mutex> guard(mutex_);
    for (slot& s : slots_)
      if (s.block != nullptr && !s.lent && s.given_back_as < mark) {
        release_(s.block, nullptr);
        forget(s);
      }
  }

  void set_limit(std::size_t bytes) noexcept {
    std::lock_guard<std::mutex> guard(mutex_);
    limit_ = bytes;
  }

 private:
  struct slot {
    unsigned long long stream_id;
    void* block;  // null: an unused slot
    std::size_t bytes;
    bool lent;
    unsigned long long given_back_as;  // the give_back that left it here
  };

  slot* slot_of_stream(unsigned long long id) {
    for (slot& s : slots_)
      if (s.block != nullptr && s.stream_id == id) return &s;
    return nullptr;
  }
  slot* unused_slot() {
    for (slot& s : slots_)
      if (s.block == nullptr) return &s;
    return nullptr;
  }
  void forget(slot& s) {
    kept_bytes_ -= s.bytes;
    s = slot{};
  }

  block_release release_;
  std::mutex mutex_;
  slot slots_[kept_block_streams]{};
  std::size_t kept_bytes_ = 0;
  unsigned long long given_back_ = 0;
  std::size_t limit_ = SIZE_MAX;
};

}  // namespace gpusort::detail
