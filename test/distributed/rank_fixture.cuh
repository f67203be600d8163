// A test fixture parameterised by the number of ranks: the communicators (made once per
// rank count and kept, since creating NCCL communicators takes a while), or a skip that
// says why there are none here.
#pragma once

#include "distributed_checks.cuh"

#include <map>
#include <string>
#include <vector>

namespace gpusort::test {

// Which way the distributed sort takes: sort first everywhere (the exchange by peer copies
// at every rank count, since the ranks share this process), sort first with the exchange
// through NCCL (as for communicators of several processes), or partition first wherever the
// sizes allow (every size and rank count here: its thresholds lowered to one element and
// two ranks).
enum class sort_way { sort_first, sort_first_by_nccl, partition_first };

struct rank_setup {
  int ranks;
  sort_way way;
};

class RankTest : public GpuTest, public testing::WithParamInterface<rank_setup> {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (IsSkipped()) return;
    static std::map<int, std::vector<communicator>> made;
    auto found = made.find(ranks());
    if (found == made.end()) {
      std::string why;
      found = made.emplace(ranks(), communicators_for(ranks(), &why)).first;
      if (found->second.empty()) {
        made.erase(found);
        GTEST_SKIP() << why;
      }
    }
    comms = found->second;
    const bool partition_first = GetParam().way == sort_way::partition_first;
    distributed::detail::partition_first_min_count() = partition_first ? 1 : ~std::size_t(0);
    distributed::detail::partition_first_min_ranks() = 2;
    distributed::detail::peer_copies_max_ranks() =
        GetParam().way == sort_way::sort_first_by_nccl ? 0 : 16;
  }
  void TearDown() override {
    distributed::detail::partition_first_min_count() = default_partition_first_min_count;
    distributed::detail::partition_first_min_ranks() = default_partition_first_min_ranks;
    distributed::detail::peer_copies_max_ranks() = default_peer_copies_max_ranks;
    // Set by single tests.
    distributed::detail::four_way_merge_fewest_runs() = distributed::detail::four_way_merge_off;
    distributed::detail::four_way_merge_fewest_runs_with_values() =
        distributed::detail::four_way_merge_default_with_values;
    GpuTest::TearDown();
  }

  int ranks() const { return GetParam().ranks; }

  std::vector<communicator> comms;

 private:
  const std::size_t default_partition_first_min_count =
      distributed::detail::partition_first_min_count();
  const int default_partition_first_min_ranks = distributed::detail::partition_first_min_ranks();
  const int default_peer_copies_max_ranks = distributed::detail::peer_copies_max_ranks();
};

// 1, 2 and 4 ranks sorting first; 2 exchanging through NCCL; 2 and 4 partitioning first
// (one rank only sorts).
inline auto every_rank_setup() {
  return testing::Values(rank_setup{1, sort_way::sort_first}, rank_setup{2, sort_way::sort_first},
                         rank_setup{4, sort_way::sort_first},
                         rank_setup{2, sort_way::sort_first_by_nccl},
                         rank_setup{2, sort_way::partition_first},
                         rank_setup{4, sort_way::partition_first});
}

inline std::string rank_setup_name(const testing::TestParamInfo<rank_setup>& info) {
  const char* way = info.param.way == sort_way::partition_first      ? "PartitionFirst"
                    : info.param.way == sort_way::sort_first_by_nccl ? "Nccl"
                                                                     : "";
  return std::to_string(info.param.ranks) + "ranks" + way;
}

}  // namespace gpusort::test
