// gpusort_distributed_bench: the distributed sort on 1, 2, 4, ... GPUs of this machine
// against cub::DeviceRadixSort on one of them, in one run (Google Benchmark, manual time).
//
// Names (Google Benchmark appends /manual_time):
//   <op>/cub_radix/<type>/ranks:1/total:<n>   CUB on GPU 0 (temp storage allocated up front)
//   <op>/distributed/<type>/ranks:<G>/total:<n> gpusort::distributed on GPUs 0..G-1, n/G each
//                                             (G = 1: gpusort::par alone), the way the
//                                             library chooses
//   <op>/distributed_{sort,partition}_first/<type>/ranks:<G>/total:<n>
//                                             the same, sorting first (the exchange by peer
//                                             copies) or partitioning first whatever the
//                                             library would choose
//                                             (detail::partition_first_min_count, _min_ranks,
//                                             peer_copies_max_ranks)
//   <op>/distributed_sort_first_nccl/...      sorting first, the exchange through NCCL
//                                             instead of peer copies
//   all_to_all/[pool:|pool_with_peer_access:]ranks:<G>/bytes_per_rank:<B>
//                                             NCCL grouped send/recv of B bytes per rank,
//                                             B/G to every rank: the link's all-to-all rate;
//                                             received into cudaMalloc'd memory, or into the
//                                             default stream-ordered pool's (as the sort's
//                                             receive buffer), without or with the peers
//                                             granted access to that pool
//   partition_kernels/u32/ranks:<G>/n:<n>     the partition-first way's kernels alone on GPU 0
//                                             (count_ms, scan_ms, scatter_ms) beside a device
//                                             copy of the keys (copy_ms); time: the three
//   host_sort/u32/ranks:<G>/total:<n>         gpusort::sort(distributed::pinned_host ...)
//                                             at n = 2^31 and 2^--host_log2 (default 34; 0: none)
// <op> is sort (u32 keys) or sort_by_key (u32+u32); n = 2^--min_log2 (default 28) ... 2^--max_log2
// (default 32). --four_way_merge=N (2, 3 or 4) merges from N to 4 received runs in one pass
// for every row, keys alone and pairs (detail::four_way_merge_fewest_runs and
// ..._with_values); 0: never; without the flag, the library's defaults (pairs from 3 runs,
// keys alone never): run with 0 and with 3 to compare.
//
// Method: keys are hashes of their global position, regenerated on every rank before every
// timed sort (untimed); all ranks wait at a barrier, and the time runs from the first
// rank's start to the last rank's end (host clock, after each rank synchronised its
// stream). The stream-ordered pool of every device keeps what it allocated
// (cudaMemPoolAttrReleaseThreshold = max), so repeated sorts do not map memory anew, as
// CUB's up-front temp storage does not. Once per case, untimed, the distributed output is
// checked (each rank in order, ranks in order at their boundaries); a wrong result is
// reported as an error, not a time.
// Counters: Gkeys_per_s; for distributed rows the mean over iterations of each step, timed
// by gpusort::distributed::step_events (local_sort_ms, split_ms, exchange_ms, merge_ms,
// slowest rank; on the partition-first way "local sort" is the partition and the sorts
// inside the brackets, "exchange" the exchange with the own piece's sort beside it, and
// "merge" the received pieces' sorts and the merge) and exchange_GBps (bytes leaving the slowest rank's GPU / its exchange
// time); for all_to_all, GBps likewise; for host_sort, to_devices_s, sorting_s, to_host_s.

#include <gpusort/distributed.cuh>

#include <benchmark/benchmark.h>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(status));
    std::exit(1);
  }
}

__host__ __device__ std::uint32_t key_of(std::uint64_t position) {
  std::uint64_t z = position + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return std::uint32_t(z ^ (z >> 31));
}

__global__ void fill(std::uint32_t* keys, std::uint32_t* values, std::size_t n, std::uint64_t first) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    keys[i] = key_of(first + i);
    if (values != nullptr) values[i] = std::uint32_t(first + i);
  }
}

