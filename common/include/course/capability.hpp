/// @file
/// @brief Whether this GPU, and this build's code for it, can run a rung that needs newer
/// instructions: the checks behind a lesson's unsupported() for its tensor-core and Hopper rungs.
///
/// Two things must hold. The GPU must have the instructions (its compute capability), and the
/// build must have compiled them: code compiled for an older architecture has them compiled out
/// (the course's 75-virtual build has no mma.sync, even on an H100, which runs that build's PTX
/// of 7.5). A rung that either lacks is never launched: the lesson throws course::Unsupported with
/// the reason, and the tests report the rung SKIPPED.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace course {

/// The compute capability, as 10 major + minor, of the code that the driver runs on this GPU for
/// this build: the virtual architecture it was compiled from, the `__CUDA_ARCH__` / 10 its bodies
/// saw. 90 where the build has code for 9.0; 75 where the driver compiled PTX of 7.5 when it
/// loaded it. Read from a kernel of the harness, which is compiled for the build's
/// CMAKE_CUDA_ARCHITECTURES as every lesson file is (the SM90A files aside: see needs_sm90a()).
/// Cached after the first call.
/// @throws course::CudaError when there is no usable GPU.
[[nodiscard]] int built_for();

/// "9.0" for @p capability 90 (10 major + minor).
[[nodiscard]] std::string capability_text(int capability);

/// Why code that needs compute capability @p needed (10 major + minor) cannot run here, or
/// nothing. Either the GPU is older: "@p what need compute capability 8.0; NVIDIA T4 is compute
/// capability 7.5". Or this build's code is (built_for()), and has the instructions compiled
/// out: "this build's GPU code is for compute capability 7.5, which has no @p lacks; configure
/// with -DCMAKE_CUDA_ARCHITECTURES=90". @p what names the instructions ("the BF16 tensor-core
/// instructions (mma.sync, ldmatrix)"), @p lacks what older code is without.
/// @throws course::CudaError when there is no usable GPU.
[[nodiscard]] std::optional<std::string> needs_capability(int needed, std::string_view what,
                                                          std::string_view lacks);

/// Why the rung @p rung, whose file @p file is compiled for sm_90a alone (cmake/CourseLesson.cmake,
/// SM90A), cannot run here, or nothing. Code for sm_90a, Hopper's own instructions (wgmma,
/// setmaxnreg), runs on compute capability 9.0 alone, and exists only where the build compiled
/// the file: @p compiled says whether it did (the lesson's COURSE_HAVE_SM90A_RUNG), and
/// @p architectures is the build's CMAKE_CUDA_ARCHITECTURES (COURSE_CUDA_ARCHITECTURES), which
/// the message names.
/// @throws course::CudaError when there is no usable GPU.
[[nodiscard]] std::optional<std::string> needs_sm90a(std::string_view rung, std::string_view file,
                                                     bool compiled, std::string_view architectures);

}  // namespace course
