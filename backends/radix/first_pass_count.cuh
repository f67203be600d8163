// The first one-sweep pass counting every pass's digits itself, in place of the up-front
// histogram kernel (count_all_digits), where every tile of a one-portion sort is resident at
// once. Each block loads its tile as the pass does, counts the digits of every pass from the
// keys it holds, waits for block 0's word that it has cleared the histograms, adds its counts
// into them and meets the other blocks at a grid barrier; then it scans pass 0's counts into
// its own shared memory and ranks and scatters its tile. The block of the last tile also
// plans the later passes (scan_digit_starts_and_plan), as the histogram kernel's last block
// does. Saved: the histogram kernel's launch, its own read of the keys and its last block's
// tail, which the first pass waited on (H200: a count was 12-18 % of a u32 sort at
// 2^20-2^22), and the memset before it (2^17: -12 %; bench/results/NOTES.md).
// Floats, whose digits come from sort bits where any key has -0.0 or a NaN, count the sort
// bits of their keys and learn at the barrier which way every tile takes.
#pragma once

#include <gpusort/detail/device_facts.cuh>
#include "../common/block_shared.cuh"
#include "../common/dependent_launch.cuh"
#include "../common/kernel_setup.cuh"
#include "../common/resident_grid.cuh"
#include "clearing_mark.cuh"
#include "digit_counters.cuh"
#include "kernels.cuh"

#include <cooperative_groups.h>
#include <cub/block/block_scan.cuh>
#include <cstddef>
#include <cstdint>

namespace gpusort::backends::radix {

// Whether Tuning's first pass may count (its knob).
template <class Tuning>
inline constexpr bool may_count_in_first_pass = Tuning::knobs.count_in_first_pass;

// The counting first pass's tiles: Tuning's, with keys-only tiles reading their keys again
// when staged rather than holding them through the count and the barrier (held, u32 mid
// tiles spilled 88 bytes and lost 2-9 % of the gain at 2^18-2^21, H200,
// bench/results/NOTES.md).
template <class Tuning>
struct first_pass_tuning {
  static constexpr auto knobs = [] {
    auto k = Tuning::knobs;
    k.held_key_bytes = 0;
    return k;
  }();
};

// Shared memory of count_in_first_pass: the pass's tile, overlaid by what the block uses only
// before the tile is ranked (its counters, the scan of pass 0's counts); and pass 0's digit
// starts, which the tile reads after its rank.
template <class Tuning, class Key, class Value>
struct first_pass_storage {
  using tile_t = onesweep_tile<first_pass_tuning<Tuning>, Key, Value>;
  using shape = typename tile_t::shape;
  using scan_t = cub::BlockScan<unsigned long long, shape::block_threads>;
  static_assert(shape::block_threads >= shape::digits, "a thread per digit scans pass 0");
  struct counting_storage {
    digit_rows<shape::passes, shape::digits> counters;
    typename scan_t::TempStorage scan;
  };
  union {
    typename tile_t::storage_t tile;
    counting_storage counting;
  };
  std::size_t starts[shape::digits];
  unsigned long long one_digit_passes;  // bit p: every key has one digit in pass p
  bool first_pass_runs;                 // the plan does not skip pass 0
  static_assert(shape::passes <= 64, "a bit per pass");
};

// The plan, by one block, called rather than inlined: its registers would otherwise count
// against every block's tile (spills, ptxas -v).
template <class Tuning, class Key, int Threads>
__device__ __noinline__ void plan_every_pass(const unsigned long long* histograms, std::size_t n,
                                             const unsigned int* canonical_keys, pass_plan* plan,
                                             std::size_t* digit_starts) {
  scan_digit_starts_and_plan<Tuning, Key, Threads>(histograms, n, canonical_keys, 0, plan,
                                                   digit_starts);
}

// One block's tile of the first pass: loaded, counted for every pass, and, once every block's
// counts are in, ranked and scattered as an ordinary tile of pass 0.
template <class Tuning, class Key, class Value>
struct counting_first_tile {
  using storage_t = first_pass_storage<Tuning, Key, Value>;
  using tile_t = typename storage_t::tile_t;
  using shape = typename tile_t::shape;
  using bits_type = typename tile_t::bits_type;
  static constexpr int items = tile_t::items;
  // How the tile loads its bits: from the encoding, unless the type always takes sort bits.
  static constexpr bool loads_sort_bits = tile_t::always_sort_bits;
  static_assert(!tile_t::may_need_sort_bits || !tile_t::template holds_keys<true>,
                "a tile switching to sort bits holds no keys");

