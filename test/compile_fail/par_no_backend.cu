// expect: gpusort::par: no backend can sort this key type with this comparator
#include <gpusort/sort.cuh>
struct handle {  // trivially copyable, but not default-constructible
  explicit handle(int v) : value(v) {}
  int value;
};
struct by_value {
  __host__ __device__ bool operator()(const handle& a, const handle& b) const {
    return a.value < b.value;
  }
};
void f(handle* p) { gpusort::sort(gpusort::par, p, p + 10, by_value{}); }
