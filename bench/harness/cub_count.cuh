// The integer type a CUB call is given its item count in. CUB chooses its offset type by it,
// and with the offsets its tiles: on sm_90, CUB 3.0's one-sweep radix sort takes 20 keys per
// thread for 4-byte keys without values with an int count and 19 with a std::size_t one, 23
// and 17 for 4-byte keys with 4-byte values. Which call is faster depends on the key type and
// the size (bench/results/NOTES.md, the section on CUB's count type), so the radix
// benchmarks time both and the scripts set gpusort against the faster.
#pragma once

namespace gpusort_bench {

enum class cub_count {
  int_count,     // an int, as most CUB users pass (32-bit offsets)
  size_t_count,  // a std::size_t, as a container's size() gives (64-bit offsets)
};

}  // namespace gpusort_bench
