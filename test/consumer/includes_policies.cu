// Must not compile in a consumer: gpusort's internals are reached only as <gpusort/...>.
#include <policies/select.cuh>
