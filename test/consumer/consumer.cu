#include <gpusort/sort.cuh>

#include <thrust/device_vector.h>

#include <cstdio>

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::puts("consumer built; no GPU here to run it");
    return 0;
  }
  thrust::device_vector<int> keys{3, -1, 2};
  gpusort::sort(gpusort::par, keys.begin(), keys.end());
  // Segments [0, 1) and [1, 3): the second sorted on its own.
  thrust::device_vector<int> segment_keys{5, 9, 4};
  thrust::device_vector<int> offsets{0, 1, 3};
  gpusort::segmented_sort(gpusort::par, segment_keys.begin(), segment_keys.end(),
                          offsets.begin(), offsets.end());
  const bool sorted = keys[0] == -1 && keys[1] == 2 && keys[2] == 3 && segment_keys[0] == 5 &&
                      segment_keys[1] == 4 && segment_keys[2] == 9;
  std::puts(sorted ? "sorted" : "NOT SORTED");
  return sorted ? 0 : 1;
}
