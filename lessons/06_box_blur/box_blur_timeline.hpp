/// @file
/// @brief Lesson 06's --timeline: one trip of the pinned rung and one of the streams rung, each
/// traced as the GPU ran it (course::trace_gpu(): every copy and kernel with its stream, from
/// CUPTI).
#pragma once

#include <cstddef>
#include <vector>

#include "box_blur.cuh"
#include "course/demo.hpp"

namespace course::lesson06 {

/// The tables of --timeline: for the pinned and the streams rung (those --variant names), one
/// trip of @p n floats made as @p trip says, traced, as a table of one row with its timeline
/// attached, and notes that read the trace.
[[nodiscard]] std::vector<LadderReport> timelines(const DemoOptions& options, std::size_t n,
                                                  const PipelineOptions& trip);

}  // namespace course::lesson06
