// Where the pinned-host sort's shard threads meet before the distributed sort: if any of
// them failed to get its shard onto its GPU, none enters the sort's collectives (where the
// others would wait for it forever).
#pragma once

#include <condition_variable>
#include <mutex>

namespace gpusort::distributed::detail {

// A one-use barrier for `threads` threads that also tells them whether all arrived ready.
class shard_barrier {
 public:
  explicit shard_barrier(int threads) : waiting_for_(threads) {}
  // True when every thread arrived ready.
  bool arrive(bool ready) {
    std::unique_lock<std::mutex> lock(mutex_);
    all_ready_ = all_ready_ && ready;
    if (--waiting_for_ == 0)
      everyone_arrived_.notify_all();
    else
      everyone_arrived_.wait(lock, [&] { return waiting_for_ == 0; });
    return all_ready_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable everyone_arrived_;
  int waiting_for_;
  bool all_ready_ = true;
};

}  // namespace gpusort::distributed::detail
