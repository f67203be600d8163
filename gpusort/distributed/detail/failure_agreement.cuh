// How the ranks of a distributed sort fail together: a rank that fails a step tells the
// others before the next collective, and every rank throws, so that none is left waiting in
// a collective for a rank that gave up.
#pragma once

#include "../../error.cuh"
#include "../communicator.cuh"
#include "collectives.cuh"
#include "host_round_trip.cuh"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <exception>
#include <string>
#include <vector>

namespace gpusort::distributed::detail {

// Every rank says whether it failed; if any did, every rank throws (the failing one its
// own error). `flag` is one device word.
inline void agree_or_throw(const communicator& comm, host_round_trip& trip, std::uint64_t* flag,
                           const std::exception_ptr& failure, const char* step,
                           cudaStream_t stream) {
  std::vector<std::uint64_t> failed{failure ? 1u : 0u};
  trip.to_device(flag, failed);
  all_reduce_sum(comm, flag, 1, stream);
  trip.to_host(failed, flag);
  trip.wait(step);
  if (failure) std::rethrow_exception(failure);
  if (failed[0] > 0)
    gpusort::detail::throw_usage_error(std::to_string(failed[0]) + " other rank(s) failed " +
                                       step + "; this rank's data is a permutation of its input");
}

// Runs `attempt` (the step named `step`) on this rank, then agree_or_throw.
template <class Attempt>
void all_ranks_succeed_or_throw(const communicator& comm, host_round_trip& trip,
                                std::uint64_t* flag, const char* step, cudaStream_t stream,
                                Attempt&& attempt) {
  std::exception_ptr failure;
  try {
    attempt();
  } catch (...) {
    failure = std::current_exception();
  }
  agree_or_throw(comm, trip, flag, failure, step, stream);
}

}  // namespace gpusort::distributed::detail
