# gpusort::distributed: the distributed sort over NCCL, where NCCL is found (NCCL_ROOT or
# the system paths). Elsewhere it is skipped, and says so; gpusort::gpusort still offers
# gpusort/distributed.cuh with one-rank (solo) communicators.
option(GPUSORT_WITH_NCCL "Build gpusort::distributed where NCCL is found" ON)
set(gpusort_have_nccl FALSE)
if(GPUSORT_WITH_NCCL)
  find_path(NCCL_INCLUDE_DIR nccl.h HINTS ${NCCL_ROOT} ENV NCCL_ROOT PATH_SUFFIXES include)
  find_library(NCCL_LIBRARY nccl HINTS ${NCCL_ROOT} ENV NCCL_ROOT PATH_SUFFIXES lib lib64)
  if(NCCL_INCLUDE_DIR AND NCCL_LIBRARY)
    set(gpusort_have_nccl TRUE)
  endif()
endif()

if(gpusort_have_nccl)
  message(STATUS "gpusort: NCCL found (${NCCL_LIBRARY}): building gpusort::distributed")
  add_library(gpusort_distributed INTERFACE)
  add_library(gpusort::distributed ALIAS gpusort_distributed)
  set_target_properties(gpusort_distributed PROPERTIES EXPORT_NAME distributed)
  # Installed, it links gpusort::nccl, which the package's config makes from the NCCL it finds
  # where the consumer builds (gpusortConfig.cmake.in); this build's NCCL is its first guess.
  target_include_directories(gpusort_distributed INTERFACE $<BUILD_INTERFACE:${NCCL_INCLUDE_DIR}>)
  target_link_libraries(gpusort_distributed INTERFACE gpusort
    $<BUILD_INTERFACE:${NCCL_LIBRARY}> $<INSTALL_INTERFACE:gpusort::nccl>
    ${CMAKE_DL_LIBS})  # dlsym: NCCL functions newer than some of its libraries (nccl_revoke.cuh)
  target_compile_definitions(gpusort_distributed INTERFACE GPUSORT_WITH_NCCL=1)
  get_filename_component(gpusort_nccl_library_dir ${NCCL_LIBRARY} DIRECTORY)
elseif(GPUSORT_WITH_NCCL)
  # A project that includes gpusort gets only the target: name only that.
  set(gpusort_without_nccl "gpusort::distributed")
  if(PROJECT_IS_TOP_LEVEL)
    string(APPEND gpusort_without_nccl ", its multi-GPU tests and benchmark")
  endif()
  message(STATUS "gpusort: NCCL not found (set NCCL_ROOT to its prefix): SKIPPING "
                 "${gpusort_without_nccl}; one-rank distributed sorts still build and run")
endif()
