// A block's shared storage of one type, static where it fits and dynamic where it does not:
// static shared memory holds at most 48 KB per block, and a larger storage must come from
// dynamic shared memory, which the launch sizes (dynamic_shared_bytes<Storage>) and, above
// 48 KB, allows (allow_dynamic_shared_memory in kernel_setup.cuh).
#pragma once

#include <cstddef>

namespace gpusort::backends {

inline constexpr std::size_t static_shared_limit = 48 * 1024;

// Bytes of dynamic shared memory a launch gives a kernel holding one Storage: 0 where the
// storage is static. Static where it fits: it addresses with immediate offsets (dynamic cost
// the radix u32 pass 2 %).
template <class Storage>
inline constexpr int dynamic_shared_bytes =
    sizeof(Storage) <= static_shared_limit ? 0 : int(sizeof(Storage));

template <class Storage>
__device__ __forceinline__ Storage& block_shared() {
  if constexpr (dynamic_shared_bytes<Storage> == 0) {
    __shared__ Storage storage;
    return storage;
  } else {
    extern __shared__ __align__(16) unsigned char dynamic_storage[];
    return *reinterpret_cast<Storage*>(dynamic_storage);
  }
}

}  // namespace gpusort::backends
