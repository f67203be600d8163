// Equal-width buckets of value for floating-point keys, which the first partition level may
// take instead of buckets of bit patterns (buckets.cuh) when a sample says they are lighter.
//
// Why: a float's bit patterns crowd toward the top of each binade, so keys spread evenly over
// [-1e6, 1e6) put about a quarter of themselves in the few bit-space buckets of the top binade
// on each side, and those buckets need a third partition level. Buckets of value are even
// there. Bit space stays right for keys spread over many orders of magnitude, where equal
// widths of value would put nearly every key in bucket 0 (choose_first_level_bits decides).
//
// Why it is safe: a sorted order needs only that the bucket never decreases as the keys'
// ordered bits grow. For finite keys that order is the numeric one (-0.0 and +0.0 are equal
// here, and one bucket holds both); the bucket is |key - low| * scale, rounded down and capped,
// and each step (a subtraction, an absolute value against a key at one end of the range, a
// product with a positive scale, a cap) is monotonic under round-to-nearest. No bucket is empty
// of range either way, so nothing else depends on the widths being exact. A level of value
// buckets need not narrow any bucket's range of bit patterns, so the sort adds a partition
// level after it (dispatch.cuh: plan_sort).
#pragma once

#include <cmath>

namespace gpusort::backends::bucket_bitonic {

// 2^bits buckets between `low` and the other end of the range. For a descending sort `low` is
// the largest key and the distances run the other way: the absolute value takes both.
template <class Float>
struct value_buckets {
  Float low;
  Float scale;  // buckets per unit of value: 2^bits / |high - low|
  unsigned last;

  __host__ __device__ __forceinline__ unsigned operator()(Float key) const {
    const Float position = (key < low ? low - key : key - low) * scale;
    return position < Float(last) ? unsigned(position) : last;
  }
};

// Value buckets of [low, high] (either order) in 2^bits buckets, if every distance and
// position is finite: both ends finite, their distance finite and nonzero, and the scale
// finite (a range of a few denormals has none). Keys between the ends are then finite too.
template <class Float>
__host__ __device__ bool make_value_buckets(Float low, Float high, int bits,
                                            value_buckets<Float>& buckets) {
  using std::isfinite;
  if (!isfinite(low) || !isfinite(high)) return false;
  const Float range = low < high ? high - low : low - high;
  if (!isfinite(range) || !(range > Float(0))) return false;
  const Float scale = Float(1u << bits) / range;
  if (!isfinite(scale)) return false;
  buckets = {low, scale, (1u << bits) - 1};
  return true;
}

}  // namespace gpusort::backends::bucket_bitonic