__global__ void count_disorder(const std::uint32_t* keys, std::size_t n, unsigned long long* bad) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i + 1 < n;
       i += std::size_t(gridDim.x) * blockDim.x)
    if (keys[i + 1] < keys[i]) atomicAdd(bad, 1ull);
}

void fill_on(cudaStream_t stream, std::uint32_t* keys, std::uint32_t* values, std::size_t n,
             std::uint64_t first) {
  fill<<<4096, 256, 0, stream>>>(keys, values, n, first);
  check(cudaGetLastError(), "fill");
}

void keep_pool_memory(int device) {
  cudaMemPool_t pool;
  check(cudaDeviceGetDefaultMemPool(&pool, device), "cudaDeviceGetDefaultMemPool");
  std::uint64_t threshold = std::numeric_limits<std::uint64_t>::max();
  check(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold),
        "cudaMemPoolSetAttribute");
}

using clock_type = std::chrono::steady_clock;

class barrier {
 public:
  explicit barrier(int n) : n_(n) {}
  void arrive_and_wait() {
    std::unique_lock<std::mutex> lock(m_);
    const int generation = generation_;
    if (++arrived_ == n_) {
      arrived_ = 0;
      ++generation_;
      cv_.notify_all();
    } else {
      cv_.wait(lock, [&] { return generation != generation_; });
    }
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  int n_, arrived_ = 0, generation_ = 0;
};

struct rank_state {
  int device;
  cudaStream_t stream = nullptr;
  std::uint32_t* keys = nullptr;
  std::uint32_t* values = nullptr;
  std::size_t count = 0;
  cudaEvent_t events[5] = {};
};

double elapsed_ms(cudaEvent_t a, cudaEvent_t b) {
  float ms = 0;
  check(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime");
  return ms;
}

// Which way a distributed row takes.
enum class sort_way { library_choice, sort_first, sort_first_by_nccl, partition_first };

// gpusort::distributed over `ranks` GPUs, total elements split evenly.
void distributed_sort(benchmark::State& state, std::vector<gpusort::distributed::communicator>* comms,
                      bool pairs, std::size_t total, sort_way way) {
  // The sort-first and partition-first rows take that way for their run, whatever the
  // library would choose; sorting first the exchange is by peer copies at any rank count,
  // or through NCCL in the NCCL row.
  namespace d = gpusort::distributed::detail;
  struct way_for_this_row {
    std::size_t count = d::partition_first_min_count();
    int ranks = d::partition_first_min_ranks();
    int peer_ranks = d::peer_copies_max_ranks();
    explicit way_for_this_row(sort_way way) {
      if (way == sort_way::sort_first || way == sort_way::sort_first_by_nccl)
        d::partition_first_min_count() = ~std::size_t(0);
      if (way == sort_way::partition_first) d::partition_first_min_ranks() = 2;
      if (way == sort_way::sort_first) d::peer_copies_max_ranks() = 16;
      if (way == sort_way::sort_first_by_nccl) d::peer_copies_max_ranks() = 0;
    }
    ~way_for_this_row() {
      d::partition_first_min_count() = count;
      d::partition_first_min_ranks() = ranks;
      d::peer_copies_max_ranks() = peer_ranks;
    }
  } way_now(way);
  const int ranks = int(comms->size());
  std::vector<rank_state> rank(ranks);
  const std::size_t per_rank = total / ranks;
  for (int r = 0; r < ranks; ++r) {
    rank_state& s = rank[r];
    s.device = (*comms)[r].device();
    s.count = r + 1 == ranks ? total - per_rank * (ranks - 1) : per_rank;
    check(cudaSetDevice(s.device), "cudaSetDevice");
    keep_pool_memory(s.device);
    check(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking), "stream");
    check(cudaMalloc(&s.keys, s.count * 4), "cudaMalloc keys");
    if (pairs) check(cudaMalloc(&s.values, s.count * 4), "cudaMalloc values");
    for (cudaEvent_t& e : s.events) check(cudaEventCreate(&e), "cudaEventCreate");
  }
  std::vector<double> step_ms(4, 0.0);
  double exchange_gbps_sum = 0;
  std::vector<clock_type::time_point> begin(ranks), end(ranks);
  std::vector<std::uint32_t> first_key(ranks), last_key(ranks);
  std::vector<unsigned long long> disorder(ranks, 0);
  std::vector<std::size_t> off_rank_bytes(ranks, 0);
  barrier all(ranks);
  std::string failure;

  const auto run_once = [&](bool verify) {
    std::vector<std::thread> threads;
    for (int r = 0; r < ranks; ++r)
      threads.emplace_back([&, r] {
        rank_state& s = rank[r];
        check(cudaSetDevice(s.device), "cudaSetDevice");
        fill_on(s.stream, s.keys, s.values, s.count, std::uint64_t(r) * per_rank);
        check(cudaStreamSynchronize(s.stream), "fill");
        all.arrive_and_wait();
        begin[r] = clock_type::now();
        const gpusort::distributed::step_events events{s.events[0], s.events[1], s.events[2],
                                                       s.events[3], s.events[4]};
        const auto local = gpusort::par.on(s.stream);
        try {
          if (pairs)
            gpusort::distributed::sort_by_key((*comms)[r], local, s.keys, s.keys + s.count,
                                              s.values, gpusort::less<>{}, events);
          else
            gpusort::distributed::sort((*comms)[r], local, s.keys, s.keys + s.count,
                                       gpusort::less<>{}, events);
        } catch (const std::exception& e) {
          std::fprintf(stderr, "rank %d: %s\n", r, e.what());
          std::exit(1);
        }
        check(cudaStreamSynchronize(s.stream), "sort");
        end[r] = clock_type::now();
        if (verify) {
          unsigned long long* bad;
          check(cudaMalloc(&bad, 8), "cudaMalloc");
          check(cudaMemset(bad, 0, 8), "cudaMemset");
          count_disorder<<<4096, 256, 0, s.stream>>>(s.keys, s.count, bad);
          check(cudaMemcpyAsync(&disorder[r], bad, 8, cudaMemcpyDeviceToHost, s.stream), "copy");
          check(cudaMemcpyAsync(&first_key[r], s.keys, 4, cudaMemcpyDeviceToHost, s.stream), "copy");
          check(cudaMemcpyAsync(&last_key[r], s.keys + s.count - 1, 4, cudaMemcpyDeviceToHost,
                                s.stream), "copy");
          check(cudaStreamSynchronize(s.stream), "verify");
          cudaFree(bad);
        }
      });
    for (std::thread& t : threads) t.join();
  };

  run_once(true);  // warm-up and verification
  for (int r = 0; r < ranks; ++r) {
    if (disorder[r] != 0) failure = "rank " + std::to_string(r) + " out of order";
    if (r > 0 && last_key[r - 1] > first_key[r]) failure = "ranks out of order at a boundary";
  }
  if (!failure.empty()) {
    state.SkipWithError(failure.c_str());
    return;
  }
  for (auto _ : state) {
    run_once(false);
    const auto first = *std::min_element(begin.begin(), begin.end());
    const auto last = *std::max_element(end.begin(), end.end());
    state.SetIterationTime(std::chrono::duration<double>(last - first).count());
    double slowest[4] = {0, 0, 0, 0};
    for (int r = 0; r < ranks && ranks > 1; ++r) {  // one rank records no steps
      check(cudaSetDevice(rank[r].device), "cudaSetDevice");
      for (int k = 0; k < 4; ++k)
        slowest[k] = std::max(slowest[k], elapsed_ms(rank[r].events[k], rank[r].events[k + 1]));
    }
    for (int k = 0; k < 4; ++k) step_ms[k] += slowest[k];
    // Uniform keys: a rank sends (ranks-1)/ranks of its data away.
    const double off_rank = double(per_rank) * (pairs ? 8 : 4) * (ranks - 1) / ranks;
    if (ranks > 1 && slowest[2] > 0) exchange_gbps_sum += off_rank / (slowest[2] * 1e6);
  }
  const double iterations = double(state.iterations());
  state.counters["local_sort_ms"] = step_ms[0] / iterations;
  state.counters["split_ms"] = step_ms[1] / iterations;
  state.counters["exchange_ms"] = step_ms[2] / iterations;
  state.counters["merge_ms"] = step_ms[3] / iterations;
  state.counters["exchange_GBps"] = exchange_gbps_sum / iterations;
  state.counters["Gkeys_per_s"] =
      benchmark::Counter(double(total) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  for (rank_state& s : rank) {
    check(cudaSetDevice(s.device), "cudaSetDevice");
    cudaFree(s.keys);
    cudaFree(s.values);
    for (cudaEvent_t e : s.events) cudaEventDestroy(e);
    cudaStreamDestroy(s.stream);
  }
  check(cudaSetDevice(0), "cudaSetDevice");
}

// cub::DeviceRadixSort on GPU 0, out of place with temp storage allocated up front.
void cub_radix(benchmark::State& state, bool pairs, std::size_t n) {
  check(cudaSetDevice(0), "cudaSetDevice");
  cudaStream_t stream;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream");
  std::uint32_t *keys, *keys_out, *values = nullptr, *values_out = nullptr;
  check(cudaMalloc(&keys, n * 4), "keys");
  check(cudaMalloc(&keys_out, n * 4), "keys_out");
  if (pairs) {
    check(cudaMalloc(&values, n * 4), "values");
    check(cudaMalloc(&values_out, n * 4), "values_out");
  }
  std::size_t temp_bytes = 0;
  if (pairs)
    cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys, keys_out, values, values_out, n);
  else
    cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, keys, keys_out, n);
  void* temp;
  check(cudaMalloc(&temp, temp_bytes), "temp");
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  for (auto _ : state) {
    fill_on(stream, keys, values, n, 0);
    check(cudaEventRecord(start, stream), "record");
    if (pairs)
      check(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, keys, keys_out, values, values_out,
                                            n, 0, 32, stream),
            "SortPairs");
    else
      check(cub::DeviceRadixSort::SortKeys(temp, temp_bytes, keys, keys_out, n, 0, 32, stream),
            "SortKeys");
    check(cudaEventRecord(stop, stream), "record");
    check(cudaEventSynchronize(stop), "sync");
    state.SetIterationTime(elapsed_ms(start, stop) / 1e3);
  }
  state.counters["Gkeys_per_s"] =
      benchmark::Counter(double(n) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  cudaFree(keys), cudaFree(keys_out), cudaFree(values), cudaFree(values_out), cudaFree(temp);
  cudaEventDestroy(start), cudaEventDestroy(stop), cudaStreamDestroy(stream);
}

