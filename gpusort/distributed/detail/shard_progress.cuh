// How far a pinned-host sort has got: its shard threads count bytes and phases here, and the
// calling thread turns them into the policy's progress reports and the call's
// host_sort_report.
#pragma once

#include "../host_sort_report.cuh"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

namespace gpusort::distributed::detail {

using clock = std::chrono::steady_clock;

class shard_progress {
 public:
  using callback = std::function<void(const progress&)>;

  shard_progress(int shards, std::uint64_t total_bytes, clock::time_point start)
      : shards_(shards), total_bytes_(total_bytes), start_(start), upload_end_(shards),
        sort_end_(shards), download_end_(shards) {}

  // Bytes copied so far, all shards together (copy_in_chunks counts them).
  std::atomic<std::uint64_t> uploaded{0}, downloaded{0};

  double seconds() const { return std::chrono::duration<double>(clock::now() - start_).count(); }

  // From shard `shard`'s thread as it ends each phase.
  void upload_ended(int shard) {
    upload_end_[shard] = seconds();
    ++uploads_done_;
  }
  void sort_ended(int shard) {
    sort_end_[shard] = seconds();
    ++sorts_done_;
  }
  void download_ended(int shard) { download_end_[shard] = seconds(); }
  // The last thing every shard thread does, whether it failed or not.
  void shard_ended() { ++shards_ended_; }

  // On the calling thread until every shard thread ended: the phase of the slowest shard,
  // about every 100 ms.
  void report_until_every_shard_ended(const callback& report) const {
    while (shards_ended_.load() < shards_) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      if (report) report(now());
    }
  }

  void report_done(const callback& report) const {
    if (report) report({progress::phase::done, total_bytes_, total_bytes_, seconds()});
  }

  // Each phase ends when its slowest shard ends it. After every shard thread was joined.
  host_sort_report summary() const {
    const auto latest = [](const std::vector<double>& v) {
      return *std::max_element(v.begin(), v.end());
    };
    return {shards_, latest(upload_end_), latest(sort_end_) - latest(upload_end_),
            latest(download_end_) - latest(sort_end_)};
  }

 private:
  progress now() const {
    if (uploads_done_.load() < shards_)
      return {progress::phase::to_devices, uploaded.load(), total_bytes_, seconds()};
    if (sorts_done_.load() < shards_)
      return {progress::phase::sorting, 0, total_bytes_, seconds()};
    return {progress::phase::to_host, downloaded.load(), total_bytes_, seconds()};
  }

  int shards_;
  std::uint64_t total_bytes_;
  clock::time_point start_;
  std::atomic<int> uploads_done_{0}, sorts_done_{0}, shards_ended_{0};
  std::vector<double> upload_end_, sort_end_, download_end_;  // seconds, one per shard
};

}  // namespace gpusort::distributed::detail
