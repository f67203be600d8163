// expect: this policy takes no segmented sorts
#include <gpusort/sort.cuh>
namespace mine {
// A policy with a backend_sort of its own and none for segmented requests.
struct sorts_whole_ranges_only : gpusort::execution_policy<sorts_whole_ranges_only> {};
template <class K, class V, class C, bool S>
void backend_sort(const sorts_whole_ranges_only&, const gpusort::sort_request<K, V, C, S>&) {}
}  // namespace mine
void f(int* p, const int* offsets) {
  gpusort::sort(mine::sorts_whole_ranges_only{}, p, p + 10);
  gpusort::segmented_sort(mine::sorts_whole_ranges_only{}, p, p + 10, offsets, offsets + 3);
}
