# cmake -DSLIDES_DIR=<slides/> -DSRC=<expanded decks> -DOUT=<output dir> -DNPM=<npm> -DNPX=<npx>
#       [-DCHROME=<chromium>] -P render.cmake
#
# Renders every expanded deck in SRC to HTML in OUT with Marp, and to PDF too when CHROME is
# given. Marp comes from slides/node_modules; when it is not installed yet this runs `npm ci`
# there first (which needs the npm registry).
cmake_minimum_required(VERSION 3.25)

set(marp "${SLIDES_DIR}/node_modules/.bin/marp")
if(NOT EXISTS "${marp}")
  message(STATUS "slides: Marp is not installed in ${SLIDES_DIR}/node_modules; running npm ci")
  execute_process(COMMAND "${NPM}" ci --no-audit --no-fund
                  WORKING_DIRECTORY "${SLIDES_DIR}" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0 OR NOT EXISTS "${marp}")
    message(FATAL_ERROR "slides: `npm ci` in ${SLIDES_DIR} failed (${rc}). Run it by hand where "
                        "the npm registry can be reached:\n  cd ${SLIDES_DIR} && npm ci")
  endif()
endif()

file(GLOB decks "${SRC}/*.md")
if(NOT decks)
  message(FATAL_ERROR "slides: no expanded deck in ${SRC}")
endif()
file(MAKE_DIRECTORY "${OUT}")
set(marp_args --no-stdin --theme-set "${SLIDES_DIR}/theme" --input-dir "${SRC}" --output "${OUT}")

# npx finds the Marp of slides/node_modules when run from slides/ (--no-install: never fetch).
execute_process(COMMAND "${NPX}" --no-install marp ${marp_args} --html
                WORKING_DIRECTORY "${SLIDES_DIR}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "slides: Marp failed to render HTML (${rc})")
endif()

if(CHROME)
  execute_process(COMMAND "${CMAKE_COMMAND}" -E env "CHROME_PATH=${CHROME}"
                          "${NPX}" --no-install marp ${marp_args} --html --pdf --allow-local-files
                          --browser-path "${CHROME}"
                  WORKING_DIRECTORY "${SLIDES_DIR}" RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "slides: Marp failed to render PDF with ${CHROME} (${rc})")
  endif()
endif()
