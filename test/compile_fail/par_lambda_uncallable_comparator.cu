// expect: gpusort::par: no backend can sort this key type with this comparator
#include <gpusort/sort.cuh>
struct point {
  int x, y;
};
void f(point* p) {  // the lambda takes ints, not points
  gpusort::sort(gpusort::par, p, p + 10, [] __device__(int a, int b) { return a < b; });
}
