// The distributed sort takes every key type and comparator the single-GPU policies take:
// floats with NaNs and signed zeros, 64-bit and 16-bit integers, descending doubles, and a
// user struct with its own comparator (sorted locally by the merge backend).
#include "rank_fixture.cuh"

namespace gpusort::test {
namespace {

using DistributedTypes = RankTest;

TEST_P(DistributedTypes, FloatSpecialsKeysAndPairs) {
  const auto inputs = rank_inputs<float>(rank_count_shapes(ranks())[1],
                                         distribution::float_specials, 11);
  expect_distributed_sort<call::stable_sort_by_key>(comms, inputs, less<>{},
                                                    reference_order<float>{false});
  expect_distributed_sort<call::sort>(comms, inputs, less<>{}, reference_order<float>{false});
}

TEST_P(DistributedTypes, SixtyFourBitKeys) {
  for (distribution d : {distribution::uniform, distribution::narrow_range})
    expect_distributed_sort<call::stable_sort_by_key>(
        comms, rank_inputs<std::uint64_t>(rank_count_shapes(ranks())[0], d, 12), less<>{},
        reference_order<std::uint64_t>{false});
}

TEST_P(DistributedTypes, SixteenBitSignedKeys) {
  expect_distributed_sort<call::stable_sort>(
      comms, rank_inputs<std::int16_t>(rank_count_shapes(ranks())[2], distribution::uniform, 13),
      less<>{}, reference_order<std::int16_t>{false});
}

TEST_P(DistributedTypes, DescendingDoubles) {
  expect_distributed_sort<call::sort_by_key>(
      comms, rank_inputs<double>(rank_count_shapes(ranks())[4], distribution::uniform, 14),
      greater<>{}, reference_order<double>{true});
}

struct reading {
  std::uint32_t sensor;
  float value;
};
struct by_sensor {
  __host__ __device__ bool operator()(const reading& a, const reading& b) const {
    return a.sensor < b.sensor;
  }
};

TEST_P(DistributedTypes, UserStructWithItsComparator) {
  std::vector<std::vector<reading>> inputs;
  std::mt19937_64 random(15);
  const auto shapes = rank_count_shapes(ranks());  // a range-for over [1] of a temporary dangles
  for (std::size_t count : shapes[1]) {
    std::vector<reading> input(count);
    for (reading& r : input) r = {std::uint32_t(random() % 1000), float(random() % 100000)};
    inputs.push_back(input);
  }
  expect_distributed_sort<call::stable_sort_by_key>(comms, inputs, by_sensor{}, by_sensor{});
}

// Not a strict weak ordering: whatever the searches find, the ranks must agree on failing
// (all throw) or on going on (none does); one rank left in a collective would hang the rest.
// Where none throws the result is unspecified: CUB's merge of the received runs may even
// fault (README says so), so the device's state is not checked here.
struct parity_differs {
  __host__ __device__ bool operator()(std::uint32_t a, std::uint32_t b) const {
    return ((a ^ b) & 1u) != 0;
  }
};

TEST_P(DistributedTypes, ABrokenComparatorFailsOnEveryRankOrNone) {
  const auto inputs = rank_inputs<std::uint32_t>(rank_count_shapes(ranks())[0],
                                                 distribution::uniform, 16);
  std::vector<int> threw(comms.size(), 0);
  on_every_rank(comms, [&](int r) {
    device_array<std::uint32_t> keys(inputs[r]);
    try {
      distributed::sort(comms[r], keys.begin(), keys.end(), parity_differs{});
    } catch (const gpusort::error& e) {
      threw[r] = 1;
      EXPECT_NE(std::string(e.what()).find("strict weak ordering"), std::string::npos) << e.what();
    }
  });
  for (std::size_t r = 1; r < comms.size(); ++r) EXPECT_EQ(threw[r], threw[0]) << "rank " << r;
}

INSTANTIATE_TEST_SUITE_P(Ranks, DistributedTypes, every_rank_setup(), rank_setup_name);

}  // namespace
}  // namespace gpusort::test
