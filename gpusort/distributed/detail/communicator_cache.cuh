// The pinned-host sort's communicators, made once per set of GPUs: ncclCommInitAll takes a
// quarter of a second on two H200s, too long to pay on every sort.
#pragma once

#include "../communicator.cuh"

#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace gpusort::distributed::detail {

// The communicators of one set of GPUs, made at the first pinned-host sort that uses the set
// and kept for the process's life. Sorts on the same set take turns (`in_use`): two at once
// would interleave on the same communicators.
struct device_group {
  std::vector<communicator> comms;
  std::mutex in_use;

  static std::shared_ptr<device_group> for_devices(const std::vector<int>& devices) {
    static std::mutex made_lock;
    // Never destroyed: NCCL teardown during static destruction can outlive the CUDA runtime.
    static auto* made = new std::map<std::vector<int>, std::shared_ptr<device_group>>();
    const std::lock_guard<std::mutex> lock(made_lock);
    std::shared_ptr<device_group>& group = (*made)[devices];
    if (!group) {
      auto fresh = std::make_shared<device_group>();
#if GPUSORT_WITH_NCCL
      if (devices.size() > 1) fresh->comms = communicator::for_devices(devices);
#endif
      if (devices.size() == 1) fresh->comms.push_back(communicator::solo(devices[0]));
      group = std::move(fresh);
    }
    return group;
  }
};

}  // namespace gpusort::distributed::detail
