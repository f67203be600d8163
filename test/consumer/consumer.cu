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
  const bool sorted = keys[0] == -1 && keys[1] == 2 && keys[2] == 3;
  std::puts(sorted ? "sorted" : "NOT SORTED");
  return sorted ? 0 : 1;
}
