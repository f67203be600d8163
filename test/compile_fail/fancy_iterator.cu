// expect: gpusort sorts contiguous ranges
#include <gpusort/sort.cuh>
#include <thrust/iterator/counting_iterator.h>
void f() {
  thrust::counting_iterator<int> first(0);
  gpusort::sort(gpusort::radix, first, first + 10);
}
