# course_add_lesson(): one call per lesson, from lessons/NN_name/CMakeLists.txt.
#
#   course_add_lesson(
#     GIVEN    <files...>   given code, compiled into every build of the lesson (lesson dir)
#     SKELETON <files...>   the files students edit (lesson dir); their solved copies, of the same
#                           names, are the solution (solutions/NN_name/)
#     TEST     <file>       the doctest source (tests/NN_name/)
#     DEMO     <file>       the demo's main (lesson dir)
#     [DEMO_BAD_OPTIONS "<args>"...]  option sets the demo must refuse (besides common ones)
#     [TIMEOUT <seconds>]
#     [SM90A <file>]                  one of the SKELETON files that uses Hopper's own
#                                     instructions (wgmma, setmaxnreg): see below
#     [BROKEN_SKELETON])              the skeleton's exercises are written but wrong (a debugging
#                                     lab): see the last paragraph
#
# It builds the skeleton and solution libraries, the test binary against each, the demo against
# each, every mutant in tests/NN_name/mutants/*.patch, and registers the CTest tests named in the
# lesson README's grading table (the one source of test names, thresholds and points):
#
#   lessonNN/student/<test>    skeleton build  (labels lessonNN student gpu|cpu [perf])
#   lessonNN/solution/<test>   solution build  (labels lessonNN solution gpu|cpu [perf])
#   lessonNN/<flavour>/memory.sanitize  memcheck and racecheck over the exercise and stretch
#                              rungs' correctness rows at quick sizes (a grading row)
#   lessonNN/<flavour>/integrity  the flavour's own objects reference and define only what the
#                              lesson's allowlist names (cmake/course_integrity_rules.py; cpu;
#                              the grader withholds exercise points on failure)
#   lessonNN/mutant/<name>     a mutant, must fail one of its "Expect:" tests, each run in its own
#                              process as a student's rows are (label mutant); it passes only
#                              when a row rejects it, never when it did not build; "Expect:
#                              integrity" checks the mutant's object instead
#   lessonNN/mutant/<name>/<tool>  the same under compute-sanitizer, for a "Sanitize: <tool>" mutant
#   lessonNN/sanitize/<tool>   the solution's correctness tests under compute-sanitizer
#   lessonNN/grading_table     the README table and the test binary name the same tests (unit)
#   lessonNN/demo/bad_options_N  the demo refuses bad options with its usage (cpu)
#
# In the instructor build (COURSE_BUILD_SOLUTIONS=ON) the student tests check the skeleton
# itself: given rungs must pass, exercise and stretch rungs must fail with "not implemented".
# SM90A <file>: the file is compiled for sm_90a alone (-gencode=arch=compute_90a,code=sm_90a), in
# its own object library, and only when CMAKE_CUDA_ARCHITECTURES includes 90; every other file
# keeps the build's architectures, so the course still builds for 7.5. The given code sees
# COURSE_HAVE_SM90A_RUNG defined when the file is compiled, and COURSE_CUDA_ARCHITECTURES (the
# list, comma-separated) to name what the build was made for.
#
# With BROKEN_SKELETON (a debugging lab: each exercise is a kernel with a bug to find) they must
# fail by the test's own check instead: a test row must print doctest's "is NOT correct!" (a
# wrong result, not a crash, an exception or a timeout), and the memory.sanitize row a
# compute-sanitizer summary that counts an error.

include_guard(GLOBAL)
include(${CMAKE_CURRENT_LIST_DIR}/CourseGradingTable.cmake)

set(COURSE_GPU_TEST_TIMEOUT 180 CACHE STRING "CTest TIMEOUT (s) of each GPU test")
set(COURSE_SANITIZE_TIMEOUT 1800 CACHE STRING "CTest TIMEOUT (s) of each compute-sanitizer test")
set(COURSE_HANG_ROW_TIMEOUT 30 CACHE STRING
    "Seconds after which a row of a mutant that says \"Hangs: yes\" counts as hung")

