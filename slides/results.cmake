# cmake -DDEMO=<lessonNN_demo_...> -DNAME=<NN_name.json> -DROOT=<slides/results>
#       -DSOURCE=<the course> -DCUDA=<nvcc's version> [-DOPTION=<o> [-DVALUE=<v>]] -P results.cmake
#
# Runs one lesson's demo with --json (after `--<o> <v>` when given: the set NN_name_<o>_<v>.json,
# e.g. 11_sorting_sweep_size.json from `--sweep size`) on this machine's GPU and writes its output
# to ROOT/<gpu>/NAME, <gpu> named after the GPU the demo reports ("NVIDIA H100 80GB HBM3 (...)":
# h100-80gb-hbm3); the committed file is replaced only when the demo succeeds and prints JSON.
# Then ROOT/<gpu>/run.json records the run: GPU, driver, CUDA version, date and commit (with
# "+changes" when tracked files differ from it). Used by the target `results`
# (slides/CMakeLists.txt).
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
  message(FATAL_ERROR "results: ${shown} failed (${rc}); ${NAME} is unchanged")
endif()
string(JSON gpu GET "${body}" gpu)
string(REGEX REPLACE "^NVIDIA " "" model "${gpu}")
string(REGEX REPLACE " \\(.*$" "" model "${model}")
string(TOLOWER "${model}" folder)
string(REGEX REPLACE "[^a-z0-9]+" "-" folder "${folder}")
set(out "${ROOT}/${folder}/${NAME}")
file(MAKE_DIRECTORY "${ROOT}/${folder}")
file(WRITE "${out}.tmp" "${body}\n")
file(RENAME "${out}.tmp" "${out}")
message(STATUS "results: ${out}")

# The run: what made these files.
execute_process(COMMAND nvidia-smi --query-gpu=driver_version --format=csv,noheader
                OUTPUT_VARIABLE driver OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
string(REGEX REPLACE "\n.*" "" driver "${driver}")
execute_process(COMMAND git -C "${SOURCE}" rev-parse HEAD OUTPUT_VARIABLE commit
                OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
execute_process(COMMAND git -C "${SOURCE}" status --porcelain --untracked-files=no -- lessons
                        solutions common OUTPUT_VARIABLE changes ERROR_QUIET)
if(NOT changes STREQUAL "")
  string(APPEND commit "+changes")
endif()
string(TIMESTAMP date "%Y-%m-%d" UTC)
set(run "{}")
string(JSON run SET "${run}" gpu "\"${gpu}\"")
string(JSON run SET "${run}" driver "\"${driver}\"")
string(JSON run SET "${run}" cuda "\"${CUDA}\"")
string(JSON run SET "${run}" date "\"${date}\"")
string(JSON run SET "${run}" commit "\"${commit}\"")
file(WRITE "${ROOT}/${folder}/run.json" "${run}\n")
