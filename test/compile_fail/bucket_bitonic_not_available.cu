// expect: gpusort::bucket_bitonic is not available yet
#include <gpusort/sort.cuh>
void f(float* p) { gpusort::sort(gpusort::bucket_bitonic, p, p + 10); }
