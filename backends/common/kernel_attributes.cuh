// Kernel attributes (cudaFuncSetAttribute) set on the copy of a kernel that is launched.
// A program whose .cu files each include gpusort holds a copy of every kernel template in each
// file (nvcc 13 gives the host stubs of __global__ templates internal linkage:
// -static-global-template-stub), while a static variable of an inline function or of a class
// template is one for the whole program. An attribute set "once per device" behind such a
// static is set on one file's copy only, and another file's launch of its own copy fails
// (cudaErrorInvalidValue where it asks for more than 48 KB of shared memory). So an attribute
// is set where the kernel is launched: either by a function template keyed by the kernel
// (kernel_setup.cuh, whose copies are per file as the kernel's are) or, where the launch only
// has the kernel's address, by set_kernel_attribute below, keyed by that address.
// test/gpu/translation_units_test.cu runs every such path from two files.
#pragma once

#include <gpusort/detail/per_device.cuh>
#include <gpusort/error.cuh>

#include <cuda_runtime_api.h>

#include <map>
#include <mutex>
#include <shared_mutex>
#include <tuple>

namespace gpusort::backends {

namespace detail_attributes {

// The values set so far, by kernel address, device and attribute: one table for the process.
struct kernel_attribute_table {
  std::shared_mutex mutex;
  std::map<std::tuple<const void*, int, int>, int> values;
};

inline kernel_attribute_table& kernel_attributes_set() {
  static kernel_attribute_table table;
  return table;
}

}  // namespace detail_attributes

// Sets `attribute` of the kernel at `kernel` to `value` on the current device unless it was
// set to that value there already (later calls cost a shared lock and a lookup).
inline void set_kernel_attribute(const void* kernel, cudaFuncAttribute attribute, int value,
                                 const char* doing) {
  auto& table = detail_attributes::kernel_attributes_set();
  const auto key = std::make_tuple(kernel, detail::current_device(), int(attribute));
  {
    std::shared_lock<std::shared_mutex> reading(table.mutex);
    const auto found = table.values.find(key);
    if (found != table.values.end() && found->second == value) return;
  }
  std::unique_lock<std::shared_mutex> writing(table.mutex);
  detail::check_cuda(cudaFuncSetAttribute(kernel, attribute, value), doing);
  table.values[key] = value;
}

}  // namespace gpusort::backends
