// A key type of the user's own, made radix-sortable by naming its members: the bucket
// partition runs on 48 bits of key (a signed 16-bit member, then a float), not a power of two.
#include "../support/gpu.cuh"
#include "../support/sort_checks.cuh"

#include <gpusort/sort.cuh>

#include <cstdint>
#include <random>
#include <vector>

namespace gpusort::test {

// No padding: the checks compare keys byte for byte.
struct reading {
  std::int16_t station;   // key, most significant
  std::uint16_t channel;  // payload
  float level;            // key: NaNs last, -0.0 == +0.0
  std::uint32_t id;       // payload: the input position
};
static_assert(sizeof(reading) == 12, "reading has no padding");

}  // namespace gpusort::test

template <>
struct gpusort::radix_key_traits<gpusort::test::reading>
    : gpusort::radix_members<&gpusort::test::reading::station, &gpusort::test::reading::level> {};

namespace gpusort::test {
// A key whose traits name unsigned long long as its bits (another type than std::uint64_t
// where that is unsigned long): the sort units' 64-bit words take either.
struct ticket {
  unsigned long long number;
};
}  // namespace gpusort::test

template <>
struct gpusort::radix_key_traits<gpusort::test::ticket> {
  using bits_type = unsigned long long;
  static constexpr int bits = 64;
  __host__ __device__ static bits_type sort_bits(const gpusort::test::ticket& key) {
    return key.number;
  }
};

namespace gpusort::test {
namespace {

class BucketBitonicUserKey : public GpuTest {};

bool by_station_then_level(const reading& a, const reading& b) {
  if (a.station != b.station) return a.station < b.station;
  return reference_less(a.level, b.level);
}
bool by_station_then_level_descending(const reading& a, const reading& b) {
  return by_station_then_level(b, a);
}

// A few dozen stations either side of 0 (many keys share one), levels with NaNs, infinities
// and signed zeros.
std::vector<reading> make_readings(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<reading> readings(n);
  for (std::size_t i = 0; i < n; ++i)
    readings[i] = {std::int16_t(int(rng() % 61) - 30), std::uint16_t(rng()),
                   special_float<float>(rng), std::uint32_t(i)};
  return readings;
}

TEST_F(BucketBitonicUserKey, SortsByTheNamedMembersBothWays) {
  for (std::size_t n : capped({2, 4097, 100003, (std::size_t(1) << 20) + 7})) {
    const std::vector<reading> readings = make_readings(n, n);
    {
      SCOPED_TRACE(describe(n, distribution::uniform, "ascending", n, sizeof(reading)));
      expect_sorts_keys_by<false>(gpusort::bucket_bitonic, readings, gpusort::less<>{},
                                  by_station_then_level, guarantee::unstable);
      expect_sorts_pairs_by<false>(gpusort::bucket_bitonic, readings, gpusort::less<>{},
                                   by_station_then_level, guarantee::unstable);
    }
    {
      SCOPED_TRACE(describe(n, distribution::uniform, "descending", n, sizeof(reading)));
      expect_sorts_keys_by<false>(gpusort::bucket_bitonic, readings, gpusort::greater<>{},
                                  by_station_then_level_descending, guarantee::unstable);
      expect_sorts_pairs_by<false>(gpusort::bucket_bitonic, readings, gpusort::greater<>{},
                                   by_station_then_level_descending, guarantee::unstable);
    }
    if (HasFailure()) return;
  }
}

bool by_number(const ticket& a, const ticket& b) { return a.number < b.number; }

TEST_F(BucketBitonicUserKey, SortsAKeyWhoseBitsAreUnsignedLongLong) {
  for (std::size_t n : capped({2, 2049, 100003})) {
    SCOPED_TRACE(describe(n, distribution::uniform, "ascending", n, sizeof(ticket)));
    std::mt19937_64 rng(n);
    std::vector<ticket> tickets(n);
    for (ticket& t : tickets) t.number = rng() % 1000000007ull * 18446744073ull;
    expect_sorts_keys_by<false>(gpusort::bucket_bitonic, tickets, gpusort::less<>{}, by_number,
                                guarantee::unstable);
    expect_sorts_pairs_by<false>(gpusort::bucket_bitonic, tickets, gpusort::less<>{}, by_number,
                                 guarantee::unstable);
    if (HasFailure()) return;
  }
}

}  // namespace
}  // namespace gpusort::test
