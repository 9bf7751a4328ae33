# The committed measured results: slides/results/<gpu>/, one folder per GPU model (h100-80gb-hbm3, h200),
# each set made by the target `results` from one commit on one GPU, with its run.json (GPU,
# driver, CUDA version, date, commit). COURSE_RESULTS_GPU picks the set the decks and the docs
# show; slides/deck_tools.py names the same default for the Python tools and tests.
set(COURSE_RESULTS_GPU "h100-80gb-hbm3" CACHE STRING
    "The committed results the decks and the docs show (slides/results/<gpu>)")
set(COURSE_RESULTS_ROOT "${PROJECT_SOURCE_DIR}/slides/results")
set(COURSE_RESULTS_DIR "${COURSE_RESULTS_ROOT}/${COURSE_RESULTS_GPU}")