  tile_t& tile;
  storage_t& shared;
  int n;
  unsigned long long* histograms;
  unsigned int* canonical_keys;
  pass_plan* plan;
  std::size_t* digit_starts;
  cleared_by_block_zero clearing;  // the histograms and counters, by block 0

  template <bool FullTile>
  __device__ __forceinline__ void run() {
    Key tile_keys[tile_t::template holds_keys<loads_sort_bits> ? items : 1];
    bits_type tile_bits[items];
    tile.template load_tile<FullTile, loads_sort_bits>(tile_keys, tile_bits);
    const bool canonicalised = count(tile_bits);
    // (A grid barrier here instead waited for the slowest block's count: ncu, u32 2^21,
    // 3.5 us of the kernel's 32.)
    clearing.wait();
    shared.counting.counters.add_to(histograms);
    if (canonicalised && threadIdx.x == 0) atomicOr(canonical_keys, 1u);
    cooperative_groups::this_grid().sync();  // every block's counts are in (it fences)
    if (blockIdx.x == 0 && threadIdx.x == 0) clearing.forget();  // every block has waited
    const bool sort_bits = tile_t::may_need_sort_bits && __ldcg(canonical_keys) != 0;
    const bool skipped = !scan_first_pass_starts();
    if (blockIdx.x == gridDim.x - 1)
      plan_every_pass<Tuning, Key, shape::block_threads>(histograms, std::size_t(n),
                                                         canonical_keys, plan, digit_starts);
    if (skipped) return;
    if constexpr (tile_t::may_need_sort_bits) {
      if (sort_bits) {
        take_sort_bits(tile_bits);
        tile.template rank_and_scatter<FullTile, true>(tile_keys, tile_bits);
        return;
      }
    }
    tile.template rank_and_scatter<FullTile, loads_sort_bits>(tile_keys, tile_bits);
  }

  // Key i of the tile (a cache hit: the load just read it).
  __device__ __forceinline__ Key key_at(int i) const {
    return tile.key_source[tile.tile.begin + i];
  }

  // The tile's digits of every pass into the block's counters (padding past a short tile's end
  // left out), from the keys' sort bits; floats also say whether any key's differ from its
  // encoding (the block's answer, to every thread).
  __device__ __forceinline__ bool count(const bits_type (&tile_bits)[items]) {
    bool canonicalised = false;
#pragma unroll
    for (int j = 0; j < items; ++j) {
      const int i = warp_striped_index<items>(j);
      if (i >= tile.tile.count) continue;
      bits_type bits = tile_bits[j];
      if constexpr (tile_t::may_need_sort_bits) {
        const Key key = key_at(i);
        bits = ordered_bits(key, tile.flip);
        canonicalised |= radix_key_traits<Key>::canonicalised(key);
      }
#pragma unroll
      for (int p = 0; p < shape::passes; ++p)
        shared.counting.counters.add(p, digit_of(bits, p, shape::digit_bits));
    }
    return __syncthreads_or(canonicalised);
  }

