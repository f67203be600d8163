// The merge backend on wide keys, where the shapes shrink to fit shared memory: a 40-byte
// key gets 2 keys per thread in the bitonic tile (512-key tiles) and 7 per thread in the
// merges; a 128-byte key gets 1 per thread (every exchange crosses threads) and 2 per
// thread in the merges. The payload fields carry the input position, so stability and any
// key lost or duplicated show in the keys alone.
#include "merge_sort_tests.cuh"

#include <cstdint>
#include <cstring>
#include <ostream>
#include <random>
#include <tuple>
#include <type_traits>
#include <vector>

namespace gpusort::test {
namespace {

template <int Bytes>
struct wide_key {
  std::uint64_t group;
  std::uint32_t rank;
  std::uint32_t position;  // input position: payload, not part of the order
  unsigned char filler[Bytes - 16];
};

template <int Bytes>
std::ostream& operator<<(std::ostream& s, const wide_key<Bytes>& k) {
  return s << "{group " << k.group << ", rank " << k.rank << ", position " << k.position << "}";
}

struct by_group_then_rank {
  template <class Key>
  __host__ __device__ bool operator()(const Key& a, const Key& b) const {
    if (a.group != b.group) return a.group < b.group;
    return a.rank < b.rank;
  }
};

template <int Bytes>
struct wide_case : merge_case_defaults {
  using key = wide_key<Bytes>;
  using compare = by_group_then_rank;
  static_assert(sizeof(key) == Bytes && std::is_trivially_copyable_v<key>);
  static std::string name() { return "wide" + std::to_string(Bytes) + "_by_group_then_rank"; }
  static bool reference(const key& a, const key& b) {
    return std::tie(a.group, a.rank) < std::tie(b.group, b.rank);
  }
  // Few groups and ranks, so ties are common; the filler is noise that must travel along.
  static key random_key(std::mt19937_64& rng) {
    key k{};
    k.group = rng() % 64;
    k.rank = std::uint32_t(rng() % 512);
    for (auto& byte : k.filler) byte = static_cast<unsigned char>(rng());
    return k;
  }
  static std::vector<key> make_keys(std::size_t n, distribution d, std::uint64_t seed) {
    std::vector<key> keys = make_keys_from<key>(n, d, seed, random_key, reference);
    for (std::size_t i = 0; i < n; ++i) keys[i].position = std::uint32_t(i);
    return keys;
  }
};

}  // namespace

using WideCases = ::testing::Types<wide_case<40>, wide_case<128>>;
INSTANTIATE_TYPED_TEST_SUITE_P(Wide, MergeSort, WideCases, merge_case_name);

}  // namespace gpusort::test
