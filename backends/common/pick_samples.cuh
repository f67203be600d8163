// A sample of unsorted keys for the sorts that cut their input by splitters from it: the
// sample sort (backends/merge/sample_sort.cuh) and the distributed partition-first sort.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gpusort::backends {

// Sample i of `samples`: one key from the i-th of `samples` equal slices of the `count` keys,
// at a position within the slice hashed from i (a fixed stride would sample a periodic input
// at one phase only). A grid of any size covers every sample.
template <class Key>
__global__ void pick_samples(const Key* keys, std::size_t count, std::size_t samples, Key* out) {
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < samples;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const std::size_t first = i * count / samples;
    const std::size_t width = (i + 1) * count / samples - first;
    std::uint64_t h = (i + 1) * 0x9E3779B97F4A7C15ull;  // splitmix64's finaliser
    h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ull;
    h = (h ^ (h >> 27)) * 0x94D049BB133111EBull;
    h ^= h >> 31;
    out[i] = keys[first + h % (width > 0 ? width : 1)];
  }
}

}  // namespace gpusort::backends