function(_course_test_properties test kind labels)
  # kind: gpu or cpu. Quoted arguments keep the label list in one property value.
  # Pass, fail and skip follow the exit code alone (77: no GPU, from test_main.cpp), never the
  # output: code under test could print "[course] SKIPPED" to turn its failure into a skip.
  set_tests_properties("${test}" PROPERTIES LABELS "${labels}" SKIP_RETURN_CODE 77)
  if(kind STREQUAL "gpu")
    # A timed row has the GPU to itself (RUN_SERIAL); correctness rows share it, so that their
    # CPU references overlap other rows' GPU work under `ctest -j`.
    # The ceilings are measured once per CTest run (common/src/ceilings.cu), in a directory the
    # fixture empties at the start of every run.
    set_tests_properties("${test}" PROPERTIES TIMEOUT ${COURSE_GPU_TEST_TIMEOUT}
      FIXTURES_REQUIRED course_ceilings
      ENVIRONMENT_MODIFICATION "COURSE_CEILINGS_DIR=set:${COURSE_CEILINGS_DIR}")
    if("perf" IN_LIST labels)
      # Alone on the GPU, a row may measure a ceiling for the whole run (COURSE_ALONE,
      # common/src/ceilings_cache.hpp); a row that shares the GPU measures one for itself only.
      set_tests_properties("${test}" PROPERTIES RUN_SERIAL TRUE ENVIRONMENT_MODIFICATION
        "COURSE_CEILINGS_DIR=set:${COURSE_CEILINGS_DIR};COURSE_ALONE=set:1")
    elseif(NOT "mutant" IN_LIST labels)
      # CTest starts the costliest tests first (until a run has recorded their times): the
      # correctness rows and the sanitizers before the mutants and the checks of a second, so
      # that no long row starts last and holds the others' end. (The timed rows run last, alone.)
      set_tests_properties("${test}" PROPERTIES COST 10)
    else()
      # The mutants next, all before the timed rows (cost 0): CTest starts nothing new while a
      # RUN_SERIAL row waits for the GPU, so every timed row met between two mutants would first
      # wait for every running test to end.
      set_tests_properties("${test}" PROPERTIES COST 5)
    endif()
  else()
    set_tests_properties("${test}" PROPERTIES TIMEOUT 60 ENVIRONMENT "COURSE_CPU_ONLY=1")
  endif()
endfunction()

# Where one CTest run keeps the ceilings it measured; emptied by the fixture below at the start
# of every run, so a ceiling is never reused across runs (or GPUs: the files name the GPU).
# (The fixture's test, course/ceilings_fresh, is registered in common/CMakeLists.txt.)
set(COURSE_CEILINGS_DIR "${PROJECT_BINARY_DIR}/ceilings-of-this-run")

# The row runner: each matched test case in its own process (cmake/course_run_rows.sh).
set(COURSE_RUN_ROWS "${CMAKE_CURRENT_LIST_DIR}/course_run_rows.sh")

# What the untouched skeleton's exercise rows must print in the instructor build: "not
# implemented", or with BROKEN_SKELETON a failure of the test's own (see the top of this file).
# doctest prints "is NOT correct!" under every failed check; memcheck ends with "ERROR SUMMARY: N
# errors", racecheck with "RACECHECK SUMMARY: N hazards displayed (N errors, M warnings)".
set(COURSE_UNTOUCHED_ROW "not implemented")
set(COURSE_BROKEN_ROW "is NOT correct!")
set(COURSE_BROKEN_SANITIZE_ROW "ERROR SUMMARY: [1-9]" "SUMMARY: [0-9]+ hazards? displayed \\([1-9]")

