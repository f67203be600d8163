# One include root for everyone who builds against gpusort: <gpusort/...>. The public headers
# are gpusort/*; the internals, which the source tree keeps in policies/ and backends/ beside
# gpusort/, appear as gpusort/detail/policies/ and gpusort/detail/backends/ (two links in the
# source tree), so the library's headers reach each other the same way from the sources, the
# build tree and an install.
#
# Consumers must not see the source tree's top level (its policies/ and backends/ would
# resolve as <backends/...>): the build tree's include root holds one link, gpusort/, to the
# sources' gpusort/ folder; the install copies the headers in that layout.

# Makes <include_root>/gpusort a link to <source_dir>/gpusort (a copy where links cannot be
# made: then edits need a reconfigure, said as a warning).
function(gpusort_make_include_root source_dir include_root)
  set(link "${include_root}/gpusort")
  if(IS_SYMLINK "${link}" OR EXISTS "${link}")
    return()
  endif()
  file(MAKE_DIRECTORY "${include_root}")
  file(CREATE_LINK "${source_dir}/gpusort" "${link}" RESULT failed SYMBOLIC)
  if(failed)
    message(WARNING "gpusort: cannot link ${link} (${failed}): copying the headers; "
                    "reconfigure after editing one")
    file(COPY "${source_dir}/gpusort/" DESTINATION "${link}"
         REGEX "/detail/(policies|backends)$" EXCLUDE)
    file(COPY "${source_dir}/policies" "${source_dir}/backends" DESTINATION "${link}/detail")
  endif()
endfunction()

# The same layout in an install: headers only, the links' targets copied in their place.
function(gpusort_install_include_root source_dir destination)
  install(DIRECTORY "${source_dir}/gpusort/" DESTINATION "${destination}/gpusort"
          FILES_MATCHING PATTERN "*.cuh"
          REGEX "/detail/(policies|backends)$" EXCLUDE)
  install(DIRECTORY "${source_dir}/policies" "${source_dir}/backends"
          DESTINATION "${destination}/gpusort/detail" FILES_MATCHING PATTERN "*.cuh")
endfunction()
