// Compile-time backend selection and the front door's checks that need no GPU.
#include <gpusort/sort.cuh>

#include <gtest/gtest.h>

#include <thrust/device_vector.h>
#include <thrust/functional.h>

#include <cstdint>
#include <functional>
#include <iterator>
#include <string>
#include <type_traits>
#include <vector>

namespace selection_test {

struct point {
  float x, y;
};
struct by_x {
  __host__ __device__ bool operator()(const point& a, const point& b) const { return a.x < b.x; }
};
struct descending_by_parity {
  __host__ __device__ bool operator()(int a, int b) const { return (a & 1) < (b & 1); }
};

}  // namespace selection_test

namespace {

using namespace selection_test;
using gpusort::automatic_backend_t;
using gpusort::comparator_order_v;
using gpusort::key_order;

TEST(Selection, NamedComparatorsAreRecognisedAsTheSameOrders) {
  static_assert(comparator_order_v<gpusort::less<>, float> == key_order::ascending);
  static_assert(comparator_order_v<gpusort::less<float>, float> == key_order::ascending);
  static_assert(comparator_order_v<gpusort::greater<>, int> == key_order::descending);
  static_assert(comparator_order_v<thrust::less<unsigned>, unsigned> == key_order::ascending);
  static_assert(comparator_order_v<thrust::greater<unsigned>, unsigned> == key_order::descending);
  static_assert(comparator_order_v<cuda::std::less<>, double> == key_order::ascending);
  static_assert(comparator_order_v<cuda::std::greater<double>, double> == key_order::descending);
  static_assert(comparator_order_v<std::greater<long>, long> == key_order::descending);
  // A named order for another type converts, so it is not taken for the key's order.
  static_assert(comparator_order_v<gpusort::less<int>, long> == key_order::custom);
  static_assert(comparator_order_v<descending_by_parity, int> == key_order::custom);
  SUCCEED();
}

TEST(Selection, ParPicksRadixForRadixKeysWithNamedOrders) {
  static_assert(std::is_same_v<automatic_backend_t<std::uint32_t, gpusort::less<>>, gpusort::radix_backend>);
  static_assert(std::is_same_v<automatic_backend_t<double, thrust::greater<double>>, gpusort::radix_backend>);
  static_assert(std::is_same_v<automatic_backend_t<__half, gpusort::less<>>, gpusort::radix_backend>);
  static_assert(std::is_same_v<automatic_backend_t<bool, gpusort::greater<>>, gpusort::radix_backend>);
  SUCCEED();
}

TEST(Selection, ParPicksTheComparisonBackendOtherwise) {
  static_assert(std::is_same_v<automatic_backend_t<int, descending_by_parity>, gpusort::merge_backend>);
  static_assert(std::is_same_v<automatic_backend_t<point, by_x>, gpusort::merge_backend>);
  static_assert(!gpusort::backend_can_serve_v<gpusort::radix_backend, point, by_x>);
  static_assert(gpusort::backend_can_serve_v<gpusort::merge_backend, point, by_x>);
  static_assert(!gpusort::backend_can_serve_v<gpusort::merge_backend, point, gpusort::less<>>);
  SUCCEED();
}

// The comparison sort's last merge pass searches its splits inside its merge kernel only
// where no split can disagree (a garbled last pass would have no pass after it to leave its
// input in place): gpusort's own orders of arithmetic keys and the radix backends' order.
TEST(Selection, OnlyOrdersThatCannotDisagreeSearchTheLastMergePassInsideItsMerge) {
  using gpusort::backends::merge::splits_always_agree;
  static_assert(splits_always_agree<std::uint32_t, gpusort::less<>>);
  static_assert(splits_always_agree<double, gpusort::less<double>>);
  static_assert(splits_always_agree<float, gpusort::greater<>>);
  static_assert(splits_always_agree<std::uint64_t,
                                    gpusort::backends::radix_order_less<std::uint64_t, true>>);
  // A user's comparator, or gpusort's order of a user's type (its operator<), is not trusted.
  static_assert(!splits_always_agree<int, descending_by_parity>);
  static_assert(!splits_always_agree<std::uint32_t, std::less<std::uint32_t>>);
  static_assert(!splits_always_agree<point, by_x>);
  static_assert(!splits_always_agree<point, gpusort::less<>>);
  SUCCEED();
}

TEST(Selection, EveryBuiltInPolicyIsAPolicy) {
  static_assert(gpusort::is_execution_policy_v<decltype(gpusort::par)>);
  static_assert(gpusort::is_execution_policy_v<decltype(gpusort::radix)>);
  static_assert(gpusort::is_execution_policy_v<decltype(gpusort::merge)>);
  static_assert(gpusort::is_execution_policy_v<decltype(gpusort::bucket_bitonic)>);
  static_assert(!gpusort::is_execution_policy_v<int>);
  SUCCEED();
}

TEST(Policy, OnAndWithAllocatorReturnModifiedCopies) {
  struct null_allocator {
    void* allocate(std::size_t, cudaStream_t) { return nullptr; }
    void deallocate(void*, std::size_t, cudaStream_t) {}
  } allocator;
  const auto stream = reinterpret_cast<cudaStream_t>(0x1234);
  const auto policy = gpusort::radix.on(stream).with_allocator(allocator);
  static_assert(std::is_same_v<std::remove_cv_t<decltype(policy)>, gpusort::radix_policy<>>);
  EXPECT_EQ(policy.stream(), stream);
  EXPECT_FALSE(policy.allocator().is_default());
  EXPECT_EQ(gpusort::radix.stream(), nullptr);
  EXPECT_TRUE(gpusort::radix.allocator().is_default());
}

TEST(FrontDoor, EmptyAndSingleElementRangesNeedNoGpu) {
  std::uint32_t* none = nullptr;
  EXPECT_NO_THROW(gpusort::sort(gpusort::radix, none, none));
  EXPECT_NO_THROW(gpusort::stable_sort(gpusort::par, none, none, gpusort::greater<>{}));
  EXPECT_NO_THROW(gpusort::sort_by_key(gpusort::radix, none, none, static_cast<float*>(nullptr)));
  std::uint32_t one = 42;  // one element is sorted wherever it lives
  EXPECT_NO_THROW(gpusort::sort(gpusort::radix, &one, &one + 1));
  EXPECT_EQ(one, 42u);
}

TEST(FrontDoor, LastBeforeFirstIsAnError) {
  std::uint32_t* base = reinterpret_cast<std::uint32_t*>(0x1000);
  try {
    gpusort::sort(gpusort::radix, base + 4, base);
    FAIL() << "expected gpusort::error";
  } catch (const gpusort::error& e) {
    EXPECT_NE(std::string(e.what()).find("last precedes its first"), std::string::npos) << e.what();
  }
}

// The gpusort::error that check_cuda throws for `status`.
gpusort::error error_of_check_cuda(cudaError_t status, const char* doing) {
  try {
    gpusort::detail::check_cuda(status, doing);
  } catch (const gpusort::error& e) {
    return e;
  }
  ADD_FAILURE() << "check_cuda did not throw for " << cudaGetErrorName(status);
  return gpusort::error("");
}

TEST(Errors, CarryTheCudaErrorAndWhatGpusortWasDoing) {
  const gpusort::error e =
      error_of_check_cuda(cudaErrorMemoryAllocation, "allocating the digit table");
  const std::string message = e.what();
  EXPECT_NE(message.find("allocating the digit table"), std::string::npos) << message;
  EXPECT_NE(message.find("cudaErrorMemoryAllocation"), std::string::npos) << message;
  EXPECT_EQ(e.code(), cudaErrorMemoryAllocation);
}

TEST(Errors, NoUsableDeviceOrDriverIsSaidAsSuch) {
  for (const cudaError_t status : {cudaErrorNoDevice, cudaErrorInsufficientDriver}) {
    const gpusort::error e = error_of_check_cuda(status, "starting the sort");
    const std::string message = e.what();
    EXPECT_NE(message.find("no usable CUDA device or driver"), std::string::npos) << message;
    EXPECT_EQ(message.find("earlier work"), std::string::npos) << message;
    EXPECT_EQ(e.code(), status);
  }
}

// The same call either way, and each machine checks what it can: without a usable device
// (CI), that the sort says so instead of blaming earlier work; with one, that host memory
// is refused for what it is.
TEST(FrontDoor, HostVectorSaysWhatIsMissing) {
  std::vector<std::uint32_t> keys = {3, 1, 2};
  std::string message;
  try {
    gpusort::sort(gpusort::par, keys.begin(), keys.end());
  } catch (const gpusort::error& e) {
    message = e.what();
  }
  int devices = 0;
  const bool have_device = cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0;
  cudaGetLastError();
  EXPECT_EQ(message.find("earlier work"), std::string::npos) << message;
  if (have_device)
    EXPECT_NE(message.find("is in host memory"), std::string::npos) << message;
  else
    EXPECT_NE(message.find("no usable CUDA device or driver"), std::string::npos) << message;
  EXPECT_EQ(keys, (std::vector<std::uint32_t>{3, 1, 2}));  // untouched
}

}  // namespace

