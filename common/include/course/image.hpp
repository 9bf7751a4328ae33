/// @file
/// @brief Pictures a student can look at: a 2D float field written as a colour PNG.
#pragma once
#include <cstdint>
#include <span>
#include <string>

namespace course {

/// Writes the row-major @p width × @p height field @p values as a PNG at @p path, mapping
/// [@p low, @p high] onto a blue–white–red colour scale (values outside are clamped; NaN is black).
/// @throws std::invalid_argument if the shape does not match @p values or @p low >= @p high;
///         std::runtime_error if the file cannot be written.
void write_png(const std::string& path, std::span<const float> values, int width, int height,
               float low, float high);

/// Writes 8-bit RGB pixels (3 bytes per pixel, row-major, top row first) as a PNG at @p path.
/// @throws std::invalid_argument if the shape does not match; std::runtime_error if the file
///         cannot be written.
void write_png_rgb(const std::string& path, std::span<const std::uint8_t> rgb, int width,
                   int height);

}  // namespace course
