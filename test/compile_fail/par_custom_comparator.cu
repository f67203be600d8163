// expect: needs the comparison backend
#include <gpusort/sort.cuh>
struct by_parity {
  __host__ __device__ bool operator()(int a, int b) const { return (a & 1) < (b & 1); }
};
void f(int* p) { gpusort::sort(gpusort::par, p, p + 10, by_parity{}); }
