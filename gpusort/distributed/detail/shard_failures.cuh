// What went wrong on the pinned-host sort's shard threads, rethrown on the calling thread.
// One shard's failure before the barrier makes every other shard fail too ("another GPU
// failed"): the caller must see the first cause, not one of its echoes.
#pragma once

#include <cstddef>
#include <exception>
#include <utility>
#include <vector>

namespace gpusort::distributed::detail {

class shard_failures {
 public:
  explicit shard_failures(int shards) : failures_(shards), failed_first_(shards, 0) {}

  // From shard `shard`'s thread; `on_its_own`: not because another shard failed.
  void record(int shard, std::exception_ptr failure, bool on_its_own) {
    failures_[shard] = std::move(failure);
    if (on_its_own) failed_first_[shard] = 1;
  }

  // After every shard thread ended: a failure on its own first, else any.
  void rethrow_if_any() const {
    for (std::size_t s = 0; s < failures_.size(); ++s)
      if (failed_first_[s]) std::rethrow_exception(failures_[s]);
    for (const std::exception_ptr& failure : failures_)
      if (failure) std::rethrow_exception(failure);
  }

 private:
  std::vector<std::exception_ptr> failures_;
  std::vector<char> failed_first_;  // one per shard, each written by its own thread only
};

}  // namespace gpusort::distributed::detail
