# course_add_profile(RUNGS <rung>[=<kernel regex>] [<rung>...] [SIZE <size>] [ARGS <demo args>...])
#
# Called by a lesson's CMakeLists.txt after course_add_lesson(). Adds the target
# profile_lessonNN, which runs tools/profile.py: Nsight Compute on one launch of each named rung's
# kernel (at most two, side by side) in the lesson's demo at SIZE, printing the metrics that
# explain its speed. The demo is the solution's where it is built, else the student's, so a
# student profiles their own kernels:
#   cmake --build --preset student --target profile_lesson04
# Where the solution's demo is built, the test lessonNN/solution/profile runs the same; it and the
# target report SKIPPED (exit 77) with the reason when there is no GPU, no ncu, or the GPU's
# performance counters are not permitted.
find_program(COURSE_NCU ncu HINTS "${CUDAToolkit_BIN_DIR}" DOC "Nsight Compute's command line")

function(course_add_profile)
  cmake_parse_arguments(P "" "SIZE" "RUNGS;ARGS" ${ARGN})
  if(NOT P_RUNGS)
    message(FATAL_ERROR "course_add_profile: name one or two RUNGS")
  endif()
  get_filename_component(lesson "${CMAKE_CURRENT_SOURCE_DIR}" NAME)   # 04_aat_padding
  string(SUBSTRING "${lesson}" 0 2 number)
  set(args --lesson ${lesson})
  foreach(rung IN LISTS P_RUNGS)
    list(APPEND args --rung ${rung})
  endforeach()
  if(P_SIZE)
    list(APPEND args --size ${P_SIZE})
  endif()
  foreach(arg IN LISTS P_ARGS)
    list(APPEND args --demo-arg=${arg})
  endforeach()
  if(COURSE_NCU)
    list(APPEND args --ncu ${COURSE_NCU})
  endif()
  set(script "${PROJECT_SOURCE_DIR}/tools/profile.py")
  foreach(flavour IN ITEMS solution student)
    if(NOT demo AND TARGET lesson${number}_demo_${flavour})
      set(demo lesson${number}_demo_${flavour})
    endif()
  endforeach()
  if(NOT demo OR NOT Python3_Interpreter_FOUND)
    return()
  endif()
  add_custom_target(profile_lesson${number}
    COMMAND ${Python3_EXECUTABLE} ${script} --demo $<TARGET_FILE:${demo}> ${args}
    DEPENDS ${demo} USES_TERMINAL VERBATIM
    COMMENT "Profiling lesson ${number} with Nsight Compute (${demo})")
  if(TARGET lesson${number}_demo_solution)
    set(test lesson${number}/solution/profile)
    add_test(NAME ${test} COMMAND ${Python3_EXECUTABLE} ${script}
             --demo $<TARGET_FILE:lesson${number}_demo_solution> ${args})
    # One ncu at a time: each replays its kernel many times and wants the counters to itself.
    set_tests_properties(${test} PROPERTIES LABELS "profile;solution" SKIP_RETURN_CODE 77
                         TIMEOUT 300 RESOURCE_LOCK ncu COST 15)
  endif()
endfunction()
