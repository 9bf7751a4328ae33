#include "course/image.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STBI_WRITE_NO_STDIO_FILENAMES_UTF8
#include <stb_image_write.h>

namespace course {

void write_png_rgb(const std::string& path, std::span<const std::uint8_t> rgb, int width,
                   int height) {
  if (width <= 0 || height <= 0 || rgb.size() != std::size_t(width) * height * 3)
    throw std::invalid_argument("write_png_rgb: need width, height >= 1 and 3 bytes per pixel");
  if (!stbi_write_png(path.c_str(), width, height, 3, rgb.data(), width * 3))
    throw std::runtime_error("write_png: cannot write " + path);
}

void write_png(const std::string& path, std::span<const float> values, int width, int height,
               float low, float high) {
  if (width <= 0 || height <= 0 || values.size() != std::size_t(width) * height)
    throw std::invalid_argument("write_png: need width, height >= 1 and width * height values");
  if (!(low < high)) throw std::invalid_argument("write_png: need low < high");
  std::vector<std::uint8_t> rgb(values.size() * 3);
  for (std::size_t i = 0; i < values.size(); ++i) {
    std::uint8_t* pixel = &rgb[3 * i];
    if (std::isnan(values[i])) {
      pixel[0] = pixel[1] = pixel[2] = 0;
      continue;
    }
    // Diverging scale: blue (low) through white (middle) to red (high).
    const float t = std::clamp((values[i] - low) / (high - low), 0.0f, 1.0f);
    const float cold = std::min(1.0f, 2.0f * t), hot = std::min(1.0f, 2.0f * (1.0f - t));
    pixel[0] = static_cast<std::uint8_t>(std::lround(255.0f * cold));
    pixel[1] = static_cast<std::uint8_t>(std::lround(255.0f * std::min(cold, hot)));
    pixel[2] = static_cast<std::uint8_t>(std::lround(255.0f * hot));
  }
  write_png_rgb(path, rgb, width, height);
}

}  // namespace course