// Where the all-to-all's receive buffers come from: cudaMalloc, or (as the distributed sort's
// receive buffer) a stream-ordered pool, the device's default one, without or with access
// granted to the other ranks' devices.
enum class receive_memory { malloc, pool, pool_with_peer_access };

void grant_pool_access_to_peers(int device, int ranks) {
  cudaMemPool_t pool;
  check(cudaDeviceGetDefaultMemPool(&pool, device), "cudaDeviceGetDefaultMemPool");
  for (int peer = 0; peer < ranks; ++peer) {
    if (peer == device) continue;
    cudaMemAccessDesc access{};
    access.location.type = cudaMemLocationTypeDevice;
    access.location.id = peer;
    access.flags = cudaMemAccessFlagsProtReadWrite;
    check(cudaMemPoolSetAccess(pool, &access, 1), "cudaMemPoolSetAccess");
  }
}

// NCCL all-to-all of bytes_per_rank on every rank (equal pieces): the link's rate, through
// the distributed sort's own exchange step (an internal: no public call exchanges alone).
void all_to_all(benchmark::State& state, std::vector<gpusort::distributed::communicator>* comms,
                std::size_t bytes_per_rank, receive_memory memory) {
  const int ranks = int(comms->size());
  std::vector<char*> send(ranks), recv(ranks);
  std::vector<cudaStream_t> streams(ranks);
  for (int r = 0; r < ranks; ++r) {
    check(cudaSetDevice((*comms)[r].device()), "cudaSetDevice");
    check(cudaMalloc(&send[r], bytes_per_rank), "send");
    check(cudaStreamCreateWithFlags(&streams[r], cudaStreamNonBlocking), "stream");
    if (memory == receive_memory::malloc) {
      check(cudaMalloc(&recv[r], bytes_per_rank), "recv");
    } else {
      keep_pool_memory((*comms)[r].device());
      if (memory == receive_memory::pool_with_peer_access)
        grant_pool_access_to_peers((*comms)[r].device(), ranks);
      check(cudaMallocAsync(reinterpret_cast<void**>(&recv[r]), bytes_per_rank, streams[r]),
            "recv from the pool");
      check(cudaStreamSynchronize(streams[r]), "recv from the pool");
    }
  }
  std::vector<gpusort::distributed::detail::run> pieces;
  const std::size_t piece = bytes_per_rank / ranks;
  for (int q = 0; q < ranks; ++q) pieces.push_back({q * piece, piece});
  barrier all(ranks);
  std::vector<clock_type::time_point> begin(ranks), end(ranks);
  for (auto _ : state) {
    std::vector<std::thread> threads;
    for (int r = 0; r < ranks; ++r)
      threads.emplace_back([&, r] {
        check(cudaSetDevice((*comms)[r].device()), "cudaSetDevice");
        all.arrive_and_wait();
        begin[r] = clock_type::now();
        gpusort::distributed::detail::exchange((*comms)[r], {{send[r], recv[r], 1}}, pieces,
                                               pieces, streams[r]);
        check(cudaStreamSynchronize(streams[r]), "exchange");
        end[r] = clock_type::now();
      });
    for (std::thread& t : threads) t.join();
    state.SetIterationTime(std::chrono::duration<double>(
                               *std::max_element(end.begin(), end.end()) -
                               *std::min_element(begin.begin(), begin.end()))
                               .count());
  }
  state.counters["GBps"] = benchmark::Counter(double(piece) * (ranks - 1) * 1e-9,
                                              benchmark::Counter::kIsIterationInvariantRate);
  for (int r = 0; r < ranks; ++r) {
    cudaSetDevice((*comms)[r].device());
    if (memory == receive_memory::malloc)
      cudaFree(recv[r]);
    else
      cudaFreeAsync(recv[r], streams[r]);
    cudaStreamSynchronize(streams[r]);
    cudaFree(send[r]), cudaStreamDestroy(streams[r]);
  }
  cudaSetDevice(0);
}

