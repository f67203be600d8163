// expect: Tuning needs a member 'static constexpr gpusort::merge_knobs knobs'
#include <gpusort/sort.cuh>
struct narrow_merges {
  static constexpr int merge_items_per_thread = 9;
};
void f(int* p) { gpusort::sort(gpusort::merge_policy<narrow_merges>{}, p, p + 10); }
