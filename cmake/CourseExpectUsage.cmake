# cmake -DEXE=<demo> -DARGS=<option|option|...> -P CourseExpectUsage.cmake
# Passes when the demo, given the bad options, exits non-zero and prints its usage.
cmake_minimum_required(VERSION 3.25)
string(REPLACE "|" ";" ARGS "${ARGS}")
execute_process(COMMAND "${EXE}" ${ARGS} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
if(rc EQUAL 0)
  message(FATAL_ERROR "${EXE} ${ARGS}: exited 0; bad options must fail")
endif()
if(NOT "${out}${err}" MATCHES "[Uu]sage")
  message(FATAL_ERROR "${EXE} ${ARGS}: no usage printed:\n${out}${err}")
endif()
message(STATUS "refused with exit code ${rc} and its usage, as it should")
