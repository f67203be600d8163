// expect: gpusort::bucket_bitonic sorts keys that have gpusort::radix_key_traits
#include <gpusort/sort.cuh>
struct by_parity {
  __host__ __device__ bool operator()(int a, int b) const { return (a & 1) < (b & 1); }
};
void f(int* p) { gpusort::sort(gpusort::bucket_bitonic, p, p + 10, by_parity{}); }
