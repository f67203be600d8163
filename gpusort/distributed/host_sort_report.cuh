// What a pinned-host sort (host_sort.cuh) tells its caller: progress while it runs, through
// the policy's on_progress callback, and where the time went, as its return value.
#pragma once

#include <cstdint>

namespace gpusort::distributed {

// What a long host sort reports, from the calling thread, about every 100 ms and at
// each phase's end.
struct progress {
  enum class phase { to_devices, sorting, to_host, done };
  phase step;
  std::uint64_t bytes_done;   // of the current copy phase (all GPUs together)
  std::uint64_t bytes_total;  // the array's bytes (keys and values)
  double seconds;             // since the call began
};

// Where the time of a host sort went (seconds; each phase ends when the slowest GPU ends it).
struct host_sort_report {
  int devices;
  double to_devices_seconds;
  double sorting_seconds;
  double to_host_seconds;
};

}  // namespace gpusort::distributed
