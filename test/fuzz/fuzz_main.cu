// gpusort_fuzz: randomized differential testing of gpusort's public API. Each case sorts on
// the GPU and compares with std::stable_sort on the host (test/fuzz/run_case.cuh); case i of
// a run is drawn from the seed splitmix64(run seed, i), so a run is reproducible and each
// failure is replayed alone by the command printed with it.
//
//   gpusort_fuzz [--cases N] [--first I] [--seed S] [--profile quick|long] [--max-n N]
//                [--jobs J]
//   gpusort_fuzz --case 0xSEED [--profile quick|long] [--max-n N]     one case
//   gpusort_fuzz --list [...]                   print the cases without running them
//
// The host work of a case (making keys, std::stable_sort, the checks) takes far longer than
// its sort: J host threads do it, while the device sorts one case at a time (device_mutex).
// --first I runs cases I, I+1, ... of the run, so a long run can be split into pieces.
//
// Exit status: 0 every case passed, 1 a case failed, 2 bad arguments, 77 no GPU (skipped).
#include "device_buffer.cuh"
#include "fuzz_cases.cuh"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace gpusort::fuzz;

// Fixed, so that two runs without --seed run the same cases.
constexpr std::uint64_t default_seed = 20261123;
constexpr std::uint64_t default_cases = 1000;
constexpr std::uint64_t progress_every = 500;

struct options {
  std::uint64_t cases = default_cases;
  std::uint64_t first = 0;
  std::uint64_t seed = default_seed;
  profile run_profile = profile::long_run;
  std::size_t max_n = 0;  // 0: the profile's
  unsigned jobs = 0;      // 0: one per hardware thread, at most 16
  std::optional<std::uint64_t> single_case;
  bool list = false;
};

void print_usage() {
  std::printf(
      "usage: gpusort_fuzz [--cases N] [--first I] [--seed S] [--profile quick|long]\n"
      "                    [--max-n N] [--jobs J] [--list]\n"
      "       gpusort_fuzz --case 0xSEED [--profile quick|long] [--max-n N]\n"
      "Sorts random inputs through gpusort's public API and compares with std::stable_sort.\n"
      "Runs cases I .. I+N-1 of the run of seed S. Defaults: --cases %llu --first 0 --seed %llu\n"
      "--profile long (sizes up to 2^22; quick: ~2^18) --jobs: one per hardware thread, up to\n"
      "16 (host threads; the GPU sorts one case at a time).\n"
      "--list prints each case's parameters without running it (no GPU needed).\n"
      "Exit status: 0 all passed, 1 a case failed, 2 bad arguments, 77 no GPU.\n",
      static_cast<unsigned long long>(default_cases),
      static_cast<unsigned long long>(default_seed));
}

// Decimal or 0x-prefixed hexadecimal.
std::uint64_t parse_number(const std::string& flag, const std::string& text) {
  std::size_t used = 0;
  std::uint64_t value = 0;
  try {
    value = std::stoull(text, &used, 0);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || text[0] == '-')
    throw std::invalid_argument(flag + " takes a number, not '" + text + "'");
  return value;
}

options parse_options(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--list") {
      o.list = true;
      continue;
    }
    if (flag == "--help" || flag == "-h") {
      print_usage();
      std::exit(0);
    }
    if (i + 1 >= argc) throw std::invalid_argument("unknown option or missing value: " + flag);
    const std::string value = argv[++i];
    if (flag == "--cases") {
      o.cases = parse_number(flag, value);
      if (o.cases == 0) throw std::invalid_argument("--cases must be at least 1");
    } else if (flag == "--first") {
      o.first = parse_number(flag, value);
    } else if (flag == "--seed") {
      o.seed = parse_number(flag, value);
    } else if (flag == "--case") {
      o.single_case = parse_number(flag, value);
    } else if (flag == "--max-n") {
      o.max_n = parse_number(flag, value);
      if (o.max_n == 0) throw std::invalid_argument("--max-n must be at least 1");
    } else if (flag == "--jobs") {
      o.jobs = unsigned(std::min<std::uint64_t>(parse_number(flag, value), 256));
      if (o.jobs == 0) throw std::invalid_argument("--jobs must be at least 1");
    } else if (flag == "--profile") {
      const std::optional<profile> p = profile_named(value);
      if (!p) throw std::invalid_argument("--profile is quick or long, not '" + value + "'");
      o.run_profile = *p;
    } else {
      throw std::invalid_argument("unknown option: " + flag);
    }
  }
  return o;
}

bool gpu_present(std::string& why) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    why = cudaGetErrorString(status);
    return false;
  }
  if (count == 0) why = "no CUDA device";
  return count > 0;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// What the worker threads share: the next case to take, the tallies, the failures.
class run_state {
 public:
  run_state(const std::vector<std::uint64_t>& seeds, const options& o)
      : seeds_(seeds), options_(o), start_(std::chrono::steady_clock::now()) {}

