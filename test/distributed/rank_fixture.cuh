// A test fixture parameterised by the number of ranks: the communicators (made once per
// rank count and kept, since creating NCCL communicators takes a while), or a skip that
// says why there are none here.
#pragma once

#include "distributed_checks.cuh"

#include <map>
#include <string>
#include <vector>

namespace gpusort::test {

class RankTest : public GpuTest, public testing::WithParamInterface<int> {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (IsSkipped()) return;
    static std::map<int, std::vector<communicator>> made;
    auto found = made.find(GetParam());
    if (found == made.end()) {
      std::string why;
      found = made.emplace(GetParam(), communicators_for(GetParam(), &why)).first;
      if (found->second.empty()) {
        made.erase(found);
        GTEST_SKIP() << why;
      }
    }
    comms = found->second;
  }

  std::vector<communicator> comms;
};

inline std::string rank_count_name(const testing::TestParamInfo<int>& info) {
  return std::to_string(info.param) + "ranks";
}

}  // namespace gpusort::test