void fill_host(std::uint32_t* data, std::size_t n) {
  const unsigned workers = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> threads;
  for (unsigned w = 0; w < workers; ++w)
    threads.emplace_back([=] {
      for (std::size_t i = n * w / workers; i < n * (w + 1) / workers; ++i) data[i] = key_of(i);
    });
  for (std::thread& t : threads) t.join();
}

// Whether data[0, n) is nondecreasing, checked by every core (2^36 keys by one take a
// minute). Worker w checks the pairs (i - 1, i) for i in its share.
bool host_in_order(const std::uint32_t* data, std::size_t n) {
  const unsigned workers = std::max(1u, std::thread::hardware_concurrency());
  std::vector<char> ordered(workers, 1);
  std::vector<std::thread> threads;
  for (unsigned w = 0; w < workers; ++w)
    threads.emplace_back([&, w] {
      for (std::size_t i = std::max<std::size_t>(1, n * w / workers); i < n * (w + 1) / workers; ++i)
        if (data[i] < data[i - 1]) {
          ordered[w] = 0;
          return;
        }
    });
  for (std::thread& t : threads) t.join();
  return std::all_of(ordered.begin(), ordered.end(), [](char c) { return c != 0; });
}

// gpusort::sort of a pinned host array over `ranks` GPUs (time: the sort call only).
void host_sort(benchmark::State& state, int ranks, std::size_t n) {
  std::uint32_t* data = nullptr;
  check(cudaMallocHost(&data, n * 4), "cudaMallocHost");
  std::vector<int> devices;
  for (int d = 0; d < ranks; ++d) devices.push_back(d);
  double to_devices = 0, sorting = 0, to_host = 0;
  for (auto _ : state) {
    fill_host(data, n);  // untimed: the timer starts below
    const auto t0 = clock_type::now();
    gpusort::distributed::host_sort_report report{};
    try {
      report = gpusort::sort(gpusort::distributed::pinned_host.devices(devices), data, data + n);
    } catch (const gpusort::error& e) {  // e.g. more than these GPUs can hold
      state.SkipWithError(e.what());
      cudaFreeHost(data);
      return;
    }
    state.SetIterationTime(std::chrono::duration<double>(clock_type::now() - t0).count());
    to_devices += report.to_devices_seconds;
    sorting += report.sorting_seconds;
    to_host += report.to_host_seconds;
  }
  if (!host_in_order(data, n)) state.SkipWithError("host sort out of order");
  const double iterations = double(state.iterations());
  state.counters["to_devices_s"] = to_devices / iterations;
  state.counters["sorting_s"] = sorting / iterations;
  state.counters["to_host_s"] = to_host / iterations;
  state.counters["Gkeys_per_s"] =
      benchmark::Counter(double(n) * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  cudaFreeHost(data);
}

// The partition-first way's kernels alone on GPU 0, against a device copy of the same keys:
// count_classes and scatter_classes over n u32 keys with the brackets of `ranks` ranks
// (uniform keys: brackets 1.4 % of the key space wide around each cut), and the scan
// between them.
void partition_kernels(benchmark::State& state, int ranks, std::size_t n) {
  namespace d = gpusort::distributed::detail;
  check(cudaSetDevice(0), "cudaSetDevice");
  constexpr int items = d::partition_items<std::uint32_t, gpusort::no_values>;
  const std::size_t tiles = (n + d::partition_tile<std::uint32_t, gpusort::no_values> - 1) /
                            d::partition_tile<std::uint32_t, gpusort::no_values>;
  const int cuts = ranks - 1, classes = 2 * ranks - 1;
  std::vector<std::uint32_t> brackets;
  for (int r = 1; r < ranks; ++r) {
    const double at = 4294967296.0 * r / ranks, half_width = 4294967296.0 * 0.007;
    brackets.push_back(std::uint32_t(at - half_width));
    brackets.push_back(std::uint32_t(at + half_width));
  }
  std::uint32_t *keys, *out, *bounds;
  std::uint64_t *counts, *offsets;
  check(cudaMalloc(&keys, n * 4), "cudaMalloc");
  check(cudaMalloc(&out, n * 4), "cudaMalloc");
  check(cudaMalloc(&bounds, brackets.size() * 4 + 4), "cudaMalloc");
  check(cudaMalloc(&counts, classes * tiles * 8), "cudaMalloc");
  check(cudaMalloc(&offsets, classes * tiles * 8), "cudaMalloc");
  check(cudaMemcpy(bounds, brackets.data(), brackets.size() * 4, cudaMemcpyHostToDevice), "copy");
  fill_on(nullptr, keys, nullptr, n, 0);
  std::size_t scan_bytes = 0;
  cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, counts, offsets, std::int64_t(classes * tiles));
  void* scan_temp;
  check(cudaMalloc(&scan_temp, scan_bytes), "cudaMalloc");
  cudaEvent_t marks[5];
  for (cudaEvent_t& e : marks) check(cudaEventCreate(&e), "cudaEventCreate");
  double ms[4] = {0, 0, 0, 0};
  for (auto _ : state) {
    cudaEventRecord(marks[0]);
    check(cudaMemcpyAsync(out, keys, n * 4, cudaMemcpyDeviceToDevice), "copy");
    cudaEventRecord(marks[1]);
    d::count_classes<items><<<unsigned(tiles), d::partition_threads>>>(
        keys, n, bounds, cuts, gpusort::less<>{}, tiles, counts);
    cudaEventRecord(marks[2]);
    cub::DeviceScan::ExclusiveSum(scan_temp, scan_bytes, counts, offsets,
                                  std::int64_t(classes * tiles));
    cudaEventRecord(marks[3]);
    d::scatter_classes<items><<<unsigned(tiles), d::partition_threads>>>(
        keys, static_cast<const gpusort::no_values*>(nullptr), n, bounds, cuts,
        gpusort::less<>{}, tiles, offsets, out, static_cast<gpusort::no_values*>(nullptr));
    cudaEventRecord(marks[4]);
    check(cudaEventSynchronize(marks[4]), "partition kernels");
    for (int k = 0; k < 4; ++k) ms[k] += elapsed_ms(marks[k], marks[k + 1]);
    state.SetIterationTime((elapsed_ms(marks[1], marks[4])) / 1e3);
  }
  const double iterations = double(state.iterations());
  state.counters["copy_ms"] = ms[0] / iterations;
  state.counters["count_ms"] = ms[1] / iterations;
  state.counters["scan_ms"] = ms[2] / iterations;
  state.counters["scatter_ms"] = ms[3] / iterations;
  for (cudaEvent_t e : marks) cudaEventDestroy(e);
  for (void* p : {(void*)keys, (void*)out, (void*)bounds, (void*)counts, (void*)offsets, scan_temp})
    cudaFree(p);
}

