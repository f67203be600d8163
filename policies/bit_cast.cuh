// Reinterpreting a key's bytes, on host and device alike.
#pragma once

#include <cstring>
#include <type_traits>

namespace gpusort::detail {

template <class To, class From>
__host__ __device__ inline To bit_cast(const From& from) {
  static_assert(sizeof(To) == sizeof(From), "bit_cast between types of different sizes");
  static_assert(std::is_trivially_copyable_v<From>, "bit_cast needs a trivially copyable type");
  To to;
  memcpy(static_cast<void*>(&to), static_cast<const void*>(&from), sizeof(To));
  return to;
}

}  // namespace gpusort::detail
