// Execution policies: they name *where and how* a sort runs (backend, stream, allocator);
// the sort call names *what*. Dispatch is plain overload resolution on the policy type.
#pragma once

#include <gpusort/detail/policies/par_strategy.cuh>
#include <gpusort/detail/policies/tuning/sm90.cuh>
#include "allocator.cuh"

#include <cuda_runtime_api.h>

#include <type_traits>

namespace gpusort {

// Base of every policy, built-in or user-defined (CRTP: `struct my_policy :
// gpusort::execution_policy<my_policy> {};`). Copies are cheap; .on() and .with_allocator()
// return a modified copy of the derived policy, Thrust-style. (Of a policy derived from a
// built-in one, they return the built-in's type: Derived is the class named here.)
template <class Derived>
class execution_policy {
 public:
  constexpr execution_policy() = default;

  cudaStream_t stream() const noexcept { return stream_; }
  allocator_ref allocator() const noexcept { return allocator_; }

  // Work is ordered on `stream`; the call never synchronises the device.
  Derived on(cudaStream_t stream) const {
    Derived copy = derived();
    static_cast<execution_policy&>(copy).stream_ = stream;
    return copy;
  }

  // Temporary storage comes from `allocator` (see allocator_ref for what it must provide);
  // it must outlive the sort call.
  template <class Allocator>
  Derived with_allocator(Allocator& allocator) const {
    Derived copy = derived();
    static_cast<execution_policy&>(copy).allocator_ = allocator_ref(allocator);
    return copy;
  }

 private:
  const Derived& derived() const { return static_cast<const Derived&>(*this); }

  cudaStream_t stream_ = nullptr;  // the legacy default stream, as in Thrust and CUB
  allocator_ref allocator_{};
};

namespace detail {
template <class Derived>
std::true_type derives_from_execution_policy(const execution_policy<Derived>*);
std::false_type derives_from_execution_policy(const void*);
}  // namespace detail

// Every policy derives from some execution_policy<...>: directly (CRTP), or through a built-in
// one (`struct mine : gpusort::radix_policy<my_tuning> {};` sorts as radix_policy<my_tuning>).
template <class Policy>
inline constexpr bool is_execution_policy_v = decltype(detail::derives_from_execution_policy(
    static_cast<std::remove_cv_t<Policy>*>(nullptr)))::value;

// Automatic: the backend is chosen from the key type and comparator at compile time
// (radix family for radix keys ordered by less/greater) and from the size at run time.
struct par_policy : execution_policy<par_policy> {};

// As par, with the run-time choice pinned to one strategy for radix keys (where the strategy
// cannot take the input, the one-sweep sort runs): for the tuning sweep, and for whoever
// wants one code path at every size.
template <par_strategy Strategy>
struct pinned_par_policy : execution_policy<pinned_par_policy<Strategy>> {
  static constexpr par_strategy strategy = Strategy;
};

// The Satish LSD radix sort; Tuning sets its tile shape.
template <class Tuning = radix_tuning_sm90>
struct radix_policy : execution_policy<radix_policy<Tuning>> {
  static_assert(is_tuning_v<Tuning, radix_knobs>,
                "gpusort::radix_policy<Tuning>: Tuning needs a member 'static constexpr "
                "gpusort::radix_knobs knobs' (start from gpusort::radix_tuning_sm90::knobs; "
                "README, Tuning)");
  using tuning = Tuning;
};

// Min/max bucket partition, then bitonic sort of each bucket in shared memory (unstable);
// Tuning sets its tile shapes and bucket counts.
template <class Tuning = bucket_bitonic_tuning_sm90>
struct bucket_bitonic_policy : execution_policy<bucket_bitonic_policy<Tuning>> {
  static_assert(is_tuning_v<Tuning, bucket_bitonic_knobs>,
                "gpusort::bucket_bitonic_policy<Tuning>: Tuning needs a member 'static constexpr "
                "gpusort::bucket_bitonic_knobs knobs' (start from "
                "gpusort::bucket_bitonic_tuning_sm90::knobs; README, Tuning)");
  using tuning = Tuning;
};

// Bitonic tiles, then merge-path merges: any type, any strict weak ordering; Tuning sets
// its tile and merge shapes.
template <class Tuning = merge_tuning_sm90>
struct merge_policy : execution_policy<merge_policy<Tuning>> {
  static_assert(is_tuning_v<Tuning, merge_knobs>,
                "gpusort::merge_policy<Tuning>: Tuning needs a member 'static constexpr "
                "gpusort::merge_knobs knobs' (start from gpusort::merge_tuning_sm90::knobs; "
                "README, Tuning)");
  using tuning = Tuning;
};

inline constexpr par_policy par{};
template <par_strategy Strategy>
inline constexpr pinned_par_policy<Strategy> par_pinned{};
inline constexpr radix_policy<> radix{};
inline constexpr bucket_bitonic_policy<> bucket_bitonic{};
inline constexpr merge_policy<> merge{};

}  // namespace gpusort