int take_int_flag(int& argc, char** argv, const char* flag, int fallback) {
  int kept = 1, value = fallback;
  const std::size_t length = std::strlen(flag);
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], flag, length) == 0)
      value = std::atoi(argv[i] + length);
    else
      argv[kept++] = argv[i];
  }
  argc = kept;
  return value;
}

}  // namespace

int main(int argc, char** argv) {
  const int min_log2 = take_int_flag(argc, argv, "--min_log2=", 28);
  const int max_log2 = take_int_flag(argc, argv, "--max_log2=", 32);
  const int host_log2 = take_int_flag(argc, argv, "--host_log2=", 34);
  constexpr int library_defaults = -1;
  const int four_way_from = take_int_flag(argc, argv, "--four_way_merge=", library_defaults);
  if (four_way_from != library_defaults && four_way_from != 0 &&
      (four_way_from < 2 || four_way_from > 4)) {
    std::fprintf(stderr, "--four_way_merge takes 0 (never), 2, 3 or 4\n");
    return 1;
  }
  if (four_way_from != library_defaults) {
    const int fewest =
        four_way_from == 0 ? gpusort::distributed::detail::four_way_merge_off : four_way_from;
    gpusort::distributed::detail::four_way_merge_fewest_runs() = fewest;
    gpusort::distributed::detail::four_way_merge_fewest_runs_with_values() = fewest;
  }
  int visible = 0;
  if (cudaGetDeviceCount(&visible) != cudaSuccess || visible == 0) {
    std::printf("gpusort_distributed_bench: no CUDA GPU here; nothing measured\n");
    return 0;
  }
  cudaDeviceProp properties{};
  check(cudaGetDeviceProperties(&properties, 0), "cudaGetDeviceProperties");
  benchmark::AddCustomContext("gpu", properties.name);
  benchmark::AddCustomContext("gpus", std::to_string(visible));
  benchmark::AddCustomContext(
      "four_way_merge",
      four_way_from == 0 ? "off" : "from " + std::to_string(four_way_from) + " runs");

  std::vector<std::vector<gpusort::distributed::communicator>> comms_by_ranks;
  comms_by_ranks.push_back({gpusort::distributed::communicator::solo(0)});  // gpusort::par alone
  for (int ranks = 2; ranks <= visible; ranks *= 2) {
    std::vector<int> devices;
    for (int d = 0; d < ranks; ++d) devices.push_back(d);
    comms_by_ranks.push_back(gpusort::distributed::communicator::for_devices(devices));
  }
  static std::vector<std::vector<gpusort::distributed::communicator>> keep;
  keep = std::move(comms_by_ranks);

  for (bool pairs : {false, true}) {
    const char* op = pairs ? "sort_by_key" : "sort";
    const char* type = pairs ? "u32+u32" : "u32";
    for (int log2 = min_log2; log2 <= max_log2; ++log2) {
      const std::size_t n = std::size_t(1) << log2;
      const std::string suffix = std::string(type) + "/ranks:";
      benchmark::RegisterBenchmark((std::string(op) + "/cub_radix/" + suffix + "1/total:" +
                                    std::to_string(n)).c_str(),
                                   [=](benchmark::State& s) { cub_radix(s, pairs, n); })
          ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(5);
      for (auto& comms : keep)
        for (auto [way, backend] : {std::pair{sort_way::library_choice, "/distributed/"},
                                    std::pair{sort_way::sort_first, "/distributed_sort_first/"},
                                    std::pair{sort_way::sort_first_by_nccl,
                                              "/distributed_sort_first_nccl/"},
                                    std::pair{sort_way::partition_first,
                                              "/distributed_partition_first/"}}) {
          const int ranks = int(comms.size());
          if (way != sort_way::library_choice && ranks == 1) continue;
          benchmark::RegisterBenchmark((std::string(op) + backend + suffix +
                                        std::to_string(ranks) + "/total:" + std::to_string(n)).c_str(),
                                       [&comms, pairs, n, way = way](benchmark::State& s) {
                                         distributed_sort(s, &comms, pairs, n, way);
                                       })
              ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(5);
        }
    }
  }
  for (auto& comms : keep) {
    const int ranks = int(comms.size());
    if (ranks == 1) continue;
    for (std::size_t bytes : {std::size_t(1) << 30, std::size_t(4) << 30})
      for (auto [memory, name] : {std::pair{receive_memory::malloc, ""},
                                  std::pair{receive_memory::pool, "pool:"},
                                  std::pair{receive_memory::pool_with_peer_access,
                                            "pool_with_peer_access:"}})
        benchmark::RegisterBenchmark(("all_to_all/" + std::string(name) + "ranks:" +
                                      std::to_string(ranks) + "/bytes_per_rank:" +
                                      std::to_string(bytes)).c_str(),
                                     [&comms, bytes, memory = memory](benchmark::State& s) {
                                       all_to_all(s, &comms, bytes, memory);
                                     })
            ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(5);
  }
  for (int ranks : {2, 4, 8})
    benchmark::RegisterBenchmark(("partition_kernels/u32/ranks:" + std::to_string(ranks) +
                                  "/n:1073741824").c_str(),
                                 [=](benchmark::State& s) {
                                   partition_kernels(s, ranks, std::size_t(1) << 30);
                                 })
        ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(5);
  for (int log2 : {31, host_log2}) {
    if (log2 <= 0 || (log2 == 31 && host_log2 == 31)) continue;
    for (int ranks = 1; ranks <= visible; ranks *= 2) {
      const std::size_t n = std::size_t(1) << log2;
      benchmark::RegisterBenchmark(("host_sort/u32/ranks:" + std::to_string(ranks) + "/total:" +
                                    std::to_string(n)).c_str(),
                                   [=](benchmark::State& s) { host_sort(s, ranks, n); })
          // One run of the largest: its allocation, fill and check take minutes.
          ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(log2 >= 34 ? 1 : 2);
    }
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
