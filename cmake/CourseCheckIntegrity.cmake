# cmake -DNM=<nm> -DFILES=<object or archive|...> -DWHAT=<what is checked> [-DDENY=<regex,...>]
#       [-DEXPECT_DENIED=ON] -P CourseCheckIntegrity.cmake
#
# EXPECT_DENIED (a mutant's check) turns the verdict round: it passes only when a denied symbol
# is found, and fails when none is or an object is missing (a mutant that did not build).
#
# Reads the symbols of a student's compiled objects and fails, naming each symbol, when they use
# what a rung exists to teach or what grades it: cuBLAS, CUB, Thrust and NVIDIA's other
# libraries, loading a library at run time, the harness's ceilings, references and clock, or
# writing files (a test must not read what student code wrote). DENY adds lesson-specific
# patterns (a given rung that wraps a library, say).
cmake_minimum_required(VERSION 3.25)
if(NOT NM OR NOT FILES)
  message(FATAL_ERROR "CourseCheckIntegrity.cmake needs -DNM and -DFILES")
endif()
string(REPLACE "|" ";" FILES "${FILES}")
string(REPLACE "," ";" DENY "${DENY}")

# pattern => why
set(rules
  "cublas|cuBLAS"
  "cub::|CUB"
  "thrust::|Thrust"
  "(cusparse|curand|cufft|cudnn|cusolver|nvjpeg|cutensor)|a CUDA library"
  "(^| )(dlopen|dlsym|dlvsym|dlmopen)(@|$)|loading a library at run time"
  "course::(ceilings|measure|product|bench|fill_uniform|time_on_gpu|EventTimer|flush_l2|poison_shared)|the harness's measuring and references"
  "(^| )(fopen|fopen64|freopen|open|open64|openat|creat|creat64|rename|unlink|remove|system|popen|setenv|putenv|unsetenv)(@|$)|file and environment access"
  "std::(__cxx11::)?basic_(o|)fstream|std::filesystem|file output")
foreach(pattern IN LISTS DENY)
  list(APPEND rules "${pattern}|denied for this lesson")
endforeach()

set(found)
foreach(file IN LISTS FILES)
  execute_process(COMMAND "${NM}" -C "${file}" OUTPUT_VARIABLE symbols ERROR_VARIABLE err
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${NM} -C ${file} failed: ${err}")
  endif()
  string(REPLACE "\n" ";" lines "${symbols}")
  foreach(line IN LISTS lines)
    # "<address> <type> <name>" or "                 U <name>": keep the name.
    if(NOT line MATCHES "^[0-9a-fA-F ]+ [A-Za-z] (.+)$")
      continue()
    endif()
    set(name "${CMAKE_MATCH_1}")
    set(index 0)
    foreach(rule IN LISTS rules)
      string(FIND "${rule}" "|" bar REVERSE)
      string(SUBSTRING "${rule}" 0 ${bar} pattern)
      if(" ${name}" MATCHES "${pattern}")
        # Per rule: how many symbols, and the shortest one, which names the call best.
        math(EXPR count_${index} "${count_${index}} + 0 + 1")
        string(LENGTH "${name}" length)
        if(NOT DEFINED example_${index} OR length LESS example_length_${index})
          set(example_${index} "${name}")
          set(example_length_${index} ${length})
        endif()
        list(APPEND found ${index})
        break()
      endif()
      math(EXPR index "${index} + 1")
    endforeach()
  endforeach()
endforeach()
if(found)
  list(REMOVE_DUPLICATES found)
  set(report)
  foreach(index IN LISTS found)
    list(GET rules ${index} rule)
    string(FIND "${rule}" "|" bar REVERSE)
    math(EXPR after "${bar} + 1")
    string(SUBSTRING "${rule}" ${after} -1 why)
    string(APPEND report "\n  ${why}: ${example_${index}} (${count_${index}} symbols)")
    message("[course] integrity: uses ${why}: ${example_${index}}")
  endforeach()
  if(EXPECT_DENIED)
    message(STATUS "integrity: rejected, as expected: ${WHAT} use what they may not:${report}")
    return()
  endif()
  message(FATAL_ERROR "integrity: ${WHAT} use what they may not (the lesson README says what is "
                      "allowed); the lesson's exercise and stretch points are withheld:${report}")
endif()
if(EXPECT_DENIED)
  message(FATAL_ERROR "integrity: not rejected: ${WHAT} use nothing the check denies")
endif()
message(STATUS "integrity: ${WHAT} use no library, harness reference or file access they may not")
