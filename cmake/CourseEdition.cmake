# course_edition_option(<variable> <what>)
#   A cache variable choosing the student edition (no solution code) or the instructor edition
#   (with it) of <what>; the default follows COURSE_BUILD_SOLUTIONS. The instructor edition needs
#   solutions/.
# course_tool_missing_target(<target> <status> <line>...)
#   For a build of the docs or slides on a machine without the tools they need: <target> prints
#   each <line> (what is missing, how to install it) and fails, and configuring says <status>.
function(course_tool_missing_target target status)
  set(commands)
  foreach(line IN LISTS ARGN)
    list(APPEND commands COMMAND ${CMAKE_COMMAND} -E echo "${line}")
  endforeach()
  add_custom_target(${target} ${commands} COMMAND ${CMAKE_COMMAND} -E false VERBATIM)
  message(STATUS "course: ${status}")
endfunction()

function(course_edition_option variable what)
  if(COURSE_BUILD_SOLUTIONS)
    set(default instructor)
  else()
    set(default student)
  endif()
  set(${variable} "${default}" CACHE STRING
      "${what} edition: student (no solution code) or instructor (with the solutions)")
  set_property(CACHE ${variable} PROPERTY STRINGS student instructor)
  if(NOT ${variable} MATCHES "^(student|instructor)$")
    message(FATAL_ERROR "${variable} is '${${variable}}'; use student or instructor")
  endif()
  if(${variable} STREQUAL "instructor" AND NOT EXISTS "${PROJECT_SOURCE_DIR}/solutions")
    message(FATAL_ERROR "${variable} is instructor but there is no solutions/ directory")
  endif()
endfunction()
