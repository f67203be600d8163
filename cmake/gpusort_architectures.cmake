# Says at configure time which GPUs the project's gpusort code will run on: gpusort is
# header-only, so it compiles for whatever CMAKE_CUDA_ARCHITECTURES the including project
# chose. Included by gpusort's own CMakeLists.txt (top level and add_subdirectory) and by the
# installed gpusortConfig.cmake (find_package).
function(gpusort_describe_cuda_architectures)
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    message(STATUS "gpusort: CUDA is not enabled in this project yet: enable it "
                   "(project(... LANGUAGES CXX CUDA)) and set CMAKE_CUDA_ARCHITECTURES")
    return()
  endif()
  set(architectures "${CMAKE_CUDA_ARCHITECTURES}")
  # The oldest and newest architectures, the newest with GPU code (plain or -real) and the
  # newest with PTX (plain or -virtual): GPUs newer than every real one run that PTX through
  # the driver's JIT.
  set(oldest 0)
  set(newest 0)
  set(newest_ptx 0)
  set(newest_real 0)
  foreach(architecture IN LISTS architectures)
    if(architecture MATCHES "^([0-9]+)")
      set(number ${CMAKE_MATCH_1})
      if(oldest EQUAL 0 OR number LESS oldest)
        set(oldest ${number})
      endif()
      if(number GREATER newest)
        set(newest ${number})
      endif()
      if(NOT architecture MATCHES "-virtual$" AND number GREATER newest_real)
        set(newest_real ${number})
      endif()
      if(NOT architecture MATCHES "-real$" AND number GREATER newest_ptx)
        set(newest_ptx ${number})
      endif()
    endif()
  endforeach()
  set(what "")
  if(newest GREATER 0)
    set(what "; runs on GPUs from sm_${oldest} up")
    if(newest_ptx EQUAL 0)
      string(APPEND what " to sm_${newest} (no PTX: nothing runs on newer GPUs)")
    elseif(newest_real EQUAL 0)
      string(APPEND what " (PTX only: every GPU through the driver's JIT, a slower first call)")
    else()
      string(APPEND what " (newer than sm_${newest_real}: through the driver's JIT, a slower first "
                         "call)")
    endif()
    if(newest LESS 90)
      string(APPEND what "; without the cluster sort of sm_90 and newer (add 90 for Hopper)")
    endif()
  endif()
  # CMake caches its own default with this help text (a -D or a preset leaves another).
  get_property(help CACHE CMAKE_CUDA_ARCHITECTURES PROPERTY HELPSTRING)
  if(help STREQUAL "CUDA architectures" AND NOT DEFINED ENV{CUDAARCHS})
    string(APPEND what ". This is CMake's default for the compiler: set "
                       "CMAKE_CUDA_ARCHITECTURES to your GPUs (native: this machine's)")
  endif()
  message(STATUS "gpusort: CUDA architectures ${architectures}${what}")
endfunction()
