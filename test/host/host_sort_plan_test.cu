// The pinned-host sort's planning, without a GPU: what a shard of n elements needs on its
// GPU stays within the limit the shard was sized for, shards cover the array, and an array
// the GPUs cannot hold is refused before anything is copied.
#include <gpusort/distributed/detail/host_sort_plan.cuh>

#include <gtest/gtest.h>

#include <cstddef>
#include <string>

namespace {

namespace host = gpusort::distributed::detail;

TEST(HostSortPlan, AShardOfTheCapacityFitsTheBudget) {
  for (std::size_t element_bytes : {1u, 2u, 4u, 8u, 12u, 16u})
    for (std::size_t budget : {std::size_t(1) << 19, std::size_t(12) << 20, std::size_t(1) << 30,
                               std::size_t(130) << 30}) {
      const std::size_t capacity = host::shard_capacity(budget, element_bytes);
      EXPECT_LE(host::shard_device_bytes(capacity, element_bytes), budget)
          << element_bytes << " B elements, budget " << budget;
      // Not wasteful: 1 % more elements would not fit.
      EXPECT_GT(host::shard_device_bytes(capacity + capacity / 100 + 1, element_bytes), budget)
          << element_bytes << " B elements, budget " << budget;
    }
  EXPECT_EQ(host::shard_capacity(1000, 4), 0u);  // below the fixed part: nothing fits
}

TEST(HostSortPlan, ShardsCoverTheArrayWithinEachLimit) {
  const auto policy = gpusort::distributed::pinned_host.devices({0}).device_memory_limit(64 << 20);
  const std::size_t capacity = host::shard_capacity(64 << 20, 8);
  for (std::size_t n : {std::size_t(2), std::size_t(1000), capacity}) {
    const auto plan = host::plan_shards(policy, n, 8);
    ASSERT_EQ(plan.size(), 1u);  // host tests build without NCCL: one GPU
    EXPECT_EQ(plan[0].device, 0);
    EXPECT_EQ(plan[0].begin, 0u);
    EXPECT_EQ(plan[0].count, n);
    EXPECT_EQ(plan[0].limit_bytes, std::size_t(64) << 20);
  }
}

TEST(HostSortPlan, TooLargeIsRefusedSayingWhatItNeeds) {
  const auto policy = gpusort::distributed::pinned_host.devices({0}).device_memory_limit(1 << 20);
  const std::size_t n = host::shard_capacity(1 << 20, 4) + 1;
  try {
    host::plan_shards(policy, n, 4);
    ADD_FAILURE() << "expected gpusort::error";
  } catch (const gpusort::error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(std::to_string(n) + " elements"), std::string::npos) << what;
    EXPECT_NE(what.find("untouched"), std::string::npos) << what;
  }
}

}  // namespace