# Registers one CTest test per README row for the test binary <exe> of flavour <flavour>.
# <broken>: the lesson's BROKEN_SKELETON.
function(_course_register_rows tag flavour exe readme broken)
  set(untouched "${COURSE_UNTOUCHED_ROW}")
  set(untouched_sanitize "${COURSE_UNTOUCHED_ROW}")
  if(broken)
    set(untouched "${COURSE_BROKEN_ROW}")
    set(untouched_sanitize "${COURSE_BROKEN_SANITIZE_ROW}")
  endif()
  course_read_grading_table("${readme}" names kinds)
  # memory.sanitize runs the exercise and stretch rungs' correctness rows under the sanitizers.
  course_sanitized_rows("${names}" "${kinds}" checked_filter)
  foreach(name kind IN ZIP_LISTS names kinds)
    set(test "${tag}/${flavour}/${name}")
    if(name STREQUAL "memory.sanitize")
      course_sanitizer_or_placeholder(sanitizer)
      add_test(NAME "${test}" COMMAND sh ${COURSE_RUN_ROWS} all ${exe} "${checked_filter}"
                                      "${sanitizer}" memcheck racecheck)
      set_tests_properties("${test}" PROPERTIES REQUIRED_FILES "${exe}")
      _course_test_properties("${test}" gpu "${tag};${flavour};gpu;sanitize")
      set_tests_properties("${test}" PROPERTIES TIMEOUT ${COURSE_SANITIZE_TIMEOUT} COST 30)
      if(flavour STREQUAL "student" AND COURSE_BUILD_SOLUTIONS AND NOT kind STREQUAL "given")
        set_tests_properties("${test}" PROPERTIES PASS_REGULAR_EXPRESSION "${untouched_sanitize}")
      endif()
      continue()
    endif()
    # Through the row runner, which sets the run's seed and checks what the row used. A test
    # binary that was not built leaves the row "Not Run" (REQUIRED_FILES), as CTest says of a
    # missing program: the grader shows the lesson as NOT BUILT.
    add_test(NAME "${test}" COMMAND sh ${COURSE_RUN_ROWS} row ${exe} "${name}")
    set_tests_properties("${test}" PROPERTIES REQUIRED_FILES "${exe}")
    set(where gpu)
    if(name MATCHES "^launcher\\.")
      set(where cpu)
    endif()
    set(labels ${tag} ${flavour} ${where})
    if(name MATCHES "\\.(speed|share|speed_[a-z0-9_]+)$")
      list(APPEND labels perf)
    endif()
    _course_test_properties("${test}" ${where} "${labels}")
    if(flavour STREQUAL "student" AND COURSE_BUILD_SOLUTIONS AND NOT kind STREQUAL "given")
      # The untouched skeleton must refuse this rung in so many words (or, broken, fail its check).
      # A timed row that only refuses measures nothing: it need not have the GPU to itself.
      set_tests_properties("${test}" PROPERTIES PASS_REGULAR_EXPRESSION "${untouched}")
      if(NOT broken)
        set_tests_properties("${test}" PROPERTIES RUN_SERIAL FALSE ENVIRONMENT_MODIFICATION
          "COURSE_CEILINGS_DIR=set:${COURSE_CEILINGS_DIR}")
      endif()
    endif()
  endforeach()
endfunction()

# The integrity row <test> of lesson <number>: cmake/course_integrity.py over <files> (a
# "|"-separated list, generator expressions allowed); <expect_denied>: a mutant's check, which
# passes only when something is refused.
function(_course_integrity_test test number files what expect_denied)
  set(expect)
  if(expect_denied)
    set(expect --expect-denied)
  endif()
  if(NOT Python3_Interpreter_FOUND)
    # The message, and a failure (WILL_FAIL turns echo's success round).
    add_test(NAME "${test}" COMMAND ${CMAKE_COMMAND} -E echo
             "[course] integrity: FAILED: the check needs Python 3, which CMake did not find")
    set_tests_properties("${test}" PROPERTIES WILL_FAIL ON)
    return()
  endif()
  add_test(NAME "${test}"
           COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/cmake/course_integrity.py
                   --lesson ${number} --nm ${CMAKE_NM} --objdump "${CMAKE_OBJDUMP}"
                   --what "${what}" ${expect} "${files}")
endfunction()

# An object library of one file compiled for sm_90a alone (see SM90A above).
function(_course_sm90a_objects target source given)
  add_library(${target} OBJECT "${source}")
  target_link_libraries(${target} PRIVATE ${given})
  set_target_properties(${target} PROPERTIES CUDA_ARCHITECTURES OFF)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CUDA>:-gencode=arch=compute_90a,code=sm_90a>)
endfunction()

