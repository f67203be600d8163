// Where a segmented sort's device-side check of the offsets reports bad ones, without a
// synchronisation: one word of mapped, pinned host memory per device. The device writes the
// index of a bad segment there; the host reads it at the next segmented sort call on that
// device (or in gpusort::check_segmented_sorts()) and throws.
#pragma once

#include "../error.cuh"
#include "per_device.cuh"
#include "stream_capture.cuh"

#include <cuda_runtime_api.h>

#include <atomic>
#include <string>

namespace gpusort::detail {

inline constexpr unsigned long long no_bad_segment = ~0ull;
// Reported where the segments' sizes add up to more than the keys: some overlap.
inline constexpr unsigned long long overlapping_segments = ~1ull;

struct offsets_report {
  unsigned long long* host;    // what the host reads
  unsigned long long* device;  // the same word, as the device writes it
};

// Made on first use, kept for the life of the process (as the memory pool is).
inline const offsets_report& offsets_report_of(int device) {
  static per_device<offsets_report> reports;
  return reports.get(device, [](int) {
    const relaxed_capture_mode relaxed;  // the first segmented sort may be a captured one
    offsets_report report{};
    void* word = nullptr;
    check_cuda(cudaHostAlloc(&word, sizeof(unsigned long long), cudaHostAllocMapped),
               "allocating the segmented sort's offsets report");
    report.host = static_cast<unsigned long long*>(word);
    *report.host = no_bad_segment;
    check_cuda(cudaHostGetDevicePointer(reinterpret_cast<void**>(&report.device), word, 0),
               "mapping the segmented sort's offsets report");
    return report;
  });
}

// Throws where a segmented sort on `device` that the device has already run found bad
// offsets, and forgets them.
inline void report_bad_offsets(int device) {
  const offsets_report& report = offsets_report_of(device);
  auto* word = reinterpret_cast<volatile unsigned long long*>(report.host);
  const unsigned long long bad = *word;
  if (bad == no_bad_segment) return;
  *word = no_bad_segment;
  const std::string what =
      bad == overlapping_segments
          ? "segments that overlap (their sizes add up to more than the keys)"
          : "bad offsets (segment " + std::to_string(bad) +
                ": its end precedes its begin, its begin is negative, or its end is past the "
                "keys' end)";
  throw_usage_error("an earlier segmented sort on device " + std::to_string(device) + " had " +
                    what + "; that call sorted nothing and left keys and values as they were");
}

}  // namespace gpusort::detail