// ---- par's run-time choice: the dispatch table -----------------------------------------

namespace {

using gpusort::par_dispatch_row;
using gpusort::par_strategy;

constexpr par_dispatch_row example_table[] = {
    {4, false, 1000, par_strategy::cluster_small},
    {4, false, 5000, par_strategy::cluster_medium},
    {4, true, 2000, par_strategy::cluster_medium},
    {8, false, 300, par_strategy::merge},
    {8, false, 4000, par_strategy::cluster_small},
};

TEST(ParDispatch, EachRowCoversSizesUpToItsLimitThenTheNextRowTakesOver) {
  using gpusort::choose_par_strategy;
  EXPECT_EQ(choose_par_strategy(example_table, 4, false, 2, true), par_strategy::cluster_small);
  EXPECT_EQ(choose_par_strategy(example_table, 4, false, 1000, true), par_strategy::cluster_small);
  EXPECT_EQ(choose_par_strategy(example_table, 4, false, 1001, true), par_strategy::cluster_medium);
  EXPECT_EQ(choose_par_strategy(example_table, 4, false, 5000, true), par_strategy::cluster_medium);
  EXPECT_EQ(choose_par_strategy(example_table, 4, false, 5001, true), par_strategy::onesweep);
  EXPECT_EQ(choose_par_strategy(example_table, 4, true, 2000, true), par_strategy::cluster_medium);
  EXPECT_EQ(choose_par_strategy(example_table, 4, true, 2001, true), par_strategy::onesweep);
}

TEST(ParDispatch, MergeRowsArePassedOverWhereMergeWouldChangeTheOrder) {
  using gpusort::choose_par_strategy;
  EXPECT_EQ(choose_par_strategy(example_table, 8, false, 300, true), par_strategy::merge);
  EXPECT_EQ(choose_par_strategy(example_table, 8, false, 300, false), par_strategy::cluster_small);
  EXPECT_EQ(choose_par_strategy(example_table, 8, false, 301, true), par_strategy::cluster_small);
}

void expect_well_formed(const par_dispatch_row* table, std::size_t rows);

// Floating-point keys pass over msd_buckets rows to the rows after them; integers stop there.
TEST(ParDispatch, FloatingPointKeysTakeTheRowsAfterTheBuckets) {
  using gpusort::choose_par_strategy;
  constexpr par_dispatch_row table[] = {
      {4, false, 1000, par_strategy::cluster_small},
      {4, false, 8000, par_strategy::msd_buckets},
      {4, false, 4000, par_strategy::onesweep_small_tiles},
      {4, false, 8000, par_strategy::onesweep},
      {4, false, 9000, par_strategy::cluster_medium},
  };
  for (std::size_t n : {1001, 4000, 4001, 8000})
    EXPECT_EQ(choose_par_strategy(table, 4, false, n, true, true), par_strategy::msd_buckets);
  EXPECT_EQ(choose_par_strategy(table, 4, false, 1001, true, false),
            par_strategy::onesweep_small_tiles);
  EXPECT_EQ(choose_par_strategy(table, 4, false, 4000, true, false),
            par_strategy::onesweep_small_tiles);
  EXPECT_EQ(choose_par_strategy(table, 4, false, 4001, true, false), par_strategy::onesweep);
  EXPECT_EQ(choose_par_strategy(table, 4, false, 8001, true, false), par_strategy::cluster_medium);
  EXPECT_EQ(choose_par_strategy(table, 4, false, 8001, true, true), par_strategy::cluster_medium);
  expect_well_formed(table, 5);
}

// par compiles its merge strategy only where a table names it.
TEST(ParDispatch, TableNamesFindsAStrategyInAnyRow) {
  constexpr gpusort::par_dispatch_row table[] = {
      {4, false, 1000, gpusort::par_strategy::cluster_small},
      {8, true, 2000, gpusort::par_strategy::merge},
  };
  static_assert(gpusort::table_names(table, gpusort::par_strategy::merge));
  static_assert(gpusort::table_names(table, gpusort::par_strategy::cluster_small));
  static_assert(!gpusort::table_names(table, gpusort::par_strategy::onesweep));
}

// ... and only for the keys whose class of rows names it (keys of other widths do not pay
// for its kernels); keys outside the table's widths take the nearest class's.
TEST(ParDispatch, TableNamesForLooksOnlyAtTheKeysClass) {
  static_assert(gpusort::table_names_for(example_table, 5, 8, false, par_strategy::merge));
  static_assert(gpusort::table_names_for(example_table, 5, 16, false, par_strategy::merge));
  static_assert(!gpusort::table_names_for(example_table, 5, 4, false, par_strategy::merge));
  static_assert(!gpusort::table_names_for(example_table, 5, 2, false, par_strategy::merge));
  static_assert(gpusort::table_names_for(example_table, 5, 2, false, par_strategy::cluster_medium));
}

// Keys alone and pairs apart (the mid and pair tiles are compiled only for the one a row
// names): 4-byte pairs have a cluster_medium row, 4-byte keys alone too, 8-byte pairs none.
TEST(ParDispatch, TableNamesForTellsKeysAloneFromPairs) {
  static_assert(gpusort::table_names_for(example_table, 5, 4, true, par_strategy::cluster_medium));
  static_assert(!gpusort::table_names_for(example_table, 5, 4, true, par_strategy::cluster_small));
  static_assert(gpusort::table_names_for(example_table, 5, 4, false, par_strategy::cluster_small));
  static_assert(!gpusort::table_names_for(example_table, 5, 8, true, par_strategy::merge));
  static_assert(gpusort::table_names_for(example_table, 5, 16, false, par_strategy::merge));
  static_assert(!gpusort::table_names_for(example_table, 5, 8, true, par_strategy::cluster_medium));
}

TEST(ParDispatch, KeysOutsideTheTablesWidthsUseTheNearestClass) {
  using gpusort::choose_par_strategy;
  EXPECT_EQ(choose_par_strategy(example_table, 1, false, 800, true), par_strategy::cluster_small);
  EXPECT_EQ(choose_par_strategy(example_table, 2, true, 2000, true), par_strategy::cluster_medium);
  EXPECT_EQ(choose_par_strategy(example_table, 16, false, 4000, false), par_strategy::cluster_small);
}

// The committed tables: every class's rows grow in n as integer keys see them (rows after an
// msd_buckets row up to its max_n are never reached) and as floating-point keys see them (no
// msd_buckets rows), an msd_buckets row is followed by rows up to its own max_n, and a cluster
// row never asks for more keys than 16 blocks of its tiling hold (else par would silently fall
// back).
void expect_well_formed(const par_dispatch_row* table, std::size_t rows) {
  for (bool integer_keys : {true, false})
    for (std::size_t i = 0; i < rows; ++i) {
      std::size_t covered = 0;  // by an msd_buckets row an integer key takes
      std::size_t last = 0;
      bool first = true;
      for (std::size_t j = 0; j < rows; ++j) {
        const par_dispatch_row& row = table[j];
        if (row.key_bytes != table[i].key_bytes || row.with_values != table[i].with_values)
          continue;
        const bool buckets = row.strategy == par_strategy::msd_buckets;
        if (!integer_keys && buckets) continue;
        if (integer_keys && !buckets && row.max_n <= covered) continue;
        if (!first) EXPECT_LT(last, row.max_n) << "row " << j << (integer_keys ? " (integers)" : "");
        first = false;
        last = row.max_n;
        if (buckets) covered = row.max_n;
      }
    }
  for (std::size_t i = 0; i < rows; ++i)
    if (table[i].strategy == par_strategy::msd_buckets) {
      ASSERT_LT(i + 1, rows) << "an msd_buckets row without the rows floating-point keys take";
      EXPECT_EQ(table[i + 1].key_bytes, table[i].key_bytes);
      EXPECT_EQ(table[i + 1].with_values, table[i].with_values);
      EXPECT_NE(table[i + 1].strategy, par_strategy::msd_buckets);
    }
}

template <class Tiling, class Key, class Value>
constexpr std::size_t cluster_capacity() {
  return std::size_t(gpusort::backends::radix::cluster_shape<Tiling, Key, Value>::capacity);
}

template <class Key, class Value>
std::size_t capacity_of(par_strategy strategy) {
  switch (strategy) {
    case par_strategy::cluster_small:
      return cluster_capacity<gpusort::cluster_tiling_small_sm90, Key, Value>();
    case par_strategy::cluster_medium:
      return cluster_capacity<gpusort::cluster_tiling_medium_sm90, Key, Value>();
    default:
      return ~std::size_t(0);
  }
}

void expect_clusters_hold_their_rows(const par_dispatch_row* table, std::size_t rows) {
  using gpusort::no_values;
  for (std::size_t i = 0; i < rows; ++i) {
    const par_dispatch_row& row = table[i];
    const std::size_t capacity =
        row.key_bytes == 4
            ? (row.with_values ? capacity_of<std::uint32_t, std::uint32_t>(row.strategy)
                               : capacity_of<std::uint32_t, no_values>(row.strategy))
            : (row.with_values ? capacity_of<std::uint64_t, std::uint32_t>(row.strategy)
                               : capacity_of<std::uint64_t, no_values>(row.strategy));
    EXPECT_LE(row.max_n, capacity) << "key bytes " << row.key_bytes << " max_n " << row.max_n;
  }
}

TEST(ParDispatch, CommittedTablesAreOrderedByNAndFitTheirClusters) {
  for (const gpusort::par_tuned_table& table : gpusort::par_tuned_tables) {
    SCOPED_TRACE(table.gpu);
    expect_well_formed(table.rows, table.row_count);
    expect_clusters_hold_their_rows(table.rows, table.row_count);
  }
  constexpr std::size_t default_rows = std::size(gpusort::par_table_default);
  expect_well_formed(gpusort::par_table_default, default_rows);
  expect_clusters_hold_their_rows(gpusort::par_table_default, default_rows);
  // Merge only where a measured table names it: every par call site would compile it.
  EXPECT_FALSE(gpusort::table_names(gpusort::par_table_default, par_strategy::merge));
}

// Pairs of 32-bit keys take the sorting network ahead of the rows up to the table's limit,
// which one cluster of the pairs' network tiling must hold: the H200's clusters of eight
// blocks (4096), every other GPU's the default (2048, where the network beat the rows on the
// H100 too).
TEST(ParDispatch, CommittedTablesKeepTheirPairsNetworkLimitWithinOneCluster) {
  constexpr gpusort::network_knobs pairs = gpusort::network_tiling_with_values_sm90::knobs;
  const std::size_t cluster_keys =
      std::size_t(pairs.block_threads) * pairs.items_per_thread * pairs.max_cluster_blocks;
  for (const gpusort::par_tuned_table& table : gpusort::par_tuned_tables) {
    SCOPED_TRACE(table.gpu);
    EXPECT_LE(table.network_pairs_max_keys, cluster_keys);
    EXPECT_GE(table.network_pairs_max_keys, gpusort::default_network_pairs_max_keys);
  }
  EXPECT_EQ(gpusort::par_table_h200.network_pairs_max_keys, 4096u);
  EXPECT_EQ(gpusort::par_table_h100.network_pairs_max_keys,
            gpusort::default_network_pairs_max_keys);
  EXPECT_EQ(gpusort::par_table_other_gpus.network_pairs_max_keys,
            gpusort::default_network_pairs_max_keys);
}

// ---- par's run-time choice: which table a device gets ------------------------------------

constexpr par_dispatch_row fast_memory_rows[] = {{4, false, 100, par_strategy::cluster_small}};
constexpr par_dispatch_row slow_memory_rows[] = {{4, false, 200, par_strategy::cluster_small}};
constexpr par_dispatch_row other_arch_rows[] = {{4, false, 300, par_strategy::cluster_small}};
constexpr gpusort::par_tuned_table example_tables[] = {
    {"slow", 9, 0, 3.35e12, slow_memory_rows, 1},
    {"fast", 9, 0, 4.9e12, fast_memory_rows, 1},
    {"other", 8, 0, 2.0e12, other_arch_rows, 1},
};

TEST(ParTableChoice, TheTableOfTheNearestBandwidthWithinTheComputeCapability) {
  using gpusort::choose_par_table;
  EXPECT_STREQ(choose_par_table(example_tables, 9, 0, 3.35e12)->gpu, "slow");  // an H100 SXM
  EXPECT_STREQ(choose_par_table(example_tables, 9, 0, 4.9e12)->gpu, "fast");   // an H200
  EXPECT_STREQ(choose_par_table(example_tables, 9, 0, 2.0e12)->gpu, "slow");   // an H100 PCIe
  EXPECT_STREQ(choose_par_table(example_tables, 9, 0, 4.1e12)->gpu, "fast");   // nearer by ratio
  EXPECT_STREQ(choose_par_table(example_tables, 9, 0, 4.0e12)->gpu, "slow");
  EXPECT_STREQ(choose_par_table(example_tables, 8, 0, 4.9e12)->gpu, "other");  // never across
}

TEST(ParTableChoice, NoTableOfTheComputeCapabilityMeansNone) {
  EXPECT_EQ(gpusort::choose_par_table(example_tables, 8, 9, 1.0e12), nullptr);
  EXPECT_EQ(gpusort::choose_par_table(example_tables, 10, 0, 8.0e12), nullptr);
}

TEST(ParTableChoice, AnUnknownBandwidthTakesTheFirstTableOfTheComputeCapability) {
  EXPECT_STREQ(gpusort::choose_par_table(example_tables, 9, 0, 0.0)->gpu, "slow");
}

// The committed tables: the H100 (3.35 TB/s) and H200 (4.9 TB/s) each get their own.
TEST(ParTableChoice, CommittedTablesTellTheH100FromTheH200) {
  using gpusort::choose_par_table;
  using gpusort::par_tuned_tables;
  EXPECT_STREQ(choose_par_table(par_tuned_tables, 9, 0, 2.0 * 2619e6 * 5120 / 8)->gpu,
               gpusort::par_table_h100.gpu);
  EXPECT_STREQ(choose_par_table(par_tuned_tables, 9, 0, 2.0 * 3201e6 * 6144 / 8)->gpu,
               gpusort::par_table_h200.gpu);
  EXPECT_EQ(choose_par_table(par_tuned_tables, 8, 0, 2.0e12), nullptr);
}

}  // namespace
