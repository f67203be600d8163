// expect: gpusort::merge sorts trivially copyable, default-constructible keys with a comparator callable
#include <gpusort/sort.cuh>
struct point {
  int x, y;
};
void f(point* p) {  // the lambda takes ints, not points
  gpusort::sort(gpusort::merge, p, p + 10, [] __device__(int a, int b) { return a < b; });
}
