# course_add_grade_targets(LESSONS <NN>...)
#   The targets that grade the student lessons, and the line CTest prints when no kernel was
#   checked:
#
#   grade      builds every lesson's test program and demo, going on past a lesson that does not
#              compile, then prints the scoreboard (tools/grade.py --build): a lesson that did not
#              build shows as NOT BUILT with its first compiler error, and every other lesson is
#              graded. It fails (after the scoreboard) when a lesson did not build.
#   grade-NN   the same for lesson NN alone: after an edit, only that lesson is rebuilt and run.
#
#   The grader runs the build itself, so that `grade` depends on no lesson: a target that did
#   would not run at all once one lesson failed to compile. Without Python the grade target runs
#   CTest over the student tests instead, after building every lesson.
#
#   After every CTest run in the build tree, cmake/course_gpu_notice.py says so when no test ran
#   on a GPU and GPU tests were skipped ("100% tests passed" then counts only the CPU tests), and
#   where to grade on a GPU (CTest's CTEST_CUSTOM_POST_TEST, in the build's CTestCustom.cmake).
include_guard(GLOBAL)

function(course_add_grade_targets)
  cmake_parse_arguments(G "" "" "LESSONS" ${ARGN})
  if(NOT Python3_Interpreter_FOUND)
    get_property(student_targets GLOBAL PROPERTY COURSE_student_TARGETS)
    add_custom_target(grade COMMAND ${CMAKE_CTEST_COMMAND} --test-dir ${PROJECT_BINARY_DIR}
                                    -L student --output-on-failure
                      USES_TERMINAL COMMENT "Grading the student lessons")
    if(student_targets)
      add_dependencies(grade ${student_targets})
    endif()
    return()
  endif()
  set(grader ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/grade.py
      --build-dir ${PROJECT_BINARY_DIR} --source-dir ${PROJECT_SOURCE_DIR} --build)
  add_custom_target(grade COMMAND ${grader} USES_TERMINAL VERBATIM
                    COMMENT "Building and grading the student lessons")
  foreach(number IN LISTS G_LESSONS)
    add_custom_target(grade-${number} COMMAND ${grader} --lessons ${number} USES_TERMINAL VERBATIM
                      COMMENT "Building and grading lesson ${number}")
  endforeach()
  configure_file(${CMAKE_CURRENT_FUNCTION_LIST_DIR}/CTestCustom.cmake.in
                 ${PROJECT_BINARY_DIR}/CTestCustom.cmake @ONLY)
endfunction()
