// expect: gpusort::bucket_bitonic is not stable
#include <gpusort/sort.cuh>
void f(float* p, const int* offsets) {
  gpusort::stable_segmented_sort(gpusort::bucket_bitonic, p, p + 10, offsets, offsets + 3);
}
