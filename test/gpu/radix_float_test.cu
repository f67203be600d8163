#include "radix_sort_tests.cuh"

#include <limits>

namespace gpusort::test {
using FloatKeys = ::testing::Types<float, double>;
INSTANTIATE_TYPED_TEST_SUITE_P(Float, RadixSort, FloatKeys);

// The one-sweep passes move floats the fast way (digits from their encoding) unless the
// histogram pass saw a -0.0 or a NaN. One such key anywhere (first, in a middle tile, last)
// among ordinary ones must switch every pass of the sort to sort bits: else the passes'
// digits disagree with the histograms and keys are lost.
template <class Key>
class RadixOneSpecialFloat : public GpuTest {};
TYPED_TEST_SUITE(RadixOneSpecialFloat, FloatKeys);

TYPED_TEST(RadixOneSpecialFloat, AnywhereSwitchesTheWholeSortToSortBits) {
  using Key = TypeParam;
  const Key specials[] = {-Key(0), std::numeric_limits<Key>::quiet_NaN(),
                          -std::numeric_limits<Key>::quiet_NaN()};
  for (std::size_t n : capped({30011, (std::size_t(1) << 20) + 17}))
    for (distribution d : {distribution::uniform, distribution::narrow_range})
      for (Key special : specials)
        for (std::size_t at : {std::size_t(0), n / 2 + 3, n - 1})
          for (bool descending : {false, true}) {
            std::vector<Key> keys = make_keys<Key>(n, d, 31 + at);
            for (Key& key : keys)
              if (key == Key(0)) key = Key(0);  // +0.0 only: the inserted key is the one special
            keys[at] = special;
            SCOPED_TRACE(describe<Key>(n, d, descending, 31 + at) + ", " + key_text(special) +
                         " at " + std::to_string(at));
            if (descending)
              expect_sorts_keys_by<false>(gpusort::radix, keys, gpusort::greater<>{},
                                          reference_order<Key>{true}, guarantee::stable);
            else
              expect_sorts_keys_by<false>(gpusort::radix, keys, gpusort::less<>{},
                                          reference_order<Key>{false}, guarantee::stable);
          }
}

}  // namespace gpusort::test
