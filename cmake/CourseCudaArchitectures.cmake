# Chooses CMAKE_CUDA_ARCHITECTURES before the CUDA language is enabled.
#
#   -DCMAKE_CUDA_ARCHITECTURES=...   always wins (a preset or the command line);
#   a GPU visible to nvidia-smi       -> its own architecture (e.g. 90 on an H100/H200);
#   no GPU at configure time          -> COURSE_DEFAULT_CUDA_ARCHITECTURES (default 75-virtual:
#                                        PTX for compute capability 7.5, the course's minimum, which
#                                        the driver compiles for any newer GPU at first launch).
#
# CMake's own "native" value fails outright when no GPU is present, which would break the
# CPU-only build that CI and students on laptops rely on; hence this module.
set(COURSE_DEFAULT_CUDA_ARCHITECTURES "75-virtual"
    CACHE STRING "CUDA architectures used when no GPU is visible at configure time")

if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES OR CMAKE_CUDA_ARCHITECTURES STREQUAL "")
  find_program(COURSE_NVIDIA_SMI nvidia-smi)
  set(_course_arch "")
  if(COURSE_NVIDIA_SMI)
    execute_process(
      COMMAND "${COURSE_NVIDIA_SMI}" --query-gpu=compute_cap --format=csv,noheader
      OUTPUT_VARIABLE _course_caps
      RESULT_VARIABLE _course_rc
      ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(_course_rc EQUAL 0 AND _course_caps MATCHES "^([0-9]+)\\.([0-9]+)")
      set(_course_arch "${CMAKE_MATCH_1}${CMAKE_MATCH_2}")
    endif()
  endif()
  if(_course_arch STREQUAL "")
    set(_course_arch "${COURSE_DEFAULT_CUDA_ARCHITECTURES}")
    message(STATUS "course: no GPU visible; CUDA architectures ${_course_arch} (override with -DCMAKE_CUDA_ARCHITECTURES=...)")
  else()
    message(STATUS "course: GPU of compute capability ${_course_arch} found; building for it")
  endif()
  set(CMAKE_CUDA_ARCHITECTURES "${_course_arch}" CACHE STRING "CUDA architectures to build for")
endif()
