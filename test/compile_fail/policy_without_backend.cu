// expect: this policy has no backend
#include <gpusort/sort.cuh>
struct forgot_the_backend : gpusort::execution_policy<forgot_the_backend> {};
void f(int* p) { gpusort::sort(forgot_the_backend{}, p, p + 10); }
