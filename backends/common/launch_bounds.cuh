// The blocks-per-SM half of __launch_bounds__, kept within the architecture being compiled:
// a tuning asks for blocks per SM as measured on sm_90 (2048 resident threads per SM), and
// on a GPU with fewer resident threads the same request cannot be met (ptxas ignores it, with
// a warning, and picks registers on its own).
#pragma once

namespace gpusort::backends {

// Resident threads per SM on the architecture of this compilation pass: 1024 on sm_75; 2048
// on sm_80, sm_90, sm_100 and sm_103; 1536 on the others (sm_86, sm_87, sm_89, sm_120, ...:
// the smaller figure where unsure, which only leaves the compiler more registers).
constexpr int resident_threads_per_multiprocessor() {
#if !defined(__CUDA_ARCH__)
  return 2048;  // the host pass does not use launch bounds
#elif __CUDA_ARCH__ == 750
  return 1024;
#elif __CUDA_ARCH__ == 800 || __CUDA_ARCH__ == 900 || __CUDA_ARCH__ == 1000 || \
    __CUDA_ARCH__ == 1030
  return 2048;
#else
  return 1536;
#endif
}

// `wanted` blocks of `block_threads` per SM, or as many as the architecture holds (at least 1).
constexpr int min_blocks_per_multiprocessor(int wanted, int block_threads) {
  const int fitting = resident_threads_per_multiprocessor() / block_threads;
  const int blocks = wanted < fitting ? wanted : fitting;
  return blocks > 0 ? blocks : 1;
}

}  // namespace gpusort::backends
