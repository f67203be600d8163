// What gpusort needs to know of a device, asked once per device and kept: every sort call
// reads it from here instead of querying the driver again.
#pragma once

#include "../error.cuh"
#include "per_device.cuh"

#include <cuda_runtime_api.h>

namespace gpusort::detail {

struct device_facts {
  int compute_major = 0;
  int compute_minor = 0;
  int multiprocessors = 0;
  // The most shared memory one block can opt in to (sm_90: 227 KB; sm_120: 99 KB).
  int shared_bytes_per_block_optin = 0;
  // Peak DRAM bandwidth from the bus width and memory clock (two transfers per clock), in
  // bytes per second; 0 where the driver does not say. It tells GPUs of one architecture
  // apart whose best tile choices differ (an H100 from an H200: 3.35 against 4.8 TB/s).
  double peak_memory_bandwidth = 0;
  // Whether kernels may be launched cooperatively (every block resident, grid barriers);
  // where not, the radix sort leaves its count to the histogram kernel (first_pass_count.cuh)
  // and clears that kernel's counters with a memset (clearing_mark.cuh).
  bool cooperative_launch = false;
};

inline device_facts ask_device_facts(int device) {
  const auto attribute = [device](cudaDeviceAttr which, const char* doing) {
    int value = 0;
    check_cuda(cudaDeviceGetAttribute(&value, which, device), doing);
    return value;
  };
  device_facts facts;
  facts.compute_major =
      attribute(cudaDevAttrComputeCapabilityMajor, "querying the compute capability");
  facts.compute_minor =
      attribute(cudaDevAttrComputeCapabilityMinor, "querying the compute capability");
  facts.multiprocessors =
      attribute(cudaDevAttrMultiProcessorCount, "querying the multiprocessor count");
  facts.shared_bytes_per_block_optin = attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin,
                                                 "querying the shared memory per block");
  facts.cooperative_launch =
      attribute(cudaDevAttrCooperativeLaunch, "querying cooperative launch support") != 0;
  // Optional: a driver that does not report them leaves the bandwidth unknown.
  int clock_khz = 0, bus_bits = 0;
  if (cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device) != cudaSuccess) {
    cudaGetLastError();
    clock_khz = bus_bits = 0;
  }
  facts.peak_memory_bandwidth = 2.0 * clock_khz * 1e3 * bus_bits / 8.0;
  return facts;
}

inline const device_facts& facts_of_device(int device) {
  static per_device<device_facts> facts;
  return facts.get(device, ask_device_facts);
}

inline const device_facts& current_device_facts() { return facts_of_device(current_device()); }

}  // namespace gpusort::detail
