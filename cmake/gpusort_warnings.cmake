# Options for gpusort's own targets (tests, bench, examples); never imposed on users.
add_library(gpusort_dev_options INTERFACE)
target_compile_options(gpusort_dev_options INTERFACE
  $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr --extended-lambda -Xcompiler=-Wall>
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra>)
