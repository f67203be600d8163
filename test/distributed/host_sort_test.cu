// Sorting pinned host arrays with gpusort::distributed::pinned_host: on one GPU, split
// across GPUs by a device memory limit, refused (untouched) when the limit cannot hold it,
// refused for pageable memory, and with progress reports.
#include "distributed_checks.cuh"

#include <cstring>

namespace gpusort::test {
namespace {

using distributed::pinned_host;

// A cudaMallocHost'd copy of a vector.
template <class T>
class pinned_array {
 public:
  explicit pinned_array(const std::vector<T>& host) : size_(host.size()) {
    EXPECT_EQ(cudaMallocHost(&data_, std::max<std::size_t>(size_, 1) * sizeof(T)), cudaSuccess);
    if (size_ > 0) std::memcpy(data_, host.data(), size_ * sizeof(T));
  }
  ~pinned_array() { cudaFreeHost(data_); }
  pinned_array(const pinned_array&) = delete;
  pinned_array& operator=(const pinned_array&) = delete;
  T* begin() const { return data_; }
  T* end() const { return data_ + size_; }
  std::vector<T> to_vector() const { return std::vector<T>(data_, data_ + size_); }

 private:
  std::size_t size_;
  T* data_ = nullptr;
};

int visible_gpus() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) return 0;
  return count;
}

class HostSort : public GpuTest {};

TEST_F(HostSort, SortsAPinnedArrayOnOneGpu) {
  for (std::size_t n : capped({0, 1, 2, 1009, 1000003, 3000017})) {
    const auto input = make_keys<std::uint32_t>(n, distribution::uniform, n);
    pinned_array<std::uint32_t> data(input);
    const auto report = gpusort::sort(pinned_host.devices({0}), data.begin(), data.end());
    if (n >= 2) EXPECT_EQ(report.devices, 1);
    expect_same_bits(data.to_vector(), reference_sorted(input, false), "keys");
  }
}

TEST_F(HostSort, StableSortByKeyWithEveryGpu) {
  const std::size_t n = capped({4000037}).empty() ? 100003 : 4000037;
  const auto keys = make_keys<float>(n, distribution::float_specials, 5);
  std::vector<std::uint32_t> positions(n);
  std::iota(positions.begin(), positions.end(), 0u);
  pinned_array<float> data(keys);
  pinned_array<std::uint32_t> values(positions);
  const auto report = gpusort::stable_sort_by_key(pinned_host, data.begin(), data.end(), values.begin());
  const auto reference = stable_reference_of(keys, reference_order<float>{false});
  expect_same_bits(data.to_vector(), reference.keys, "keys");
  expect_same_values(values.to_vector(), reference.order);
  EXPECT_GE(report.devices, 1);
}

TEST_F(HostSort, DeviceMemoryLimitSplitsTheArrayAcrossGpus) {
#if !GPUSORT_WITH_NCCL
  GTEST_SKIP() << "built without NCCL: the pinned-host sort uses one GPU";
#endif
  if (visible_gpus() < 2) GTEST_SKIP() << "needs 2 GPUs, " << visible_gpus() << " visible";
  // 1M pairs are 8 MB: a GPU needs about 16.5 MB for them, and 12 MiB holds about 760K.
  const std::size_t n = 1000003;
  const auto keys = make_keys<std::uint32_t>(n, distribution::few_distinct, 6);
  std::vector<std::uint32_t> positions(n);
  std::iota(positions.begin(), positions.end(), 0u);
  pinned_array<std::uint32_t> data(keys);
  pinned_array<std::uint32_t> values(positions);
  const auto report = gpusort::stable_sort_by_key(
      pinned_host.devices({0, 1}).device_memory_limit(12 << 20), data.begin(), data.end(),
      values.begin());
  EXPECT_EQ(report.devices, 2);
  const auto reference = stable_reference_of(keys, reference_order<std::uint32_t>{false});
  expect_same_bits(data.to_vector(), reference.keys, "keys");
  expect_same_values(values.to_vector(), reference.order);
}

TEST_F(HostSort, TooLargeForTheLimitThrowsAndLeavesTheArrayUntouched) {
  const auto input = make_keys<std::uint32_t>(1000003, distribution::uniform, 8);
  pinned_array<std::uint32_t> data(input);
  try {
    gpusort::sort(pinned_host.devices({0}).device_memory_limit(1 << 20), data.begin(), data.end());
    ADD_FAILURE() << "expected gpusort::error";
  } catch (const gpusort::error& e) {
    EXPECT_NE(std::string(e.what()).find("untouched"), std::string::npos) << e.what();
  }
  expect_same_bits(data.to_vector(), input, "keys");
}

TEST_F(HostSort, PageableMemoryIsRefused) {
  std::vector<std::uint32_t> pageable = make_keys<std::uint32_t>(1000, distribution::uniform, 9);
  const auto input = pageable;
  try {
    gpusort::sort(pinned_host, pageable.data(), pageable.data() + pageable.size());
    ADD_FAILURE() << "expected gpusort::error";
  } catch (const gpusort::error& e) {
    EXPECT_NE(std::string(e.what()).find("not pinned"), std::string::npos) << e.what();
  }
  EXPECT_EQ(pageable, input);
}

TEST_F(HostSort, ProgressEndsWithDoneAndEveryByte) {
  const std::size_t n = 2000003;
  const auto input = make_keys<std::uint32_t>(n, distribution::uniform, 10);
  pinned_array<std::uint32_t> data(input);
  std::vector<distributed::progress> reports;
  gpusort::sort(pinned_host.on_progress([&](const distributed::progress& p) { reports.push_back(p); }),
                data.begin(), data.end(), greater<>{});
  ASSERT_FALSE(reports.empty());
  EXPECT_EQ(reports.back().step, distributed::progress::phase::done);
  EXPECT_EQ(reports.back().bytes_done, n * 4);
  EXPECT_EQ(reports.back().bytes_total, n * 4);
  for (std::size_t i = 1; i < reports.size(); ++i)
    EXPECT_GE(reports[i].seconds, reports[i - 1].seconds);
  expect_same_bits(data.to_vector(), reference_sorted(input, true), "keys");
}

}  // namespace
}  // namespace gpusort::test