function(course_add_lesson)
  cmake_parse_arguments(L "BROKEN_SKELETON" "TEST;DEMO;TIMEOUT;SM90A"
                        "GIVEN;SKELETON;DEMO_BAD_OPTIONS" ${ARGN})
  if(L_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "course_add_lesson: unknown arguments ${L_UNPARSED_ARGUMENTS} (the "
                        "solution is the SKELETON files' copies in solutions/, not a list)")
  endif()
  get_filename_component(dir_name "${CMAKE_CURRENT_SOURCE_DIR}" NAME)       # 02_transpose
  string(SUBSTRING "${dir_name}" 0 2 number)                                  # 02
  set(tag "lesson${number}")
  set(readme "${CMAKE_CURRENT_SOURCE_DIR}/README.md")
  set(solution_dir "${PROJECT_SOURCE_DIR}/solutions/${dir_name}")
  set(test_dir "${PROJECT_SOURCE_DIR}/tests/${dir_name}")
  set(lesson_dir "${CMAKE_CURRENT_SOURCE_DIR}")
  list(TRANSFORM L_SKELETON PREPEND "${solution_dir}/" OUTPUT_VARIABLE solution_sources)

  # Given code, compiled once and linked into every flavour.
  add_library(${tag}_given OBJECT ${L_GIVEN})
  target_include_directories(${tag}_given PUBLIC "${lesson_dir}")
  target_link_libraries(${tag}_given PUBLIC course::harness)
  set(sm90a OFF)
  if(L_SM90A)
    foreach(arch IN LISTS CMAKE_CUDA_ARCHITECTURES)
      if(arch MATCHES "^90")
        set(sm90a ON)
      endif()
    endforeach()
    string(REPLACE ";" "," archs "${CMAKE_CUDA_ARCHITECTURES}")
    target_compile_definitions(${tag}_given PUBLIC "COURSE_CUDA_ARCHITECTURES=\"${archs}\"")
    if(sm90a)
      target_compile_definitions(${tag}_given PUBLIC COURSE_HAVE_SM90A_RUNG)
    endif()
  endif()

  # The tests, compiled once and linked against each flavour.
  add_library(${tag}_tests OBJECT "${test_dir}/${L_TEST}")
  target_link_libraries(${tag}_tests PUBLIC ${tag}_given course::testing)
  target_compile_definitions(${tag}_tests PRIVATE COURSE_LESSON_README="${readme}")

  set(flavours)
  if(COURSE_BUILD_STUDENT)
    list(APPEND flavours student)
    set(student_sources ${L_SKELETON})
  endif()
  if(COURSE_BUILD_SOLUTIONS)
    list(APPEND flavours solution)
  endif()

  foreach(flavour IN LISTS flavours)
    if(flavour STREQUAL "student")
      set(sources ${L_SKELETON})
    else()
      set(sources ${solution_sources})
    endif()
    set(sm90a_objects)
    if(L_SM90A)
      # The Hopper file: out of the flavour's sources, into an sm_90a object library (or nowhere).
      list(FILTER sources EXCLUDE REGEX "(^|/)${L_SM90A}$")
      if(flavour STREQUAL "student")
        set(sm90a_source "${lesson_dir}/${L_SM90A}")
      else()
        set(sm90a_source "${solution_dir}/${L_SM90A}")
      endif()
      if(sm90a)
        _course_sm90a_objects(${tag}_${flavour}_sm90a "${sm90a_source}" ${tag}_given)
        set(sm90a_objects $<TARGET_OBJECTS:${tag}_${flavour}_sm90a>)
      endif()
    endif()
    add_library(${tag}_${flavour} STATIC ${sources} ${sm90a_objects})
    target_link_libraries(${tag}_${flavour} PUBLIC ${tag}_given)

    add_executable(${tag}_test_${flavour})
    target_link_libraries(${tag}_test_${flavour} PRIVATE ${tag}_tests ${tag}_${flavour} course::test_main)
    _course_register_rows(${tag} ${flavour} $<TARGET_FILE:${tag}_test_${flavour}> "${readme}"
                          "${L_BROKEN_SKELETON}")

    # The flavour's own objects (what a student writes) reference and define only what the
    # lesson's allowlist names (cmake/course_integrity_rules.py).
    _course_integrity_test(${tag}/${flavour}/integrity ${number}
                           "$<JOIN:$<TARGET_OBJECTS:${tag}_${flavour}>;${sm90a_objects},|>"
                           "the ${flavour} objects of ${tag}" OFF)
    _course_test_properties(${tag}/${flavour}/integrity cpu "${tag};${flavour};cpu;integrity")

    add_executable(${tag}_demo_${flavour} "${L_DEMO}")
    target_link_libraries(${tag}_demo_${flavour} PRIVATE ${tag}_${flavour} course::demo)
    list(APPEND demo_targets ${tag}_demo_${flavour})
    set_property(GLOBAL APPEND PROPERTY COURSE_${flavour}_TARGETS ${tag}_test_${flavour} ${tag}_demo_${flavour})
  endforeach()
  list(GET flavours -1 last)   # the solution where there is one
  set(checked_exe $<TARGET_FILE:${tag}_test_${last}>)
  set(checked_demo $<TARGET_FILE:${tag}_demo_${last}>)

  # The README's grading table and the test binary must name the same tests.
  add_test(NAME ${tag}/grading_table
           COMMAND ${CMAKE_COMMAND} -DEXE=${checked_exe} -DREADME=${readme}
                   -P ${PROJECT_SOURCE_DIR}/cmake/CourseCheckGradingTable.cmake)
  _course_test_properties(${tag}/grading_table cpu "${tag};unit;cpu")

  # A demo given bad options prints its usage and exits non-zero: one test per option set.
  set(bad_option_sets ${L_DEMO_BAD_OPTIONS} "--size=-3" "--variant=no_such_rung" "--repeat=0"
      "--block=0")
  set(index 0)
  foreach(options IN LISTS bad_option_sets)
    math(EXPR index "${index} + 1")
    string(REPLACE " " "|" options_arg "${options}")   # one -D value; the script splits it
    add_test(NAME ${tag}/demo/bad_options_${index}
             COMMAND ${CMAKE_COMMAND} -DEXE=${checked_demo} "-DARGS=${options_arg}"
                     -P ${PROJECT_SOURCE_DIR}/cmake/CourseExpectUsage.cmake)
    _course_test_properties(${tag}/demo/bad_options_${index} cpu "${tag};demo;cpu")
  endforeach()

  if(NOT COURSE_BUILD_SOLUTIONS)
    return()
  endif()

  # Sanitizers over the solution's correctness tests, at reduced sizes (COURSE_QUICK).
  if(COURSE_COMPUTE_SANITIZER)
    foreach(tool memcheck racecheck synccheck initcheck)
      # memcheck with a padding buffer after every allocation, as course_run_rows.sh runs it.
      set(options)
      if(tool STREQUAL "memcheck")
        set(options --padding 65536)
      endif()
      add_test(NAME ${tag}/sanitize/${tool}
               COMMAND ${COURSE_COMPUTE_SANITIZER} --tool ${tool} ${options} --error-exitcode 1
                       $<TARGET_FILE:${tag}_test_solution> "--test-case=*.correct")
      _course_test_properties(${tag}/sanitize/${tool} gpu "${tag};sanitize;solution;gpu")
      set_tests_properties(${tag}/sanitize/${tool} PROPERTIES
        TIMEOUT ${COURSE_SANITIZE_TIMEOUT} COST 30
        ENVIRONMENT "COURSE_QUICK=1;COURSE_SANITIZE=1;COURSE_SANITIZE_TOOL=${tool}")
    endforeach()
  endif()

  # Mutants: each patch breaks the solution in one small way; its tests must notice.
  if(COURSE_BUILD_MUTANTS)
    file(GLOB patches CONFIGURE_DEPENDS "${test_dir}/mutants/*.patch")
    foreach(patch IN LISTS patches)
      course_apply_mutant("${patch}" "${PROJECT_SOURCE_DIR}" "${CMAKE_CURRENT_BINARY_DIR}/mutants"
                          mutant expect patched_file patched_copy sanitize)
      if(expect STREQUAL "integrity")
        # A borrowed library: the integrity check must see it in the mutant's object.
        add_library(${tag}_mutant_${mutant} OBJECT "${patched_copy}")
        target_include_directories(${tag}_mutant_${mutant} PRIVATE "${solution_dir}")
        target_link_libraries(${tag}_mutant_${mutant} PRIVATE ${tag}_given)
        _course_integrity_test(${tag}/mutant/${mutant} ${number}
                               "$<JOIN:$<TARGET_OBJECTS:${tag}_mutant_${mutant}>,|>"
                               "mutant ${mutant}'s objects" ON)
        _course_test_properties(${tag}/mutant/${mutant} cpu "${tag};mutant;cpu;integrity")
        continue()
      endif()
      # Only the patched file is compiled; the solution's other objects come from its library
      # (the linker takes an archive member only for a symbol still undefined, and the patched
      # object defines the same ones). The Hopper file is compiled as its flavour's is, or, in a
      # build without 90, not at all: then its mutants are not built.
      get_filename_component(patched_name "${patched_file}" NAME)
      if(L_SM90A AND patched_name STREQUAL L_SM90A)
        if(NOT sm90a)
          continue()
        endif()
        _course_sm90a_objects(${tag}_mutant_${mutant}_sm90a "${patched_copy}" ${tag}_given)
        target_include_directories(${tag}_mutant_${mutant}_sm90a PRIVATE "${solution_dir}")
        add_executable(${tag}_mutant_${mutant} $<TARGET_OBJECTS:${tag}_mutant_${mutant}_sm90a>)
      else()
        add_executable(${tag}_mutant_${mutant} "${patched_copy}")
      endif()
      target_include_directories(${tag}_mutant_${mutant} PRIVATE "${solution_dir}")
      target_link_libraries(${tag}_mutant_${mutant} PRIVATE ${tag}_tests ${tag}_solution ${tag}_given
                                                            course::test_main)
      # Each Expect row in its own process, as CTest runs a student's rows. A "Sanitize:" mutant
      # (a race or over-read that may well give the right answer) is caught by its tool alone, as
      # a student's memory.sanitize row catches it.
      if(NOT sanitize)
        add_test(NAME ${tag}/mutant/${mutant}
                 COMMAND sh ${COURSE_RUN_ROWS} reject $<TARGET_FILE:${tag}_mutant_${mutant}> "${expect}")
        set(mutant_labels ${tag} mutant gpu)
        # Caught only by a timing (every Expect row timed): time it alone. A mutant that one of
        # its correctness rows catches shares the GPU as those rows do.
        string(REPLACE "," ";" expect_rows "${expect}")
        set(only_timed ON)
        foreach(row IN LISTS expect_rows)
          if(NOT row MATCHES "\\.(speed|share|speed_[a-z0-9_]+)$|\\*")
            set(only_timed OFF)
          endif()
        endforeach()
        if(only_timed)
          list(APPEND mutant_labels perf)
        endif()
        _course_test_properties(${tag}/mutant/${mutant} gpu "${mutant_labels}")
        # A row that hangs fails a student at CTest's limit for a row; here the row runner stops
        # it at the same limit and counts it as the rejection, within a CTest limit that leaves
        # room for the rows before it (CTest's limit alone would fail the test: "not rejected").
        math(EXPR mutant_timeout "3 * ${COURSE_GPU_TEST_TIMEOUT} + 60")
        set_tests_properties(${tag}/mutant/${mutant} PROPERTIES TIMEOUT ${mutant_timeout}
          ENVIRONMENT "COURSE_ROW_TIMEOUT=${COURSE_GPU_TEST_TIMEOUT}")
        # A mutant that hangs: start it first, and stop its row sooner than a student's
        # (course_apply_mutant says why). The suite on an H200 with two of them spinning for a
        # row's whole 180 s: other tests' rows took 1.7 to 2.7 times as long as with none.
        file(STRINGS "${patch}" hangs_line REGEX "^Hangs: *yes")
        if(hangs_line)
          set_tests_properties(${tag}/mutant/${mutant} PROPERTIES COST 200
            ENVIRONMENT "COURSE_ROW_TIMEOUT=${COURSE_HANG_ROW_TIMEOUT}")
        endif()
      endif()
      if(sanitize AND COURSE_COMPUTE_SANITIZER)
        # A race may give the right answer on one GPU; the sanitizer must still see it.
        add_test(NAME ${tag}/mutant/${mutant}/${sanitize}
                 COMMAND sh ${COURSE_RUN_ROWS} reject $<TARGET_FILE:${tag}_mutant_${mutant}> "${expect}"
                         ${COURSE_COMPUTE_SANITIZER} ${sanitize})
        _course_test_properties(${tag}/mutant/${mutant}/${sanitize} gpu "${tag};mutant;sanitize;gpu")
        set_tests_properties(${tag}/mutant/${mutant}/${sanitize} PROPERTIES
          TIMEOUT ${COURSE_SANITIZE_TIMEOUT})
      endif()
    endforeach()
  endif()
endfunction()
