// expect: gpusort::merge is not available yet
#include <gpusort/sort.cuh>
void f(unsigned* p) { gpusort::sort(gpusort::merge, p, p + 10); }
