// The radix policy's tuning with the counting sort from the first key on, for every key type
// it counts (the built-in tuning counts only from its thresholds, counting_min_keys, so calls
// through it test the one-sweep passes below them).
#pragma once

#include <gpusort/sort.cuh>

namespace gpusort::test {

struct counting_from_one_key {
  static constexpr radix_knobs knobs = [] {
    radix_knobs k = radix_tuning_sm90::knobs;
    k.counting.min_keys = 0;
    k.counting.min_keys_per_bin = 0;
    return k;
  }();
};

}  // namespace gpusort::test
