# Run at every build (not only at configure) so the commit recorded in run JSON is never stale.
# Writes OUT only when its content changes, so an unchanged tree rebuilds nothing.
execute_process(COMMAND git rev-parse HEAD WORKING_DIRECTORY ${SRC}
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR commit STREQUAL "")
  set(commit "unknown")
else()
  execute_process(COMMAND git status --porcelain --untracked-files=no WORKING_DIRECTORY ${SRC}
                  OUTPUT_VARIABLE dirty OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(NOT dirty STREQUAL "")
    set(commit "${commit}-dirty")
  endif()
endif()
set(content "#include \"common/version.hpp\"\nnamespace popebench {\nconst char* git_commit() { return \"${commit}\"; }\nconst char* compiler_id() { return \"${COMPILER}\"; }\n}  // namespace popebench\n")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT "${old}" STREQUAL "${content}")
  file(WRITE ${OUT} "${content}")
endif()
