// expect: class type cannot be used as a base class
#include <gpusort/sort.cuh>
// A shadowed member would be silently ignored: the built-in tunings are final.
struct narrow_tiles : gpusort::radix_tuning_sm90 {
  static constexpr int items_per_thread = 8;
};
