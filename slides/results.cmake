# cmake -DDEMO=<lessonNN_demo_...> -DOUT=<slides/results/NN_name.json> -P results.cmake
#
# Runs one lesson's demo with --json on this machine's GPU and writes its output to OUT; the
# committed file is replaced only when the demo succeeds and prints JSON. Used by the target
# `results` (slides/CMakeLists.txt).
cmake_minimum_required(VERSION 3.25)

execute_process(COMMAND "${DEMO}" --json OUTPUT_VARIABLE json RESULT_VARIABLE rc)
string(REGEX MATCH "\n?{.*" body "${json}")   # drop lines printed before the JSON
string(STRIP "${body}" body)
if(NOT rc EQUAL 0 OR NOT body MATCHES "^{")
  message(FATAL_ERROR "results: ${DEMO} --json failed (${rc}); ${OUT} is unchanged")
endif()
file(WRITE "${OUT}.tmp" "${body}\n")
file(RENAME "${OUT}.tmp" "${OUT}")
message(STATUS "results: ${OUT}")
