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

// How many ranks failed (this one included where `failed`); `flag` is one device word.
inline std::uint64_t count_failed_ranks(const communicator& comm, host_round_trip& trip,
                                        std::uint64_t* flag, bool failed, const char* step,
                                        cudaStream_t stream) {
  std::vector<std::uint64_t> count{failed ? 1u : 0u};
  trip.to_device(flag, count);
  all_reduce_sum(comm, flag, 1, stream);
  trip.to_host(count, flag);
  trip.wait(step);
  return count[0];
}

// Every rank says whether it failed; if any did, every rank throws (the failing one its
// own error).
inline void agree_or_throw(const communicator& comm, host_round_trip& trip, std::uint64_t* flag,
                           const std::exception_ptr& failure, const char* step,
                           cudaStream_t stream) {
  const std::uint64_t failed =
      count_failed_ranks(comm, trip, flag, failure != nullptr, step, stream);
  if (failure) std::rethrow_exception(failure);
  if (failed > 0)
    gpusort::detail::throw_usage_error(std::to_string(failed) + " other rank(s) failed " +
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

// Runs `attempt` on this rank; true where it succeeded on every rank. Here a failure is no
// error: the caller takes another way, and every rank learns that it must.
template <class Attempt>
bool all_ranks_succeed(const communicator& comm, host_round_trip& trip, std::uint64_t* flag,
                       const char* step, cudaStream_t stream, Attempt&& attempt) {
  bool failed = false;
  try {
    attempt();
  } catch (...) {
    failed = true;
    cudaGetLastError();  // a failed allocation leaves its error behind; the caller goes on
  }
  return count_failed_ranks(comm, trip, flag, failed, step, stream) == 0;
}

}  // namespace gpusort::distributed::detail
