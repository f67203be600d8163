// ncclCommRevoke (it stops a communicator's collectives in flight, after which the
// communicator can still be destroyed) where the NCCL library the program runs with has it,
// looked up at run time: it came within the 2.28 releases, so the header gpusort was compiled
// with may declare it while the library loaded does not (2.28.3), or the other way round.
#pragma once

#if GPUSORT_WITH_NCCL
#include <nccl.h>

#include <dlfcn.h>

namespace gpusort::distributed::detail {

using nccl_revoke_function = ncclResult_t (*)(ncclComm_t, int);

// Null where the loaded NCCL has no ncclCommRevoke.
inline nccl_revoke_function nccl_revoke() {
  static const nccl_revoke_function revoke =
      reinterpret_cast<nccl_revoke_function>(dlsym(RTLD_DEFAULT, "ncclCommRevoke"));
  return revoke;
}

}  // namespace gpusort::distributed::detail
#endif
