// splitmix64 (Steele, Lea & Flood, "Fast splittable pseudorandom number generators", 2014):
// the fuzzer's only source of case parameters, and the tests' hash on the device. Its output is fixed by its definition,
// unlike std::uniform_int_distribution's, which differs between standard libraries, so a
// case seed names the same case on every machine.
#pragma once

#include <cstdint>

namespace gpusort::test {

inline constexpr std::uint64_t splitmix64_gamma = 0x9E3779B97F4A7C15ull;

__host__ __device__ constexpr std::uint64_t splitmix64_mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

class splitmix64 {
 public:
  explicit constexpr splitmix64(std::uint64_t seed) : state_(seed) {}

  constexpr std::uint64_t next() {
    state_ += splitmix64_gamma;
    return splitmix64_mix(state_);
  }
  // Uniform in [0, bound) (0 for bound 0). The modulo's bias is below 2^-40 for the bounds
  // drawn here.
  constexpr std::uint64_t below(std::uint64_t bound) { return bound == 0 ? 0 : next() % bound; }
  constexpr bool coin() { return (next() >> 63) != 0; }
  // Uniform in [0, 1).
  double unit() { return double(next() >> 11) * 0x1.0p-53; }

 private:
  std::uint64_t state_;
};

// Case `index` of a run seeded with `run_seed`: the index-th output of splitmix64(run_seed),
// computed directly, so any case of a run can be drawn without the ones before it.
constexpr std::uint64_t case_seed(std::uint64_t run_seed, std::uint64_t index) {
  return splitmix64_mix(run_seed + (index + 1) * splitmix64_gamma);
}

}  // namespace gpusort::test
