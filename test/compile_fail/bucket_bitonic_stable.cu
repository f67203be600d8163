// expect: gpusort::bucket_bitonic is not stable
#include <gpusort/sort.cuh>
void f(float* p) { gpusort::stable_sort(gpusort::bucket_bitonic, p, p + 10); }
