# One include root for everyone who builds against gpusort: <gpusort/...>. The public headers
# are gpusort/*; the internals, which the source tree keeps in policies/ and backends/ beside
# gpusort/, appear as gpusort/detail/policies/ and gpusort/detail/backends/. So a consumer's
# <backends/...> or <policies/...> does not resolve, and the library's own headers reach each
# other the same way in the source tree, the build tree and an install.
#
# The install copies the headers into that layout. The build tree (add_subdirectory, the
# project's own tests) gets it as symbolic links into the sources, made here at configure
# time, so that an edited header needs no step of its own; a new file in gpusort/ or
# gpusort/detail/ reconfigures (CONFIGURE_DEPENDS). Where links cannot be made, the headers
# are copied, and edits need a reconfigure: said once, as a warning.

function(gpusort_link_into_include_root target link)
  if(IS_SYMLINK "${link}" OR EXISTS "${link}")
    return()
  endif()
  file(CREATE_LINK "${target}" "${link}" RESULT failed SYMBOLIC)
  if(failed)
    message(WARNING "gpusort: cannot link ${link} (${failed}): copying it; reconfigure after "
                    "editing a header")
    get_filename_component(parent "${link}" DIRECTORY)
    file(COPY "${target}" DESTINATION "${parent}")
  endif()
endfunction()

# Makes <include_root>/gpusort/ in the installed layout from the sources in <source_dir>.
function(gpusort_make_include_root source_dir include_root)
  set(mapped "${include_root}/gpusort")
  file(MAKE_DIRECTORY "${mapped}/detail")
  file(GLOB public_entries RELATIVE "${source_dir}/gpusort" CONFIGURE_DEPENDS
       "${source_dir}/gpusort/*")
  file(GLOB detail_entries RELATIVE "${source_dir}/gpusort/detail" CONFIGURE_DEPENDS
       "${source_dir}/gpusort/detail/*")
  foreach(entry IN LISTS public_entries)
    if(NOT entry STREQUAL "detail")
      gpusort_link_into_include_root("${source_dir}/gpusort/${entry}" "${mapped}/${entry}")
    endif()
  endforeach()
  foreach(entry IN LISTS detail_entries)
    gpusort_link_into_include_root("${source_dir}/gpusort/detail/${entry}"
                                   "${mapped}/detail/${entry}")
  endforeach()
  foreach(internals IN ITEMS policies backends)
    gpusort_link_into_include_root("${source_dir}/${internals}" "${mapped}/detail/${internals}")
  endforeach()
endfunction()

# The same layout in an install: headers only.
function(gpusort_install_include_root source_dir destination)
  install(DIRECTORY "${source_dir}/gpusort/" DESTINATION "${destination}/gpusort"
          FILES_MATCHING PATTERN "*.cuh")
  install(DIRECTORY "${source_dir}/policies" "${source_dir}/backends"
          DESTINATION "${destination}/gpusort/detail" FILES_MATCHING PATTERN "*.cuh")
endfunction()
