// expect: has no member "item_per_thread"
#include <gpusort/sort.cuh>
struct narrow_tiles {
  static constexpr gpusort::radix_knobs knobs = [] {
    gpusort::radix_knobs k = gpusort::radix_tuning_sm90::knobs;
    k.item_per_thread = 8;
    return k;
  }();
};
void f(int* p) { gpusort::sort(gpusort::radix_policy<narrow_tiles>{}, p, p + 10); }
