// One lazily made value per CUDA device of the process: facts that never change while it
// runs (compute capability, multiprocessor count, a kernel's occupancy) and the objects
// gpusort keeps per device (its memory pool). Made once, on first use, by whichever thread
// gets there first; later lookups cost an atomic load.
#pragma once

#include "../error.cuh"

#include <cuda_runtime_api.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>

namespace gpusort::detail {

// The number of devices the process sees (fixed once CUDA is initialised).
inline int visible_device_count() {
  static const int count = [] {
    int devices = 0;
    check_cuda(cudaGetDeviceCount(&devices), "counting the CUDA devices");
    return devices;
  }();
  return count;
}

inline int current_device() {
  int device = 0;
  check_cuda(cudaGetDevice(&device), "querying the current device");
  return device;
}

template <class T>
class per_device {
 public:
  per_device() : count_(visible_device_count()), slots_(std::make_unique<slot[]>(count_)) {}

  // The value for `device`, made by make(device) on first use. If make throws, nothing is
  // kept and the next call tries again.
  template <class Make>
  const T& get(int device, Make&& make) {
    slot& s = slot_of(device);
    std::call_once(s.once, [&] {
      s.value = make(device);
      s.ready.store(true, std::memory_order_release);
    });
    return s.value;
  }

  // The value for `device` if it was made, else nullptr; never makes one.
  const T* find(int device) const {
    if (device < 0 || device >= count_) return nullptr;
    const slot& s = slots_[device];
    return s.ready.load(std::memory_order_acquire) ? &s.value : nullptr;
  }

  int device_count() const noexcept { return count_; }

 private:
  struct slot {
    std::once_flag once;
    std::atomic<bool> ready{false};
    T value{};
  };

  slot& slot_of(int device) {
    if (device < 0 || device >= count_)
      throw_usage_error("device " + std::to_string(device) + " does not exist (the process sees " +
                        std::to_string(count_) + ")");
    return slots_[device];
  }

  int count_;
  std::unique_ptr<slot[]> slots_;
};

}  // namespace gpusort::detail
