// Profiling a distributed sort: CUDA events that the sort records between its steps, so that
// cudaEventElapsedTime between two of them times one step (gpusort_distributed_bench's
// local_sort_ms, split_ms, exchange_ms and merge_ms are these).
//
//   gpusort::distributed::step_events events;  // on rank r's thread, its device current:
//   for (cudaEvent_t* e : {&events.begun, &events.sorted, &events.split, &events.exchanged,
//                          &events.merged})
//     cudaEventCreate(e);
//   gpusort::distributed::sort(comm, gpusort::par.on(stream), first, last, gpusort::less<>{},
//                              events);
//   cudaEventSynchronize(events.merged);
//   float split_ms = 0;
//   cudaEventElapsedTime(&split_ms, events.sorted, events.split);
//
// Every local-policy overload of distributed::sort, stable_sort, sort_by_key and
// stable_sort_by_key takes them as its last argument (after the comparator).
#pragma once

#include <cuda_runtime_api.h>

namespace gpusort::distributed {

// Each event is recorded on the sort's stream (the local policy's, so the events must belong
// to the rank's device) when the work of the steps before it has been enqueued there; a null
// event is skipped. A one-rank communicator, or ranks that hold no element at all, record
// none: the call is then the local sort alone, or nothing.
struct step_events {
  cudaEvent_t begun = nullptr;      // the counts are gathered; the local sort comes next
  cudaEvent_t sorted = nullptr;     // the local sort is done and no rank failed it
  cudaEvent_t split = nullptr;      // every rank's exact cuts are found and known to all
  cudaEvent_t exchanged = nullptr;  // the receive buffer is allocated and the pieces exchanged
  cudaEvent_t merged = nullptr;     // the received runs are merged: the rank's share is sorted
};

}  // namespace gpusort::distributed