  // Takes cases until none is left (or the CUDA context broke).
  void work() {
    for (;;) {
      if (stopped_.load()) return;
      const std::size_t i = next_.fetch_add(1);
      if (i >= seeds_.size()) return;
      const fuzz_case c = draw_case(seeds_[i], options_.run_profile, options_.max_n);
      const std::string failure = run_fuzz_case(c);
      const bool context_broken = !failure.empty() && !device_still_usable();
      record(i, c, failure, context_broken);
    }
  }

  // The summary line, then each failure (in case order) and its reproduce command.
  int report() {
    std::sort(failures_.begin(), failures_.end(),
              [](const failure_record& a, const failure_record& b) { return a.index < b.index; });
    const std::size_t not_run = seeds_.size() - done_;
    std::printf("ran %zu cases in %.1f s%s\n", done_, seconds_since(start_),
                not_run ? (" (" + std::to_string(not_run) + " not run)").c_str() : "");
    std::printf("%zu passed, %zu failed\n", passed_, failures_.size());
    for (const failure_record& f : failures_)
      std::printf("\n%s\n  failure: %s\n  reproduce: %s\n", describe(f.c).c_str(),
                  f.failure.c_str(), reproduce_command(f.c).c_str());
    return failures_.empty() && not_run == 0 ? 0 : 1;
  }

 private:
  struct failure_record {
    std::size_t index;
    fuzz_case c;
    std::string failure;
  };

  void record(std::size_t i, const fuzz_case& c, const std::string& failure,
              bool context_broken) {
    const std::lock_guard<std::mutex> lock(report_mutex_);
    ++done_;
    if (failure.empty()) {
      ++passed_;
    } else {
      failures_.push_back({i, c, failure});
      std::printf("FAILED %s (%s)\n", hex(c.seed).c_str(), reproduce_command(c).c_str());
    }
    if (context_broken && !stopped_.exchange(true))
      std::printf("the CUDA context is unusable after case %s (a sticky error): stopping\n",
                  hex(c.seed).c_str());
    if (done_ % progress_every == 0 && done_ < seeds_.size())
      std::printf("[%zu/%zu] %zu passed, %zu failed, %.0f s\n", done_, seeds_.size(), passed_,
                  failures_.size(), seconds_since(start_));
    std::fflush(stdout);
  }

  const std::vector<std::uint64_t>& seeds_;
  const options& options_;
  const std::chrono::steady_clock::time_point start_;
  std::atomic<std::size_t> next_{0};
  std::atomic<bool> stopped_{false};
  std::mutex report_mutex_;
  std::size_t done_ = 0, passed_ = 0;
  std::vector<failure_record> failures_;
};

}  // namespace

int main(int argc, char** argv) {
  options o;
  try {
    o = parse_options(argc, argv);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "gpusort_fuzz: %s\n", e.what());
    print_usage();
    return 2;
  }

  // The case seeds of this run.
  std::vector<std::uint64_t> seeds;
  if (o.single_case) {
    seeds.push_back(*o.single_case);
  } else {
    for (std::uint64_t i = o.first; i < o.first + o.cases; ++i)
      seeds.push_back(case_seed(o.seed, i));
  }

  if (o.list) {
    for (std::uint64_t seed : seeds)
      std::printf("%s\n", describe(draw_case(seed, o.run_profile, o.max_n)).c_str());
    return 0;
  }

  std::string why;
  if (!gpu_present(why)) {
    std::printf("gpusort_fuzz: no CUDA GPU here (%s); skipped\n", why.c_str());
    return 77;
  }
  cudaDeviceProp properties{};
  int device = 0;
  cudaGetDevice(&device);
  cudaGetDeviceProperties(&properties, device);
  const std::size_t max_n = o.max_n != 0 ? o.max_n : settings_of(o.run_profile).max_n;
  unsigned jobs = o.jobs;
  if (jobs == 0) jobs = std::min(std::max(std::thread::hardware_concurrency(), 1u), 16u);
  if (o.single_case) {
    jobs = 1;
    std::printf("gpusort_fuzz: on %s\n%s\n", properties.name,
                describe(draw_case(*o.single_case, o.run_profile, o.max_n)).c_str());
  } else {
    std::printf("gpusort_fuzz: cases %llu..%llu of seed %llu, profile %s, sizes up to %zu, "
                "%u host threads, on %s\n",
                static_cast<unsigned long long>(o.first),
                static_cast<unsigned long long>(o.first + o.cases) - 1,
                static_cast<unsigned long long>(o.seed), name_of(o.run_profile), max_n, jobs,
                properties.name);
  }
  std::fflush(stdout);

  run_state state(seeds, o);
  std::vector<std::thread> workers;
  for (unsigned j = 1; j < jobs; ++j) workers.emplace_back([&state] { state.work(); });
  state.work();
  for (std::thread& worker : workers) worker.join();
  return state.report();
}
