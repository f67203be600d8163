// Tiles: the fixed-size pieces of the input that one thread block owns. Shared by every
// backend; __host__ __device__ so the host tests can check the arithmetic without a GPU.
#pragma once

#include <gpusort/no_values.cuh>

#include <cstddef>

namespace gpusort::backends {

__host__ __device__ constexpr std::size_t tile_count(std::size_t n, int tile_items) {
  return (n + tile_items - 1) / tile_items;
}

struct tile_bounds {
  std::size_t begin;
  int count;  // at most tile_items; fewer only in the last tile
};

__host__ __device__ constexpr tile_bounds tile_of(std::size_t tile, int tile_items,
                                                  std::size_t n) {
  std::size_t begin = tile * std::size_t(tile_items);
  std::size_t left = n - begin;
  return {begin, int(left < std::size_t(tile_items) ? left : std::size_t(tile_items))};
}

}  // namespace gpusort::backends
