// gpusort::distributed::pinned_host: the policy that sorts a pinned host array with several
// GPUs (host_sort.cuh), and its options:
//
//   gpusort::distributed::pinned_host.devices({0, 1})              // default: every visible GPU
//       .device_memory_limit(std::size_t(8) << 30)  // per GPU; default: free - max(1 GiB, free / 32)
//       .on_progress([](const gpusort::distributed::progress& p) { ... });
#pragma once

#include "host_sort_report.cuh"

#include <cstddef>
#include <functional>
#include <utility>
#include <vector>

namespace gpusort::distributed {

class pinned_host_policy {
 public:
  // The GPUs to use (default: every visible one).
  pinned_host_policy devices(std::vector<int> ids) const {
    pinned_host_policy copy = *this;
    copy.devices_ = std::move(ids);
    return copy;
  }
  // At most this many bytes of each GPU's memory (default: what is free, less 5 %).
  pinned_host_policy device_memory_limit(std::size_t bytes) const {
    pinned_host_policy copy = *this;
    copy.limit_ = bytes;
    return copy;
  }
  pinned_host_policy on_progress(std::function<void(const progress&)> callback) const {
    pinned_host_policy copy = *this;
    copy.progress_ = std::move(callback);
    return copy;
  }

  const std::vector<int>& device_ids() const noexcept { return devices_; }
  std::size_t memory_limit() const noexcept { return limit_; }
  const std::function<void(const progress&)>& progress_callback() const noexcept {
    return progress_;
  }

 private:
  std::vector<int> devices_;
  std::size_t limit_ = 0;
  std::function<void(const progress&)> progress_;
};

inline const pinned_host_policy pinned_host{};

}  // namespace gpusort::distributed