  // Pass 0's digit starts into shared memory (a thread per digit); false where the plan skips
  // pass 0. Only a pass 0 of one digit may be skipped, so the other passes' counts are read
  // only then (read always, they cost keys-only sorts 2-5 %: bench/results/NOTES.md).
  __device__ __forceinline__ bool scan_first_pass_starts() {
    const int d = int(threadIdx.x);
    // __ldcg: the other blocks' atomics are in L2, not in this SM's L1.
    const unsigned long long first_pass_count = d < shape::digits ? __ldcg(&histograms[d]) : 0;
    unsigned long long start = 0;
    typename storage_t::scan_t(shared.counting.scan).ExclusiveSum(first_pass_count, start);
    if (d < shape::digits) shared.starts[d] = std::size_t(start);
    // The barrier also publishes the starts.
    if (!__syncthreads_or(first_pass_count == (unsigned long long)(n))) return true;
    return first_pass_of_one_digit_runs();
  }

  // Whether the plan runs a pass 0 of one digit (as a copy: plan_passes), which every block
  // works out from every pass's counts, as the planning block does.
  __device__ __forceinline__ bool first_pass_of_one_digit_runs() {
    const int d = int(threadIdx.x);
    unsigned long long one_digit = 1;  // bit p: every key has this thread's digit in pass p
#pragma unroll
    for (int p = 1; p < shape::passes; ++p) {
      const unsigned long long count =
          d < shape::digits ? __ldcg(&histograms[p * shape::digits + d]) : 0;
      if (count == (unsigned long long)(n)) one_digit |= 1ull << p;
    }
    if (one_digit > 1) atomicOr(&shared.one_digit_passes, one_digit);
    __syncthreads();
    if (threadIdx.x == 0) {
      bool single_digit[shape::passes];
      for (int p = 0; p < shape::passes; ++p)
        single_digit[p] = p == 0 || ((shared.one_digit_passes >> p) & 1u);
      shared.first_pass_runs = !plan_passes(single_digit, shape::passes).skip[0];
    }
    __syncthreads();
    return shared.first_pass_runs;
  }

