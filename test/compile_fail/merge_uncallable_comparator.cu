// expect: gpusort::merge sorts trivially copyable, default-constructible keys with a comparator callable
#include <gpusort/sort.cuh>
struct point {
  int x, y;
};
struct by_x_of_ints {  // takes ints, not points
  __host__ __device__ bool operator()(int a, int b) const { return a < b; }
};
void f(point* p) { gpusort::sort(gpusort::merge, p, p + 10, by_x_of_ints{}); }
