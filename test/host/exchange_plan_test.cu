// The distributed sort's exchange, planned without a GPU: what each rank sends and receives
// and where each piece begins on its sender, and the table of arrays the ranks gather for an
// exchange by peer copies.
#include <gpusort/distributed/detail/sort_steps.cuh>

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace {

namespace d = gpusort::distributed::detail;

// Three ranks holding 5, 4 and 6 elements; cut(q, r) = how many of q's go to ranks before r.
d::cut_table three_ranks() {
  return d::cut_table(3, {0, 2, 4, 5,    // rank 0: 2 to rank 0, 2 to rank 1, 1 to rank 2
                          0, 1, 3, 4,    // rank 1: 1, 2, 1
                          0, 2, 4, 6});  // rank 2: 2, 2, 2
}

TEST(ExchangePlan, EveryRankKnowsWhatItSendsReceivesAndWhereEachPieceBegins) {
  const d::cut_table cut = three_ranks();
  const std::vector<std::uint64_t> own{0, 1, 3, 4};  // rank 1's own row
  const d::exchange_layout layout = d::plan_exchange(cut, own, 1);
  ASSERT_EQ(layout.send_pieces.size(), 3u);
  EXPECT_EQ(layout.send_pieces[0].begin, 0u);
  EXPECT_EQ(layout.send_pieces[0].count, 1u);
  EXPECT_EQ(layout.send_pieces[2].begin, 3u);
  EXPECT_EQ(layout.send_pieces[2].count, 1u);
  // Rank 1 receives 2 from rank 0 (its elements 2..3), 2 of its own (1..2), 2 from rank 2
  // (2..3), in rank order.
  const std::vector<std::uint64_t> begins_there{2, 1, 2};
  const std::vector<std::size_t> begins_here{0, 2, 4};
  for (int q = 0; q < 3; ++q) {
    EXPECT_EQ(layout.source_begin[q], begins_there[q]) << "from rank " << q;
    EXPECT_EQ(layout.recv_pieces[q].begin, begins_here[q]) << "from rank " << q;
    EXPECT_EQ(layout.recv_pieces[q].count, 2u) << "from rank " << q;
  }
  EXPECT_EQ(layout.runs.size(), 3u);
}

TEST(ExchangePlan, PeerCopiesOnlyWhereEveryRanksArraysAreReadableByEveryOtherRank) {
  // Rows: device, the devices that can read the arrays (bit d: device d), keys' address,
  // values' address.
  std::vector<std::uint64_t> rows{0, d::all_devices, 0x1000, 0x2000,  //
                                  3, d::all_devices, 0x3000, 0x4000};
  const d::peer_arrays both(rows);
  EXPECT_TRUE(both.readable_everywhere());
  EXPECT_EQ(both.device(1), 3);
  EXPECT_EQ(both.plane(1, 0), reinterpret_cast<const char*>(0x3000));
  EXPECT_EQ(both.plane(0, 1), reinterpret_cast<const char*>(0x2000));
  rows[d::peer_row_words + 1] = 1u << 3;  // rank 1's arrays: its own device only
  EXPECT_FALSE(d::peer_arrays(rows).readable_everywhere());
  rows[d::peer_row_words + 1] = (1u << 3) | 1u;  // and device 0's, rank 0's
  EXPECT_TRUE(d::peer_arrays(rows).readable_everywhere());
  rows[1] = 1u;  // rank 0's arrays: device 0 only, not rank 1's device 3
  EXPECT_FALSE(d::peer_arrays(rows).readable_everywhere());
  rows[1] = 0;  // readable by no device
  rows[d::peer_row_words] = 0;  // even with both ranks on one device
  EXPECT_FALSE(d::peer_arrays(rows).readable_everywhere());
}

TEST(ExchangePlan, HostMemoryIsNotReadableByPeersAndAMissingPlaneIsNoObstacle) {
  int on_the_stack = 0;
  EXPECT_EQ(d::devices_reading(&on_the_stack, 0), 0u);
  EXPECT_EQ(d::devices_reading(nullptr, 0), d::all_devices);
}

TEST(ExchangePlan, PeerCopiesAreTheDefaultUpToFourRanksAndNeverForOneRank) {
  EXPECT_EQ(d::peer_copies_max_ranks(), 4);
  EXPECT_FALSE(d::exchanges_by_peer_copies(gpusort::distributed::communicator::solo(0)));
}

}  // namespace