  // Where some key's sort bits differ from its encoding: every tile's digits from sort bits.
  __device__ __forceinline__ void take_sort_bits(bits_type (&tile_bits)[items]) const {
#pragma unroll
    for (int j = 0; j < items; ++j) {
      const int i = warp_striped_index<items>(j);
      if (i < tile.tile.count) tile_bits[j] = ordered_bits(key_at(i), tile.flip);
    }
  }
};

// One block per tile of the whole input (n keys, one portion), every block resident at once
// (a cooperative launch). Tiles are numbered by block: with every block resident, each
// tile's predecessors make progress, which is all the look-back needs.
template <class Tuning, class Key, class Value>
__global__ void __launch_bounds__(Tuning::knobs.block_threads,
                                  onesweep_min_blocks<Tuning, Key, Value>)
    count_in_first_pass(Key* keys, Key* alternate_keys, Value* values, Value* alternate_values,
                        int n, typename radix_shape<Tuning, Key>::bits_type flip,
                        unsigned long long* histograms /* [passes][digits], cleared here */,
                        unsigned int* counters /* [counter_count], cleared here */,
                        int counter_count, unsigned int* canonical_keys /* among them */,
                        unsigned long long* cleared, unsigned long long mark,
                        pass_plan* plan, std::size_t* digit_starts /* [passes][digits] */,
                        std::uint32_t* status /* [tiles][digits], cleared here */,
                        std::uint32_t* next_status /* the next launch's, zeroed here */,
                        int next_tiles) {
  using first_tile_t = counting_first_tile<Tuning, Key, Value>;
  using tile_t = typename first_tile_t::tile_t;
  using shape = typename tile_t::shape;
  auto& shared = block_shared<typename first_tile_t::storage_t>();
  clear_next_look_back_table(next_status, next_tiles, shape::digits);
  // What the sort's memset clears where the histogram kernel counts, cleared here instead
  // (saving that memset's launch before this one): each tile's look-back row by its own block
  // before the grid barrier, and the histograms and counters by block 0 (first_tile_t).
  for (int d = threadIdx.x; d < shape::digits; d += blockDim.x)
    status[std::size_t(blockIdx.x) * shape::digits + d] = 0;
  shared.counting.counters.clear();
  if (threadIdx.x == 0) shared.one_digit_passes = 0;
  __syncthreads();

  tile_t tile{shared.tile,
              keys,
              alternate_keys,
              values,
              alternate_values,
              flip,
              0,
              int(blockIdx.x),
              int(gridDim.x),
              tile_of(blockIdx.x, shape::tile_items, std::size_t(n)),
              status,
              shared.starts,
              nullptr};
  const cleared_by_block_zero clearing{cleared, mark};
  first_tile_t first{tile, shared, n, histograms, canonical_keys, plan, digit_starts, clearing};
  if (blockIdx.x == 0)
    clearing.clear_then_mark(histograms, shape::passes * shape::digits, counters, counter_count);
  if (tile.tile.count == shape::tile_items)
    first.template run<true>();
  else
    first.template run<false>();
}

// How many blocks count_in_first_pass takes for n keys (and values) on the current device:
// one per tile where every tile is resident at once and the device launches cooperatively,
// else 0 (the histogram kernel counts).
// Also allows the kernel its shared memory there.
template <class Tuning, class Key, class Value>
unsigned first_pass_counting_grid(std::size_t n) {
  using storage_t = first_pass_storage<Tuning, Key, Value>;
  using shape = typename storage_t::shape;
  constexpr auto kernel = count_in_first_pass<Tuning, Key, Value>;
  // The block may take more than every GPU gives one (8-byte pairs' tiles with pass 0's
  // starts beside them): where this device's blocks do not hold it, the histogram counts.
  const detail::device_facts& device = detail::current_device_facts();
  if (!device.cooperative_launch ||
      sizeof(storage_t) > std::size_t(device.shared_bytes_per_block_optin))
    return 0;
  allowed_dynamic_shared_bytes<kernel, storage_t, true>(
      "radix sort: allowing the counting first pass its shared memory");
  const std::size_t tiles = tile_count(n, shape::tile_items);
  const unsigned grid =
      resident_grid<kernel, shape::block_threads, dynamic_shared_bytes<storage_t>>(tiles);
  return grid == tiles ? grid : 0;
}

// Launches count_in_first_pass for a one-portion sort of n keys on `stream` where it takes
// the first pass here (first_pass_counting_grid), as launch 0: look-back table `status`,
// clearing `next_status` for `next_tiles`; false (nothing launched) where not.
template <class Tuning, class Key, class Value>
bool launch_count_in_first_pass(Key* keys, Key* alternate_keys, Value* values,
                                Value* alternate_values, std::size_t n,
                                typename radix_shape<Tuning, Key>::bits_type flip,
                                unsigned long long* histograms, unsigned int* counters,
                                int counter_count, unsigned int* canonical_keys,
                                unsigned long long* cleared, pass_plan* plan, std::size_t* digit_starts,
                                std::uint32_t* status, std::uint32_t* next_status,
                                std::size_t next_tiles, cudaStream_t stream) {
  using storage_t = first_pass_storage<Tuning, Key, Value>;
  const unsigned grid = first_pass_counting_grid<Tuning, Key, Value>(n);
  if (grid == 0) return false;
  launch_cooperative(count_in_first_pass<Tuning, Key, Value>, grid,
                     storage_t::shape::block_threads,
                     std::size_t(dynamic_shared_bytes<storage_t>), stream,
                     "radix sort: count_in_first_pass", keys, alternate_keys, values,
                     alternate_values, int(n), flip, histograms, counters, counter_count,
                     canonical_keys, cleared, next_clearing_mark(), plan, digit_starts, status,
                     next_status, int(next_tiles));
  return true;
}

}  // namespace gpusort::backends::radix
