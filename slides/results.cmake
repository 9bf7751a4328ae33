# cmake -DDEMO=<lessonNN_demo_...> -DOUT=<slides/results/NN_name.json>
#       [-DOPTION=<o> [-DVALUE=<v>]] -P results.cmake
#
# Runs one lesson's demo with --json (after `--<o> <v>` when given: the set
# slides/results/NN_name_<o>_<v>.json, e.g. 11_sorting_sweep_size.json from `--sweep size`) on
# this machine's GPU and writes its output to OUT; the committed file is replaced only when the
# demo succeeds and prints JSON. Used by the target `results` (slides/CMakeLists.txt).
cmake_minimum_required(VERSION 3.25)

set(args)
if(OPTION)
  list(APPEND args "--${OPTION}")
  if(NOT VALUE STREQUAL "")
    list(APPEND args "${VALUE}")
  endif()
endif()
string(JOIN " " shown "${DEMO}" ${args} --json)
execute_process(COMMAND "${DEMO}" ${args} --json OUTPUT_VARIABLE json RESULT_VARIABLE rc)
string(REGEX MATCH "\n?{.*" body "${json}")   # drop lines printed before the JSON
string(STRIP "${body}" body)
if(NOT rc EQUAL 0 OR NOT body MATCHES "^{")
  message(FATAL_ERROR "results: ${shown} failed (${rc}); ${OUT} is unchanged")
endif()
file(WRITE "${OUT}.tmp" "${body}\n")
file(RENAME "${OUT}.tmp" "${OUT}")
message(STATUS "results: ${OUT}")
