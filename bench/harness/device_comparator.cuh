// The comparator a case sorts with on the device. A functor is default-constructed where it
// is needed; a __device__ lambda has no default constructor, so the benchmark that sorts
// with one registers its instance first.
#pragma once

#include <optional>
#include <stdexcept>
#include <type_traits>

namespace gpusort_bench {

template <class Compare>
inline std::optional<Compare> registered_device_comparator;

template <class Compare>
void register_device_comparator(const Compare& comp) {
  registered_device_comparator<Compare>.emplace(comp);
}

template <class Compare>
Compare device_comparator() {
  const auto& registered = registered_device_comparator<std::remove_cv_t<Compare>>;
  if (registered) return *registered;
  if constexpr (std::is_default_constructible_v<Compare>)
    return Compare{};
  else
    throw std::logic_error("a comparator without a default constructor was not registered");
}

}  // namespace gpusort_bench
