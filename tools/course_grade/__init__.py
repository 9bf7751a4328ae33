"""The course grader, tools/grade.py, one concern a module:

tables      the lessons and their README grading tables
buildtree   the build directory to grade and the lessons asked for
build       building the lessons first, stale test programs, the build log's errors
process     running a tool with its output to a log and a status line
ctest       running ctest and keeping its JUnit file
results     CTest's JUnit file and log, read into classified results
reasons     why a test failed or was skipped, in the words of its output
scoring     rows and points: README tests against results, the integrity check, totals
render      the scoreboard as text
gradescope  Gradescope's results.json
model       the vocabulary the modules share: statuses, file names, data
cli         the command line and one run, from the checks to the outputs

tools/ must be on sys.path (tools/grade.py puts it there): cli imports tools/safe_output.py.
"""
