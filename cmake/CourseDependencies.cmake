# Third-party header libraries: the system's packages first (Debian/Ubuntu: doctest-dev,
# libcli11-dev, nlohmann-json3-dev, libstb-dev), a pinned download otherwise.
include(FetchContent)

# course_dependency(<package> <target> <git-repository> <git-tag>)
#   Finds <package> with find_package; if absent, fetches the pinned tag. Either way <target>
#   exists afterwards.
macro(course_dependency package target repository tag)
  find_package(${package} CONFIG QUIET)
  if(NOT TARGET ${target})
    message(STATUS "course: ${package} not found on the system; fetching ${tag}")
    FetchContent_Declare(${package} GIT_REPOSITORY ${repository} GIT_TAG ${tag} GIT_SHALLOW TRUE)
    FetchContent_MakeAvailable(${package})
  else()
    message(STATUS "course: ${package} ${${package}_VERSION} from the system")
  endif()
endmacro()

set(DOCTEST_NO_INSTALL ON)
set(CLI11_PRECOMPILED OFF)
set(JSON_Install OFF)
course_dependency(doctest doctest::doctest https://github.com/doctest/doctest.git v2.4.11)
course_dependency(CLI11 CLI11::CLI11 https://github.com/CLIUtils/CLI11.git v2.4.2)
course_dependency(nlohmann_json nlohmann_json::nlohmann_json https://github.com/nlohmann/json.git v3.11.3)

# stb_image_write, for the pictures that demos write (course/image.hpp). It has no CMake package:
# find its header, or fetch the repository (which has no CMakeLists.txt, so it is only unpacked).
find_path(COURSE_STB_INCLUDE_DIR stb_image_write.h PATH_SUFFIXES stb)
if(NOT COURSE_STB_INCLUDE_DIR)
  message(STATUS "course: stb_image_write.h not found on the system; fetching stb")
  FetchContent_Declare(stb GIT_REPOSITORY https://github.com/nothings/stb.git
                       GIT_TAG 22fa9a467ad26e9f214a078bc827f0c2f7acc15a)
  FetchContent_MakeAvailable(stb)
  set(COURSE_STB_INCLUDE_DIR "${stb_SOURCE_DIR}" CACHE PATH "Directory of stb_image_write.h" FORCE)
else()
  message(STATUS "course: stb_image_write.h from ${COURSE_STB_INCLUDE_DIR}")
endif()

find_package(CUDAToolkit REQUIRED)   # cudart, cuBLAS; CUB and Thrust come with the toolkit headers

find_program(CCACHE_PROGRAM ccache)
if(CCACHE_PROGRAM AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  message(STATUS "course: compiling through ${CCACHE_PROGRAM}")
  set(CMAKE_CXX_COMPILER_LAUNCHER "${CCACHE_PROGRAM}")
  set(CMAKE_CUDA_COMPILER_LAUNCHER "${CCACHE_PROGRAM}")
endif()

find_program(COURSE_COMPUTE_SANITIZER compute-sanitizer
             HINTS "${CUDAToolkit_BIN_DIR}" "${CUDAToolkit_BIN_DIR}/../compute-sanitizer")
find_package(Python3 COMPONENTS Interpreter)
find_package(Git QUIET)
