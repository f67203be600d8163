// The radix backend's correctness suite, written once and instantiated per key-type group
// in separate translation units (so each TU compiles a few kernels, in parallel).
#pragma once

#include "../support/gpu.cuh"
#include "../support/sort_checks.cuh"

#include <gpusort/sort.cuh>

namespace gpusort::test {

template <class Key>
class RadixSort : public GpuTest {};
TYPED_TEST_SUITE_P(RadixSort);

TYPED_TEST_P(RadixSort, KeysMatchStdStableSort) {
  sweep_keys<TypeParam>(gpusort::radix);
}

TYPED_TEST_P(RadixSort, PairsAreStableWithIndexPayloads) {
  sweep_pairs<TypeParam>(gpusort::radix);
}

TYPED_TEST_P(RadixSort, LargeUniformInput) {
  for (bool descending : {false, true}) {
    expect_sorts_keys<TypeParam>(gpusort::radix, big_size, distribution::uniform, descending, 7);
    expect_sorts_pairs<TypeParam>(gpusort::radix, big_size, distribution::uniform, descending, 8);
  }
}

// par picks by size: the cluster sort's tilings at small sizes (merge for some integer
// widths), the one-sweep sort above; each must give the radix order bit for bit.
TYPED_TEST_P(RadixSort, ParSortsRadixKeysTheSameWayAtEverySize) {
  for (std::size_t n : capped({2, 1000, 4097, 40000, 100003, 300007}))
    for (bool descending : {false, true}) {
      expect_sorts_keys<TypeParam>(gpusort::par, n, distribution::few_distinct, descending, 9);
      expect_sorts_pairs<TypeParam>(gpusort::par, n, distribution::uniform, descending, 10);
    }
}

REGISTER_TYPED_TEST_SUITE_P(RadixSort, KeysMatchStdStableSort, PairsAreStableWithIndexPayloads,
                            LargeUniformInput, ParSortsRadixKeysTheSameWayAtEverySize);

}  // namespace gpusort::test
