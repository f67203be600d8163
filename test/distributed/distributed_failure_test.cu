// How the distributed sort fails on two ranks without leaving a rank waiting forever: a
// rank that cannot allocate its control block tells the others, and every rank throws with
// its data as it was; a rank whose peer never calls gives up at the communicator's timeout
// with an error that says so. Each test makes its own NCCL communicators and aborts them at
// the end, since a timeout revokes them.
#include "distributed_checks.cuh"

#include "../support/allocators.cuh"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

namespace gpusort::test {
namespace {

#if GPUSORT_WITH_NCCL
// Two ranks' communicators that the test owns: aborted (never waiting on a peer) when it ends.
class owned_pair {
 public:
  owned_pair() {
    int visible = 0;
    if (cudaGetDeviceCount(&visible) != cudaSuccess || visible < 2) return;
    const int devices[2] = {0, 1};
    if (ncclCommInitAll(raw_, 2, devices) != ncclSuccess) return;
    comms.emplace_back(raw_[0]);
    comms.emplace_back(raw_[1]);
  }
  ~owned_pair() {
    comms.clear();
    for (int r = 0; r < 2; ++r) abort(r);
  }
  // Stops rank r's collectives in flight and frees its communicator.
  void abort(int r) {
    if (raw_[r] != nullptr) ncclCommAbort(raw_[r]);
    raw_[r] = nullptr;
  }
  owned_pair(const owned_pair&) = delete;
  owned_pair& operator=(const owned_pair&) = delete;

  std::vector<communicator> comms;

 private:
  ncclComm_t raw_[2] = {nullptr, nullptr};
};

// What each of the two ranks threw (empty where nothing) and held afterwards.
struct rank_outcomes {
  std::vector<std::string> errors = std::vector<std::string>(2);
  std::vector<std::vector<std::uint32_t>> keys = std::vector<std::vector<std::uint32_t>>(2);
};

// Both ranks sort their inputs, rank 1 through `rank_one_allocator`, rank 0 with gpusort's
// own memory.
template <class Allocator>
rank_outcomes sort_with_rank_one_allocator(const std::vector<communicator>& comms,
                                           const std::vector<std::vector<std::uint32_t>>& inputs,
                                           Allocator& rank_one_allocator) {
  rank_outcomes outcomes;
  on_every_rank(comms, [&](int r) {
    device_array<std::uint32_t> keys(inputs[r]);
    try {
      if (r == 1)
        distributed::sort(comms[r], par.with_allocator(rank_one_allocator), keys.begin(),
                          keys.end());
      else
        distributed::sort(comms[r], keys.begin(), keys.end());
    } catch (const gpusort::error& e) {
      outcomes.errors[r] = e.what();
    }
    outcomes.keys[r] = keys.to_host();
  });
  return outcomes;
}

// Two ranks with fresh communicators: a timeout revokes them, so no test shares them.
class DistributedFailure : public testing::Test {
 protected:
  void SetUp() override {
    if (pair.comms.empty()) GTEST_SKIP() << "two ranks need two GPUs and NCCL";
    // Far beyond a test's run, but a hang fails the test rather than the whole run.
    for (communicator& c : pair.comms) c.set_timeout(std::chrono::seconds(60));
  }

  owned_pair pair;
};

TEST_F(DistributedFailure, ARankWithoutMemoryForItsControlBlockFailsEveryRank) {
  const auto inputs = rank_inputs<std::uint32_t>({100003, 65521}, distribution::uniform, 5);
  refusing_allocator refusing;
  const rank_outcomes out = sort_with_rank_one_allocator(pair.comms, inputs, refusing);
  EXPECT_NE(out.errors[0].find("rank 1 failed to allocate"), std::string::npos) << out.errors[0];
  EXPECT_NE(out.errors[1].find("allocator returned null"), std::string::npos) << out.errors[1];
  for (int r = 0; r < 2; ++r) expect_same_bits(out.keys[r], inputs[r], "rank's keys");
}

// Gives out the first `allowed` blocks (cudaMalloc'd), then none.
struct allocator_that_runs_out {
  int allowed;
  counting_allocator memory;
  void* allocate(std::size_t bytes, cudaStream_t stream) {
    return memory.allocations < allowed ? memory.allocate(bytes, stream) : nullptr;
  }
  void deallocate(void* p, std::size_t bytes, cudaStream_t stream) {
    memory.deallocate(p, bytes, stream);
  }
};

TEST_F(DistributedFailure, ARankThatCannotSortLocallyFailsEveryRank) {
  const auto inputs = rank_inputs<std::uint32_t>({1000003, 999983}, distribution::uniform, 6);
  allocator_that_runs_out control_block_only{1, {}};  // the local sort's storage is refused
  const rank_outcomes out = sort_with_rank_one_allocator(pair.comms, inputs, control_block_only);
  EXPECT_NE(out.errors[0].find("1 other rank(s) failed to sort locally"), std::string::npos)
      << out.errors[0];
  EXPECT_NE(out.errors[1].find("allocator returned null"), std::string::npos) << out.errors[1];
  expect_same_bits(out.keys[1], inputs[1], "the failing rank's keys");
  std::vector<std::uint32_t> sorted = inputs[0];
  std::sort(sorted.begin(), sorted.end());
  expect_same_bits(out.keys[0], sorted, "the other rank's keys, sorted locally");
}

TEST_F(DistributedFailure, ARankWhosePeerNeverCallsGivesUpAtItsTimeout) {
  // One sort on both ranks first: NCCL connects the ranks at their first collectives, on the
  // host, where no timeout reaches.
  expect_distributed_sort<call::sort>(
      pair.comms, rank_inputs<std::uint32_t>({5003, 7001}, distribution::uniform, 8),
      less<>{}, reference_order<std::uint32_t>{false});
  pair.comms[0].set_timeout(std::chrono::milliseconds(1500));
  const std::vector<std::uint32_t> input =
      make_keys<std::uint32_t>(70001, distribution::uniform, 9);
  std::string error;
  std::vector<std::uint32_t> after;
  double waited_s = 0;
  // Rank 1 never calls.
  on_every_rank({pair.comms[0]}, [&](int) {
    device_array<std::uint32_t> keys(input);
    const auto start = std::chrono::steady_clock::now();
    try {
      distributed::sort(pair.comms[0], keys.begin(), keys.end());
    } catch (const gpusort::error& e) {
      error = e.what();
    }
    waited_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    // Without ncclCommRevoke the collective is still in flight on the stream: abort it, as
    // the error says, before the stream is used again.
    if (distributed::detail::nccl_revoke() == nullptr) pair.abort(0);
    after = keys.to_host();
  });
  EXPECT_NE(error.find("waited 1500 ms on rank 0 for the other ranks to gather the counts"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find(distributed::detail::nccl_revoke() != nullptr ? "is revoked"
                                                                     : "ncclCommAbort"),
            std::string::npos)
      << error;
  EXPECT_GE(waited_s, 1.5);
  EXPECT_LT(waited_s, 30.0);
  expect_same_bits(after, input, "keys");
}

#else
TEST(DistributedFailure, NeedsNccl) {
  GTEST_SKIP() << "built without NCCL (gpusort::distributed was not found by CMake)";
}
#endif

TEST(Communicator, ATimeoutMustBePositive) {
  communicator solo = communicator::solo(0);
  EXPECT_THROW(solo.set_timeout(std::chrono::milliseconds(0)), gpusort::error);
  solo.set_timeout(std::chrono::seconds(5));
  EXPECT_EQ(solo.timeout(), std::chrono::milliseconds(5000));
}

}  // namespace
}  // namespace gpusort::test
