// The distributed sort: sharded device ranges across ranks (NCCL), and pinned host arrays
// larger than one GPU. See gpusort/distributed/sort.cuh and host_sort.cuh.
#pragma once

#include "distributed/communicator.cuh"
#include "distributed/host_sort.cuh"
#include "distributed/sort.cuh"
