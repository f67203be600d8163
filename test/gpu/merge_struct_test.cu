// The merge backend on struct keys with comparators of their own: a 16-byte key ordered by
// two of its fields, and a 12-byte key ordered descending on one field and ascending on
// another. Each key carries a payload field that is not part of the order (its input
// position), so stability, and any key lost or duplicated, shows in the keys alone.
#include "merge_sort_tests.cuh"

#include <cmath>
#include <cstdint>
#include <ostream>
#include <random>
#include <tuple>
#include <type_traits>
#include <vector>

namespace gpusort::test {
namespace {

// ---- 16 bytes, ordered by (major, minor) ----------------------------------------------

struct record {
  std::uint64_t major;
  std::uint32_t minor;
  std::uint32_t tag;  // input position: payload, not part of the order
};
static_assert(sizeof(record) == 16 && std::is_trivially_copyable_v<record>);

std::ostream& operator<<(std::ostream& s, const record& r) {
  return s << "{major " << r.major << ", minor " << r.minor << ", tag " << r.tag << "}";
}

struct by_major_then_minor {
  __host__ __device__ bool operator()(const record& a, const record& b) const {
    if (a.major != b.major) return a.major < b.major;
    return a.minor < b.minor;
  }
};

struct record_case : merge_case_defaults {
  using key = record;
  using compare = by_major_then_minor;
  static std::string name() { return "record16_by_major_then_minor"; }
  static bool reference(const record& a, const record& b) {
    return std::tie(a.major, a.minor) < std::tie(b.major, b.minor);
  }
  // 1024 majors spread over all 64 bits (the high bit too), so equal majors are common and
  // the minor field decides; a minor over all 32 bits.
  static record random_record(std::mt19937_64& rng) {
    const std::uint64_t major = (rng() % 1024) * 0x9E3779B97F4A7C15ull;
    return {major, std::uint32_t(rng()), 0};
  }
  static std::vector<record> make_keys(std::size_t n, distribution d, std::uint64_t seed) {
    std::vector<record> keys = make_keys_from<record>(n, d, seed, random_record, reference);
    for (std::size_t i = 0; i < n; ++i) keys[i].tag = std::uint32_t(i);
    return keys;
  }
  static std::vector<std::size_t> large_sizes() {
    return capped({two_to_the_20_plus_7, two_to_the_25_plus_1});
  }
};

// ---- 12 bytes (no power of two), priority descending, then deadline ascending ---------

struct job {
  std::int32_t priority;
  float deadline;    // finite; both signs of zero occur (equivalent, different bits)
  std::uint32_t id;  // input position: payload, not part of the order
};
static_assert(sizeof(job) == 12 && std::is_trivially_copyable_v<job>);

std::ostream& operator<<(std::ostream& s, const job& j) {
  return s << "{priority " << j.priority << ", deadline " << j.deadline
           << (std::signbit(j.deadline) ? " (sign set)" : "") << ", id " << j.id << "}";
}

struct by_priority_descending_then_deadline {
  __host__ __device__ bool operator()(const job& a, const job& b) const {
    if (a.priority != b.priority) return a.priority > b.priority;
    return a.deadline < b.deadline;
  }
};

struct job_case : merge_case_defaults {
  using key = job;
  using compare = by_priority_descending_then_deadline;
  static std::string name() { return "job12_by_priority_descending_then_deadline"; }
  static bool reference(const job& a, const job& b) {
    return std::tie(b.priority, a.deadline) < std::tie(a.priority, b.deadline);
  }
  // Priorities in [-8, 8) (signed comparison matters); deadlines in quarter steps over
  // [-100, 100], so equal deadlines occur, and rounding gives -0.0 as well as +0.0.
  static job random_job(std::mt19937_64& rng) {
    const auto priority = std::int32_t(rng() % 16) - 8;
    const double deadline = std::uniform_real_distribution<double>(-100, 100)(rng);
    return {priority, float(std::round(deadline * 4) / 4), 0};
  }
  static std::vector<job> make_keys(std::size_t n, distribution d, std::uint64_t seed) {
    std::vector<job> keys = make_keys_from<job>(n, d, seed, random_job, reference);
    for (std::size_t i = 0; i < n; ++i) keys[i].id = std::uint32_t(i);
    return keys;
  }
};

}  // namespace

using StructCases = ::testing::Types<record_case, job_case>;
INSTANTIATE_TYPED_TEST_SUITE_P(Struct, MergeSort, StructCases, merge_case_name);

namespace {

class MergeStructKeys : public GpuTest {};

// gpusort::par has no radix route for these keys: it must sort them with the merge backend,
// with the same guarantees.
TEST_F(MergeStructKeys, ParSortsKeysWithoutRadixTraitsWithTheMergeBackend) {
  static_assert(std::is_same_v<automatic_backend_t<record, by_major_then_minor>, merge_backend>);
  static_assert(std::is_same_v<automatic_backend_t<job, by_priority_descending_then_deadline>,
                               merge_backend>);
  const std::vector<std::size_t> sizes = capped({4097, 100003});
  const std::vector<distribution> distributions{distribution::uniform, distribution::few_distinct};
  sweep_case<record_case, true, false>(gpusort::par, sizes, distributions, 11);
  sweep_case<record_case, false, true>(gpusort::par, sizes, distributions, 12);
  sweep_case<job_case, false, false>(gpusort::par, sizes, distributions, 13);
  sweep_case<job_case, true, true>(gpusort::par, sizes, distributions, 14);
}

}  // namespace
}  // namespace gpusort::test
