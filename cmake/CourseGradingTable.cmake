# Reading a lesson README's grading table, the one source of the lesson's test names, kinds,
# thresholds and points. The table sits between two marker lines:
#
#   <!-- grading:begin -->
#   | test | kind | what it checks | threshold | points |
#   |---|---|---|---|---|
#   | `tiled.correct` | exercise | bit-exact on every shape | — | 3 |
#   <!-- grading:end -->
#
# Also usable in script mode (cmake -P), hence no dependency on project variables.

# course_read_grading_table(<readme> <names-var> <kinds-var>)
function(course_read_grading_table readme names_var kinds_var)
  file(READ "${readme}" text)
  string(FIND "${text}" "<!-- grading:begin -->" begin)
  string(FIND "${text}" "<!-- grading:end -->" end)
  if(begin EQUAL -1 OR end EQUAL -1 OR end LESS begin)
    message(FATAL_ERROR "${readme}: no grading table between <!-- grading:begin --> and <!-- grading:end -->")
  endif()
  math(EXPR length "${end} - ${begin}")
  string(SUBSTRING "${text}" ${begin} ${length} table)
  string(REPLACE "\n" ";" lines "${table}")
  set(names)
  set(kinds)
  foreach(line IN LISTS lines)
    if(line MATCHES "^\\| *`([a-z0-9_]+\\.[a-z0-9_]+)` *\\| *([a-z]+) *\\|")
      set(name "${CMAKE_MATCH_1}")
      set(kind "${CMAKE_MATCH_2}")
      if(NOT kind MATCHES "^(given|exercise|stretch)$")
        message(FATAL_ERROR "${readme}: test ${name} has kind '${kind}'; use given, exercise or stretch")
      endif()
      if(name IN_LIST names)
        message(FATAL_ERROR "${readme}: test ${name} is listed twice")
      endif()
      list(APPEND names "${name}")
      list(APPEND kinds "${kind}")
    endif()
  endforeach()
  if(NOT names)
    message(FATAL_ERROR "${readme}: the grading table lists no test")
  endif()
  set(${names_var} "${names}" PARENT_SCOPE)
  set(${kinds_var} "${kinds}" PARENT_SCOPE)
endfunction()

# course_sanitized_rows(<names> <kinds> <filter-var>)
#   The doctest filter of the rows a memory.sanitize row runs under the sanitizers: the
#   correctness rows of the exercise and stretch rungs, comma-separated.
function(course_sanitized_rows names kinds filter_var)
  set(rows)
  foreach(name kind IN ZIP_LISTS names kinds)
    if(name MATCHES "\\.correct$" AND NOT kind STREQUAL "given")
      list(APPEND rows "${name}")
    endif()
  endforeach()
  list(JOIN rows "," filter)
  set(${filter_var} "${filter}" PARENT_SCOPE)
endfunction()

# course_sanitizer_or_placeholder(<var>): compute-sanitizer's path, or a name that does not exist
#   (the row runner then reports the row skipped, with the reason).
function(course_sanitizer_or_placeholder var)
  if(COURSE_COMPUTE_SANITIZER)
    set(${var} "${COURSE_COMPUTE_SANITIZER}" PARENT_SCOPE)
  else()
    set(${var} "compute-sanitizer-not-found" PARENT_SCOPE)
  endif()
endfunction()

# course_patched_copy(<patch> <file> <root> <work> <what>)
#   Copies <root>/<file> to <work>/<file> and applies <patch> (a diff of that one file) to the
#   copy at configure time. A patch that no longer applies stops the configuration, naming it as
#   <what> (e.g. "mutant"); editing the patch or the file configures again.
function(course_patched_copy patch file root work what)
  if(NOT GIT_EXECUTABLE)
    message(FATAL_ERROR "git is needed to apply the ${what}s (or configure with -DCOURSE_BUILD_MUTANTS=OFF)")
  endif()
  file(REMOVE_RECURSE "${work}")
  get_filename_component(file_dir "${file}" DIRECTORY)
  file(COPY "${root}/${file}" DESTINATION "${work}/${file_dir}")
  # GIT_CEILING_DIRECTORIES keeps git from treating the build tree as part of the repository, so
  # that it patches the copy as a plain directory.
  get_filename_component(ceiling "${work}" DIRECTORY)
  execute_process(
    COMMAND ${CMAKE_COMMAND} -E env "GIT_CEILING_DIRECTORIES=${ceiling}"
            ${GIT_EXECUTABLE} apply -p1 "${patch}"
    WORKING_DIRECTORY "${work}" RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} ${patch} no longer applies to ${file}:\n${err}")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${patch}" "${root}/${file}")
endfunction()

# course_apply_mutant(<patch> <source-root> <out-dir> <name-var> <expect-var> <file-var> <copy-var>
#                     <sanitize-var>)
#   A mutant is a unified diff against one solution file, preceded by two header lines:
#     Mutant: <one sentence: what is broken>
#     Expect: <doctest filter of the tests that must fail, e.g. tiled.correct>
#   and optionally a third, for a mistake that only a sanitizer proves (a race that happens to
#   give the right sum on one GPU):
#     Sanitize: <compute-sanitizer tool, e.g. racecheck>
#   The mutant must then fail its Expect tests under that tool: its test runs them under the
#   sanitizer only (a race may give the right answer without it), and is not registered where
#   compute-sanitizer was not found.
#   A mutant whose Expect rows hang (a deadlock the row's time limit ends) says so in a header
#   line "Hangs: yes": CTest then starts it first, and its rows are stopped after
#   COURSE_HANG_ROW_TIMEOUT seconds (30: several times its solution row's time) rather than a
#   row's full limit, because a kernel that spins keeps its share of the GPU's time slices and
#   slows every other test's kernels while it waits (course_add_lesson reads the line).
#   The patched copy is written under <out-dir>/<name>/; a patch that no longer applies stops the
#   configuration, so a mutant cannot drift silently away from the solution it breaks.
function(course_apply_mutant patch root out_dir name_var expect_var file_var copy_var sanitize_var)
  get_filename_component(name "${patch}" NAME_WE)
  file(STRINGS "${patch}" expect_line REGEX "^Expect: ")
  file(STRINGS "${patch}" sanitize_line REGEX "^Sanitize: ")
  string(REGEX REPLACE "^Sanitize: *" "" sanitize "${sanitize_line}")
  if(sanitize AND NOT sanitize MATCHES "^(memcheck|racecheck|synccheck|initcheck)$")
    message(FATAL_ERROR "${patch}: 'Sanitize: ${sanitize}' is not a compute-sanitizer tool")
  endif()
  file(STRINGS "${patch}" file_line REGEX "^\\+\\+\\+ b/")
  if(NOT expect_line OR NOT file_line)
    message(FATAL_ERROR "${patch}: a mutant needs an 'Expect: <tests>' line and a diff of one file")
  endif()
  string(REGEX REPLACE "^Expect: *" "" expect "${expect_line}")
  string(REGEX REPLACE "^\\+\\+\\+ b/([^\t]*).*" "\\1" file "${file_line}")
  set(work "${out_dir}/${name}")
  course_patched_copy("${patch}" "${file}" "${root}" "${work}" mutant)
  set(${name_var} "${name}" PARENT_SCOPE)
  set(${expect_var} "${expect}" PARENT_SCOPE)
  set(${file_var} "${file}" PARENT_SCOPE)
  set(${copy_var} "${work}/${file}" PARENT_SCOPE)
  set(${sanitize_var} "${sanitize}" PARENT_SCOPE)
endfunction()
