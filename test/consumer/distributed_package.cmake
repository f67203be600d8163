# gpusort::distributed as an installed package, on a machine without NCCL: a stand-in NCCL
# prefix (an empty nccl.h and libnccl.so: configure only looks for the files), gpusort
# configured with it and installed (no tests, benchmark or examples), then a consumer that
# asks for the component (distributed/CMakeLists.txt). Then the stand-in is removed, and the
# same request must fail with a message that names NCCL; and gpusort's own install, built
# without NCCL (INSTALLED_PREFIX, INSTALLED_WITH_NCCL), must refuse the component and say why.
#   cmake -DGPUSORT_SOURCE=... -DWORK=... -DGENERATOR=... -P distributed_package.cmake
set(nccl ${WORK}/stand-in-nccl)
file(REMOVE_RECURSE ${WORK})
file(WRITE ${nccl}/include/nccl.h "/* stand-in: configure-time lookups only */\n")
file(WRITE ${nccl}/lib/libnccl.so "")

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE output
                  ERROR_VARIABLE output)
  set(${what}_result ${result} PARENT_SCOPE)
  set(${what}_output "${output}" PARENT_SCOPE)
endfunction()

run(configure ${CMAKE_COMMAND} -S ${GPUSORT_SOURCE} -B ${WORK}/build -G ${GENERATOR}
    -DNCCL_ROOT=${nccl} -DGPUSORT_BUILD_TESTS=OFF -DGPUSORT_BUILD_BENCH=OFF
    -DGPUSORT_BUILD_EXAMPLES=OFF)
if(NOT configure_result EQUAL 0 OR NOT configure_output MATCHES "building gpusort::distributed")
  message(FATAL_ERROR "gpusort with the stand-in NCCL:\n${configure_output}")
endif()
run(install ${CMAKE_COMMAND} --install ${WORK}/build --prefix ${WORK}/prefix)
if(NOT install_result EQUAL 0)
  message(FATAL_ERROR "installing gpusort:\n${install_output}")
endif()

set(consumer ${CMAKE_CURRENT_LIST_DIR}/distributed)
run(found ${CMAKE_COMMAND} -S ${consumer} -B ${WORK}/consumer -G ${GENERATOR}
    -DCMAKE_PREFIX_PATH=${WORK}/prefix -DNCCL_ROOT=${nccl}
    -DEXPECTED_NCCL_LIBRARY=${nccl}/lib/libnccl.so)
message("${found_output}")
if(NOT found_result EQUAL 0)
  message(FATAL_ERROR "the consumer of gpusort::distributed did not configure")
endif()

# gpusort's own install (package.install), where its build had no NCCL: asking for the
# component fails and says that this gpusort has none.
if(DEFINED INSTALLED_PREFIX AND NOT INSTALLED_WITH_NCCL)
  run(without ${CMAKE_COMMAND} -S ${consumer} -B ${WORK}/consumer-without -G ${GENERATOR}
      -DCMAKE_PREFIX_PATH=${INSTALLED_PREFIX})
  if(without_result EQUAL 0 OR NOT without_output MATCHES "installed without NCCL")
    message(FATAL_ERROR "a gpusort installed without NCCL gave gpusort::distributed, or did "
                        "not say why not:\n${without_output}")
  endif()
endif()

# Where NCCL cannot be found any more, asking for the component fails and says why (not
# where the machine has an NCCL of its own, as the GPU machines do).
find_library(system_nccl nccl)
if(system_nccl)
  message(STATUS "this machine has NCCL (${system_nccl}): the missing-NCCL case is not run")
  return()
endif()
file(REMOVE_RECURSE ${nccl} ${WORK}/consumer)
run(missing ${CMAKE_COMMAND} -S ${consumer} -B ${WORK}/consumer -G ${GENERATOR}
    -DCMAKE_PREFIX_PATH=${WORK}/prefix -DNCCL_ROOT=${WORK}/nowhere)
if(missing_result EQUAL 0)
  # find_library in script mode does not search the multiarch directories
  # (/usr/lib/x86_64-linux-gnu) where the package's own lookup found the machine's NCCL.
  if(missing_output MATCHES "gpusort::nccl: ([^,\n]+)" AND
     NOT CMAKE_MATCH_1 MATCHES "stand-in-nccl")
    message(STATUS "this machine has NCCL (${CMAKE_MATCH_1}): the missing-NCCL case is not run")
    return()
  endif()
  message(FATAL_ERROR "gpusort::distributed was found without NCCL:\n${missing_output}")
endif()
if(NOT missing_output MATCHES "needs NCCL, which was not found")
  message(FATAL_ERROR "without NCCL, the component's failure did not say why:\n${missing_output}")
endif()
