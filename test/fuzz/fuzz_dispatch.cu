// Picks the translation unit of a case's key type, and lists the library's tile sizes and
// par thresholds for a key and value type (fuzz_case.cuh's size edges). Instantiates no
// kernel: the shapes are compile-time structs.
#include "fuzz_cases.cuh"

#include <gpusort/sort.cuh>

#include <cuda_fp16.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gpusort::fuzz {

// What the fuzz translation units compile, and what they leave out to stay within CI's
// budget (fuzz_case.cuh's has_u64_values and has_unstable_merge; draw_case never draws the
// calls left out). The radix family takes the order at run time and is stable anyway, so
// par and radix share their kernels between less/greater and sort/stable_sort; merge
// compiles its kernels per comparator, stability and value type (2-3 s each), and
// bucket_bitonic per value type. Every call on every key type, one translation unit per key
// type, took 387 s of compile time on the 2-core CI machine (~195 s of its build; f16 56 s,
// f32 52, u8 48, i16 45, u32 42, i32 42, f64 36, i64 31, u64 29, this file 6). Left out:
//  - u64 values with 1- and 2-byte keys (u8, i16, f16): -43 s. 8-byte values still meet
//    4- and 8-byte keys in every backend.
//  - unstable merge calls on i16, i32, u64 and f16 keys, and with u64 values: -30 s.
//    Unstable merges still run on u8, u32, i64, f32 and f64 keys (both float widths, with
//    NaNs and signed zeros); the merge kernels' tile shapes are the same for 1-, 2- and
//    4-byte keys. Stable merge calls stay on every key type: on integer keys gpusort::par
//    compiles exactly those kernels for its merge strategy anyway.
//  - and the key types share five translation units instead of nine: -18 s of repeated
//    header parsing.
// Now 270 s (fuzz_narrow 73, fuzz_int32 65, fuzz_f32 47, fuzz_int64 46, fuzz_f64 34, this
// file 6; fuzz_main.cu and gpu/fuzz_test.cu 4 s each): ~140 s of CI's 2-core build.
std::string run_fuzz_case(const fuzz_case& c) {
  switch (c.key) {
    case key_type::u8: return run_case_u8(c);
    case key_type::i16: return run_case_i16(c);
    case key_type::u32: return run_case_u32(c);
    case key_type::i32: return run_case_i32(c);
    case key_type::u64: return run_case_u64(c);
    case key_type::i64: return run_case_i64(c);
    case key_type::f32: return run_case_f32(c);
    case key_type::f64: return run_case_f64(c);
    case key_type::f16: return run_case_f16(c);
  }
  return "unknown key type";
}

namespace {

template <class Key, class Value>
std::vector<std::size_t> size_edges_of() {
  using backends::radix::cluster_shape;
  using backends::radix::radix_shape;
  using onesweep = radix_shape<radix_tuning_sm90, Key, Value>;
  using onesweep_small_tiles = radix_shape<radix_tuning_small_tiles_sm90, Key, Value>;
  using onesweep_mid_tiles = radix_shape<radix_tuning_mid_tiles_sm90, Key, Value>;
  using onesweep_pair_tiles = radix_shape<radix_tuning_pair_tiles_sm90, Key, Value>;
  using cluster_small = cluster_shape<cluster_tiling_small_sm90, Key, Value>;
  using cluster_medium = cluster_shape<cluster_tiling_medium_sm90, Key, Value>;
  using merge = backends::merge::merge_shape<
      backends::merge::tuning_for_values<merge_tuning_sm90, Key, has_values_v<Value>>, Key>;
  using bucket = backends::bucket_bitonic::bucket_shape<bucket_bitonic_tuning_sm90, Key, Value>;
  std::vector<std::size_t> edges = {
      std::size_t(onesweep::tile_items),       std::size_t(onesweep_small_tiles::tile_items),
      std::size_t(onesweep_mid_tiles::tile_items),  std::size_t(onesweep_pair_tiles::tile_items),
      std::size_t(cluster_small::tile_items),  std::size_t(cluster_small::capacity),
      std::size_t(cluster_medium::tile_items), std::size_t(cluster_medium::capacity),
      std::size_t(merge::tile_items),          std::size_t(merge::chunk_items),
      std::size_t(bucket::unit_items),         std::size_t(bucket::partition_tile)};
  // The large-input tile (keys only, and pairs of 4-byte keys and values): its tile and the
  // size it starts at.
  if constexpr (backends::radix::has_large_input_tile<radix_tuning_sm90, Key, Value>()) {
    using large =
        radix_shape<backends::radix::large_input_tuning<radix_tuning_sm90, Key>, Key, Value>;
    edges.push_back(std::size_t(large::tile_items));
    edges.push_back(backends::radix::large_input_min_keys<radix_tuning_sm90, Key, Value>());
  }
  // The counting sort of narrow keys and 16-bit floats (keys only): a fill tile and a count
  // step.
  if constexpr (is_counted_key_v<Key> && !has_values_v<Value>) {
    using counting = backends::radix::counting_shape_t<radix_tuning_sm90, Key>;
    edges.push_back(std::size_t(counting::fill_tile_vectors) * counting::keys_per_vector);
    edges.push_back(std::size_t(counting::count_threads) * counting::count_vectors *
                    counting::keys_per_vector);
  }
  // par's thresholds for this key class (1- and 2-byte keys use the 4-byte rows).
  constexpr bool with_values = has_values_v<Value>;
  const int key_class = sizeof(Key) < 4 ? 4 : int(sizeof(Key));
  for (const par_tuned_table& table : par_tuned_tables)
    for (std::size_t i = 0; i < table.row_count; ++i)
      if (table.rows[i].key_bytes == key_class && table.rows[i].with_values == with_values)
        edges.push_back(table.rows[i].max_n);
  return edges;
}

template <class Key>
std::vector<std::size_t> size_edges_of(value_type values) {
  switch (values) {
    case value_type::none: return size_edges_of<Key, no_values>();
    case value_type::u32: return size_edges_of<Key, std::uint32_t>();
    case value_type::u64: return size_edges_of<Key, std::uint64_t>();
  }
  return {};
}

}  // namespace

std::vector<std::size_t> backend_size_edges(key_type key, value_type values) {
  switch (key) {
    case key_type::u8: return size_edges_of<std::uint8_t>(values);
    case key_type::i16: return size_edges_of<std::int16_t>(values);
    case key_type::u32: return size_edges_of<std::uint32_t>(values);
    case key_type::i32: return size_edges_of<std::int32_t>(values);
    case key_type::u64: return size_edges_of<std::uint64_t>(values);
    case key_type::i64: return size_edges_of<std::int64_t>(values);
    case key_type::f32: return size_edges_of<float>(values);
    case key_type::f64: return size_edges_of<double>(values);
    case key_type::f16: return size_edges_of<__half>(values);
  }
  return {};
}

}  // namespace gpusort::fuzz
