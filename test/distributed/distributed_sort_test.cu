// The distributed sort of u32 keys and u32+u32 pairs on 1, 2 and 4 ranks (those the machine
// has): every call, uneven counts with empty ranks, and the reliability issue's
// distributions, against std::stable_sort of everything in rank order; and the profiling
// events it records between its steps.
#include "rank_fixture.cuh"

#include <algorithm>

namespace gpusort::test {
namespace {

using DistributedSort = RankTest;

std::vector<distribution> every_distribution() {
  std::vector<distribution> all = distributions_for<std::uint32_t>();
  for (distribution d : skewed_distributions_for<std::uint32_t>()) all.push_back(d);
  return all;
}

TEST_P(DistributedSort, StableSortByKeyMatchesStdStableSortForEveryShapeAndDistribution) {
  std::uint64_t seed = 1;
  for (const auto& counts : rank_count_shapes(ranks()))
    for (distribution d : every_distribution()) {
      SCOPED_TRACE(testing::Message() << name_of(d) << " counts[0]=" << counts[0]);
      expect_distributed_sort<call::stable_sort_by_key>(
          comms, rank_inputs<std::uint32_t>(counts, d, seed++), less<>{},
          reference_order<std::uint32_t>{false});
    }
}

TEST_P(DistributedSort, EveryCallSortsUniformAndDuplicateHeavyKeys) {
  std::uint64_t seed = 100;
  for (const auto& counts : rank_count_shapes(ranks()))
    for (distribution d : {distribution::uniform, distribution::all_equal, distribution::few_distinct}) {
      SCOPED_TRACE(testing::Message() << name_of(d) << " counts[0]=" << counts[0]);
      const auto inputs = rank_inputs<std::uint32_t>(counts, d, seed++);
      const reference_order<std::uint32_t> ascending{false};
      expect_distributed_sort<call::sort>(comms, inputs, less<>{}, ascending);
      expect_distributed_sort<call::stable_sort>(comms, inputs, less<>{}, ascending);
      expect_distributed_sort<call::sort_by_key>(comms, inputs, less<>{}, ascending);
    }
}

TEST_P(DistributedSort, DescendingOrder) {
  const auto inputs = rank_inputs<std::uint32_t>(rank_count_shapes(ranks())[1],
                                                 distribution::few_distinct, 7);
  expect_distributed_sort<call::stable_sort_by_key>(comms, inputs, greater<>{},
                                                    reference_order<std::uint32_t>{true});
}

TEST_P(DistributedSort, AllEqualKeysStayBalanced) {
  // Every rank keeps its count even when one key value is everywhere: ties are cut by
  // rank and position, not sent to one rank.
  std::vector<std::size_t> counts(ranks(), 100000);
  expect_distributed_sort<call::stable_sort>(
      comms, rank_inputs<std::uint32_t>(counts, distribution::all_equal, 3), less<>{},
      reference_order<std::uint32_t>{false});
}

TEST_P(DistributedSort, StepEventsAreRecordedInStepOrder) {
  if (ranks() == 1) GTEST_SKIP() << "one rank records no step events: it only sorts locally";
  const auto inputs = rank_inputs<std::uint32_t>(std::vector<std::size_t>(ranks(), 100003),
                                                 distribution::uniform, 11);
  on_every_rank(comms, [&](int r) {
    device_array<std::uint32_t> keys(inputs[r]);
    cudaEvent_t marks[5];
    for (cudaEvent_t& mark : marks) ASSERT_EQ(cudaEventCreate(&mark), cudaSuccess);
    const distributed::step_events events{marks[0], marks[1], marks[2], marks[3], marks[4]};
    distributed::sort(comms[r], par, keys.begin(), keys.end(), less<>{}, events);
    ASSERT_EQ(cudaEventSynchronize(events.merged), cudaSuccess);
    for (int step = 0; step < 4; ++step) {
      float ms = -1;
      EXPECT_EQ(cudaEventElapsedTime(&ms, marks[step], marks[step + 1]), cudaSuccess)
          << "rank " << r << " step " << step;
      EXPECT_GE(ms, 0.0f) << "rank " << r << " step " << step;
    }
    for (cudaEvent_t mark : marks) cudaEventDestroy(mark);
  });
}

// Keys with many ties inside the brackets (a thousand values), so that the cut search
// inside them breaks ties by rank and position; the partition-first way must have run
// where it was asked for, and not where it was not.
TEST_P(DistributedSort, PartitionFirstRunsWhereAskedAndKeepsTheStableOrder) {
  if (ranks() == 1) GTEST_SKIP() << "one rank only sorts locally";
  std::vector<std::vector<std::uint32_t>> inputs = rank_inputs<std::uint32_t>(
      std::vector<std::size_t>(ranks(), 200003), distribution::uniform, 21);
  for (auto& keys : inputs)
    for (std::uint32_t& key : keys) key %= 1000;
  const std::uint64_t runs_before = distributed::detail::partition_first_runs();
  expect_distributed_sort<call::stable_sort_by_key>(comms, inputs, less<>{},
                                                    reference_order<std::uint32_t>{false});
  expect_distributed_sort<call::sort_by_key>(comms, inputs, less<>{},
                                             reference_order<std::uint32_t>{false});
  const std::uint64_t runs = distributed::detail::partition_first_runs() - runs_before;
  if (GetParam().way == sort_way::partition_first)
    EXPECT_EQ(runs, std::uint64_t(2 * ranks()));
  else
    EXPECT_EQ(runs, 0u);
}

// Brackets that touch (every key equal) send every rank the sort-first way, and the
// result is still the stable order.
TEST_P(DistributedSort, TouchingBracketsFallBackToSortingFirst) {
  if (ranks() == 1) GTEST_SKIP() << "one rank only sorts locally";
  const std::uint64_t runs_before = distributed::detail::partition_first_runs();
  expect_distributed_sort<call::stable_sort_by_key>(
      comms, rank_inputs<std::uint32_t>(std::vector<std::size_t>(ranks(), 50021),
                                        distribution::all_equal, 22),
      less<>{}, reference_order<std::uint32_t>{false});
  EXPECT_EQ(distributed::detail::partition_first_runs(), runs_before);
}

// The ranks of one process exchange by peer copies where their GPUs reach each other, and
// through NCCL where that is asked for; the partition-first way always uses NCCL.
TEST_P(DistributedSort, TheExchangeTakesTheWayAsked) {
  if (ranks() == 1) GTEST_SKIP() << "one rank exchanges nothing";
  const std::uint64_t before = distributed::detail::peer_exchanges();
  expect_distributed_sort<call::sort_by_key>(
      comms, rank_inputs<std::uint32_t>(std::vector<std::size_t>(ranks(), 30011),
                                        distribution::uniform, 23),
      less<>{}, reference_order<std::uint32_t>{false});
  const bool by_peer_copies = GetParam().way == sort_way::sort_first && comms[0].in_one_process();
  EXPECT_EQ(distributed::detail::peer_exchanges() - before,
            by_peer_copies ? std::uint64_t(ranks()) : 0u);
}

// The received runs merged by the four-way merge from two runs on (on 2 ranks: in place of
// CUB's merge), stable in rank order.
TEST_P(DistributedSort, TheFourWayMergeFromTwoRunsKeepsTheStableOrder) {
  if (ranks() == 1) GTEST_SKIP() << "one rank merges nothing";
  distributed::detail::four_way_merge_fewest_runs() = 2;
  distributed::detail::four_way_merge_fewest_runs_with_values() = 2;
  expect_distributed_sort<call::stable_sort_by_key>(
      comms, rank_inputs<std::uint32_t>(std::vector<std::size_t>(ranks(), 70001),
                                        distribution::few_distinct, 25),
      less<>{}, reference_order<std::uint32_t>{false});
}

// Sorts uniform keys on every rank in arrays that allocate(rank, bytes, stream) returns
// (freed with cudaFreeAsync), and checks that every element arrives; returns how many
// exchanges by peer copies ran meanwhile.
template <class Allocate>
std::uint64_t expect_sorted_in_arrays_from(const std::vector<communicator>& comms,
                                           const Allocate& allocate) {
  const int ranks = int(comms.size());
  const std::uint64_t peer_exchanges_before = distributed::detail::peer_exchanges();
  const auto inputs = rank_inputs<std::uint32_t>(std::vector<std::size_t>(ranks, 70001),
                                                 distribution::uniform, 24);
  std::vector<std::vector<std::uint32_t>> outputs(ranks);
  on_every_rank(comms, [&](int r) {
    const std::size_t bytes = inputs[r].size() * sizeof(std::uint32_t);
    cudaStream_t stream = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
    auto* keys = static_cast<std::uint32_t*>(allocate(r, bytes, stream));
    ASSERT_NE(keys, nullptr);
    ASSERT_EQ(cudaMemcpyAsync(keys, inputs[r].data(), bytes, cudaMemcpyHostToDevice, stream),
              cudaSuccess);
    distributed::sort(comms[r], par.on(stream), keys, keys + inputs[r].size());
    outputs[r].resize(inputs[r].size());
    ASSERT_EQ(cudaMemcpyAsync(outputs[r].data(), keys, bytes, cudaMemcpyDeviceToHost, stream),
              cudaSuccess);
    ASSERT_EQ(cudaFreeAsync(keys, stream), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    ASSERT_EQ(cudaStreamDestroy(stream), cudaSuccess);
  });
  std::vector<std::uint32_t> expected, got;
  for (int r = 0; r < ranks; ++r) {
    expected.insert(expected.end(), inputs[r].begin(), inputs[r].end());
    got.insert(got.end(), outputs[r].begin(), outputs[r].end());
  }
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(got, expected);
  return distributed::detail::peer_exchanges() - peer_exchanges_before;
}

// Arrays from each device's default stream-ordered pool (cudaMallocAsync), which peer
// access does not map for other GPUs: every way exchanges them through NCCL.
TEST_P(DistributedSort, ArraysFromStreamOrderedPoolsAreExchangedThroughNccl) {
  if (ranks() == 1) GTEST_SKIP() << "one rank exchanges nothing";
  const auto from_default_pool = [](int, std::size_t bytes, cudaStream_t stream) {
    void* keys = nullptr;
    return cudaMallocAsync(&keys, bytes, stream) == cudaSuccess ? keys : nullptr;
  };
  EXPECT_EQ(expect_sorted_in_arrays_from(comms, from_default_pool), 0u);
}

// Arrays from pools that grant every other rank's device access (cudaMemPoolSetAccess):
// the peers read them directly, so the ranks of one process exchange by peer copies.
TEST_P(DistributedSort, ArraysFromPoolsOpenToThePeersAreExchangedByPeerCopies) {
  if (ranks() == 1) GTEST_SKIP() << "one rank exchanges nothing";
  std::vector<cudaMemPool_t> pools(ranks());
  for (int r = 0; r < ranks(); ++r) {
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = comms[r].device();
    ASSERT_EQ(cudaMemPoolCreate(&pools[r], &props), cudaSuccess);
    for (int q = 0; q < ranks(); ++q) {
      if (comms[q].device() == comms[r].device()) continue;
      cudaMemAccessDesc access{};
      access.location.type = cudaMemLocationTypeDevice;
      access.location.id = comms[q].device();
      access.flags = cudaMemAccessFlagsProtReadWrite;
      if (cudaMemPoolSetAccess(pools[r], &access, 1) != cudaSuccess) {
        (void)cudaGetLastError();
        for (int p = 0; p <= r; ++p) cudaMemPoolDestroy(pools[p]);
        GTEST_SKIP() << "device " << comms[q].device() << " cannot reach device "
                     << comms[r].device() << "'s memory";
      }
    }
  }
  const auto from_open_pool = [&](int r, std::size_t bytes, cudaStream_t stream) {
    void* keys = nullptr;
    return cudaMallocFromPoolAsync(&keys, bytes, pools[r], stream) == cudaSuccess ? keys
                                                                                  : nullptr;
  };
  const bool by_peer_copies = GetParam().way == sort_way::sort_first && comms[0].in_one_process();
  EXPECT_EQ(expect_sorted_in_arrays_from(comms, from_open_pool),
            by_peer_copies ? std::uint64_t(ranks()) : 0u);
  for (cudaMemPool_t pool : pools) EXPECT_EQ(cudaMemPoolDestroy(pool), cudaSuccess);
}

INSTANTIATE_TEST_SUITE_P(Ranks, DistributedSort, every_rank_setup(), rank_setup_name);

}  // namespace
}  // namespace gpusort::test
