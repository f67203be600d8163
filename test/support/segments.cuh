// Segments for the segmented sort's tests (gpusort/segmented_sort.cuh): where they lie in the
// keys (a layout, in either form of the call), how their sizes are drawn, their offsets in
// device memory, and the checks that know which segment an index is in.
//
// A layout is positions only: the keys, the reference and the checks of whole inputs come
// from sort_checks.cuh and keys.cuh.
#pragma once

#include "device_vector.cuh"
#include "gpu.cuh"
#include "sort_checks.cuh"
#include "splitmix.cuh"

#include <gpusort/segmented_sort.cuh>

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace gpusort::test {

// A good call must never report bad offsets: each test ends by asking.
class SegmentedGpuTest : public GpuTest {
 protected:
  void TearDown() override {
    if (IsSkipped()) return;
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_NO_THROW(gpusort::check_segmented_sorts())
        << "a segmented sort with good offsets reported bad ones";
  }
};

// ---- Where the segments lie -----------------------------------------------------------

enum class offsets_form { offsets, begins_and_ends };

// Segment i is keys [begins[i], ends[i]) of `count`. In the offsets form the segments lie back
// to back (ends[i] == begins[i + 1]) and the call gets begins followed by the last end.
struct segment_layout {
  std::size_t count = 0;
  offsets_form form = offsets_form::offsets;
  std::vector<std::size_t> begins, ends;
  std::size_t segments() const { return begins.size(); }
};

// A layout written out: `spans` are the segments' [begin, end), in the order the call gets them.
inline segment_layout layout_of(offsets_form form, std::size_t count,
                                std::initializer_list<std::pair<std::size_t, std::size_t>> spans) {
  segment_layout layout;
  layout.form = form;
  layout.count = count;
  for (const auto& [begin, end] : spans) {
    layout.begins.push_back(begin);
    layout.ends.push_back(end);
  }
  return layout;
}

enum class segment_sizes { at_most_32, uniform_to_1024, power_law, huge_among_tiny, single };

inline std::string shape_name(segment_sizes shape) {
  switch (shape) {
    case segment_sizes::at_most_32: return "at_most_32";
    case segment_sizes::uniform_to_1024: return "uniform_to_1024";
    case segment_sizes::power_law: return "power_law";
    case segment_sizes::huge_among_tiny: return "huge_among_tiny";
    case segment_sizes::single: return "single";
  }
  return "?";
}

inline constexpr segment_sizes every_shape[] = {
    segment_sizes::at_most_32, segment_sizes::uniform_to_1024, segment_sizes::power_law,
    segment_sizes::huge_among_tiny, segment_sizes::single};

inline std::string describe_layout(const segment_layout& layout) {
  std::size_t largest = 0, empty = 0;
  for (std::size_t i = 0; i < layout.segments(); ++i) {
    largest = std::max(largest, layout.ends[i] - layout.begins[i]);
    empty += layout.ends[i] == layout.begins[i] ? 1 : 0;
  }
  std::ostringstream s;
  s << "keys=" << layout.count << " segments=" << layout.segments() << " (" << empty
    << " empty, largest " << largest << ") form="
    << (layout.form == offsets_form::offsets ? "offsets" : "begins_and_ends");
  return s.str();
}

// Sizes adding up to `total` keys, drawn by `shape`; some empty segments among them (not for
// `single`: one segment of every key).
inline std::vector<std::size_t> draw_sizes(segment_sizes shape, std::size_t total,
                                           splitmix64& random) {
  std::vector<std::size_t> sizes;
  std::size_t left = total;
  const auto take = [&](std::size_t size) {
    size = std::min(size, left);
    sizes.push_back(size);
    left -= size;
  };
  switch (shape) {
    case segment_sizes::at_most_32:
      while (left > 0) take(random.below(33));
      break;
    case segment_sizes::uniform_to_1024:
      while (left > 0) take(1 + random.below(1024));
      break;
    case segment_sizes::power_law:
      // Log-uniform in [1, total]: density ~ 1/size, every scale equally often.
      while (left > 0) take(std::size_t(std::exp(random.unit() * std::log(double(total) + 1))));
      break;
    case segment_sizes::huge_among_tiny: {
      // Eight segments hold about three quarters of the keys, the rest 0 to 8 keys each.
      std::vector<std::size_t> huge;
      for (int i = 0; i < 8; ++i) {
        const std::size_t size = std::size_t(double(total) * (0.5 + random.unit()) * 3 / 32);
        huge.push_back(std::min(size, left));
        left -= huge.back();
      }
      while (left > 0) take(random.below(9));
      for (std::size_t size : huge)
        sizes.insert(sizes.begin() + std::ptrdiff_t(random.below(sizes.size() + 1)), size);
      break;
    }
    case segment_sizes::single:
      return {total};
  }
  std::vector<std::size_t> with_empty;
  for (std::size_t size : sizes) {
    if (random.below(16) == 0) with_empty.push_back(0);
    with_empty.push_back(size);
  }
  return with_empty;
}

// The segments of `sizes` in `form`. Offsets: back to back, from a few keys in (sometimes) to a
// few keys before the end (sometimes). Begins and ends: 0 to 16 keys apart (sometimes
// touching), listed in a shuffled order.
inline segment_layout lay_out(const std::vector<std::size_t>& sizes, offsets_form form,
                              splitmix64& random, bool margins = true) {
  segment_layout layout;
  layout.form = form;
  const auto margin = [&] { return margins && random.below(4) == 0 ? random.below(100) : 0; };
  const auto gap = [&] { return random.below(4) == 0 ? 0 : random.below(17); };
  std::size_t at = form == offsets_form::offsets ? margin() : gap();
  for (std::size_t size : sizes) {
    layout.begins.push_back(at);
    at += size;
    layout.ends.push_back(at);
    if (form == offsets_form::begins_and_ends) at += gap();
  }
  layout.count = at + (form == offsets_form::offsets ? margin() : 0);
  if (form == offsets_form::begins_and_ends) {
    for (std::size_t i = layout.segments(); i > 1; --i) {  // Fisher-Yates, splitmix64's draws
      const std::size_t j = random.below(i);
      std::swap(layout.begins[i - 1], layout.begins[j]);
      std::swap(layout.ends[i - 1], layout.ends[j]);
    }
  }
  return layout;
}

// A sweep's case, drawn from `seed`: sizes of `shape` over a random key count of `scale` (0: 1
// to 4000 keys, 1: 4000 to 404000, 2: a million and up to `large_spread` more), laid out in
// `form` (with margins, but for `single`).
inline segment_layout sweep_layout(segment_sizes shape, int scale, std::size_t large_spread,
                                   offsets_form form, std::uint64_t seed) {
  splitmix64 random(seed);
  const std::size_t total = scale == 0   ? 1 + random.below(4000)
                            : scale == 1 ? 4000 + random.below(400000)
                                         : 1000000 + random.below(large_spread);
  return lay_out(draw_sizes(shape, total, random), form, random, shape != segment_sizes::single);
}

inline bool within_cap(std::size_t count) { return !capped({count}).empty(); }

// For a failure message: which segment holds key `index`, if any.
inline std::string where(const segment_layout& layout, std::size_t index) {
  for (std::size_t i = 0; i < layout.segments(); ++i)
    if (layout.begins[i] <= index && index < layout.ends[i]) {
      std::ostringstream s;
      s << "in segment " << i << " [" << layout.begins[i] << ", " << layout.ends[i] << ")";
      return s.str();
    }
  return "outside every segment";
}

// Bit for bit: `expected` (std::stable_sort's result in every segment, the input elsewhere).
template <class Key>
void expect_same_bits_in(const segment_layout& layout, const std::vector<Key>& actual,
                         const std::vector<Key>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t i = 0; i < actual.size(); ++i)
    if (!same_bytes(actual[i], expected[i])) {
      ADD_FAILURE() << "keys differ first at index " << i << " (" << where(layout, i)
                    << "): got " << key_text(actual[i]) << ", expected " << key_text(expected[i]);
      return;
    }
}

// ---- The offsets on the device -----------------------------------------------------------

template <class Offset>
std::vector<Offset> as_offsets(const std::vector<std::size_t>& positions) {
  std::vector<Offset> offsets;
  for (std::size_t p : positions) offsets.push_back(static_cast<Offset>(p));
  return offsets;
}

// The offsets form's array: the begins, then the last end.
inline std::vector<std::size_t> first_array(const segment_layout& layout) {
  std::vector<std::size_t> first = layout.begins;
  if (layout.form == offsets_form::offsets && !layout.ends.empty())
    first.push_back(layout.ends.back());
  return first;
}

// A layout's offsets in device memory, as its form hands them to the call.
template <class Offset>
struct device_offsets {
  device_array<Offset> begins;  // offsets form: the begins and then the last end
  device_array<Offset> ends;    // begins and ends form only
  std::size_t segments;

  explicit device_offsets(const segment_layout& layout)
      : begins(as_offsets<Offset>(first_array(layout))),
        ends(as_offsets<Offset>(layout.form == offsets_form::begins_and_ends
                                    ? layout.ends
                                    : std::vector<std::size_t>{})),
        segments(layout.segments()) {}
};

}  // namespace gpusort::test
