// The distributed sort: sharded device ranges across ranks (NCCL), and pinned host arrays
// larger than one GPU. See gpusort/distributed/sort.cuh (with profiling.cuh to time its
// steps) and host_sort.cuh (with pinned_host_policy.cuh).
#pragma once

#include "distributed/communicator.cuh"
#include "distributed/host_sort.cuh"
#include "distributed/pinned_host_policy.cuh"
#include "distributed/profiling.cuh"
#include "distributed/shard.cuh"
#include "distributed/sort.cuh"
