# cmake -DEXE=<test binary> -DREADME=<lesson README> -P CourseCheckGradingTable.cmake
# Fails unless the README's grading table and the binary's doctest cases name the same tests.
cmake_minimum_required(VERSION 3.25)
include(${CMAKE_CURRENT_LIST_DIR}/CourseGradingTable.cmake)
course_read_grading_table("${README}" rows kinds)
list(REMOVE_ITEM rows memory.sanitize)   # run by the sanitizers, not a test case of its own
execute_process(COMMAND "${EXE}" --list-test-cases --no-version=true
                OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${EXE} --list-test-cases failed (${rc}):\n${out}")
endif()
string(REPLACE "\n" ";" lines "${out}")
set(cases)
foreach(line IN LISTS lines)
  if(line MATCHES "^([a-z0-9_]+\\.[a-z0-9_]+)$")
    list(APPEND cases "${CMAKE_MATCH_1}")
  endif()
endforeach()
set(missing_rows ${cases})
list(REMOVE_ITEM missing_rows ${rows})
set(missing_cases ${rows})
list(REMOVE_ITEM missing_cases ${cases})
if(missing_rows OR missing_cases)
  message(FATAL_ERROR "grading table and tests disagree:\n"
    "  test cases without a README row: ${missing_rows}\n"
    "  README rows without a test case: ${missing_cases}")
endif()
list(LENGTH rows count)
message(STATUS "grading table: ${count} tests, each with its test case")
