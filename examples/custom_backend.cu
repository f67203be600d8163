// Two ways to change how gpusort sorts without editing gpusort:
//  1. a backend of your own (thrust_backend.cuh: a policy type plus a backend_sort
//     overload in your namespace, found by argument-dependent lookup);
//  2. a built-in backend with your own tuning (radix_policy<your_tuning>).
// Both go through gpusort's front door: argument checks, iterator unwrapping, stream and
// allocator handling stay the library's.
#include "thrust_backend.cuh"

#include <gpusort/sort.cuh>

#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/sequence.h>

#include <cstdio>

struct narrow_tiles {
  static constexpr gpusort::radix_knobs knobs = [] {
    gpusort::radix_knobs k = gpusort::radix_tuning_sm90::knobs;
    k.items_per_thread = 8;  // half the default tile; a misspelt knob does not compile
    return k;
  }();
};

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::puts("custom_backend: no CUDA GPU found; nothing to run here");
    return 0;
  }
  try {
    thrust::device_vector<int> keys(1 << 20);
    thrust::sequence(keys.begin(), keys.end(), int(keys.size()), -1);  // descending
    gpusort::sort(my_project::thrust_sort, keys.begin(), keys.end());
    const bool first_ok = thrust::is_sorted(keys.begin(), keys.end());

    thrust::sequence(keys.begin(), keys.end(), int(keys.size()), -1);
    gpusort::sort(gpusort::radix_policy<narrow_tiles>{}, keys.begin(), keys.end());
    const bool second_ok = thrust::is_sorted(keys.begin(), keys.end());

    std::printf("user backend (thrust): %s\nradix with user tuning: %s\n",
                first_ok ? "sorted" : "NOT SORTED", second_ok ? "sorted" : "NOT SORTED");
    return first_ok && second_ok ? 0 : 1;
  } catch (const gpusort::error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
}
