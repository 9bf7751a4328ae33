/// @file
/// @brief How a lesson's correctness checks lay out their buffers: guards of poison or trap values
/// around the data, pointers placed off a 16-byte boundary (and the words that say so in a
/// message), and an input changed in place between two calls on the same buffers.
///
/// Each helper is the one way the lesson tests do that thing; what a lesson places where, how
/// large its guards are and what its messages say stay in the lesson's test.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "course/buffer.hpp"
#include "course/error.hpp"
#include "course/gpu.hpp"

namespace course {

/// @p elements of guard, or none under compute-sanitizer (sanitize_mode()). A guard is a stretch
/// of poison or trap values beside a buffer's data, where a kernel's stray write or read shows.
/// Under the sanitizers each allocation ends where its data ends instead, so that memcheck sees
/// an access past the end, which a guard inside the allocation would hide from it.
[[nodiscard]] inline std::size_t guard_elements(std::size_t elements) {
  return sanitize_mode() ? 0 : elements;
}

/// @p values with @p front copies of @p before ahead of them and @p back copies of @p after behind
/// them: an input framed by trap values, chosen so that a kernel reading one of them, before its
/// start or past its end, changes its result.
template <class T>
[[nodiscard]] std::vector<T> framed_by(std::span<const T> values, std::size_t front, T before,
                                       std::size_t back, T after) {
  std::vector<T> framed(front + values.size() + back, after);
  std::fill_n(framed.begin(), front, before);
  std::copy(values.begin(), values.end(), framed.begin() + static_cast<std::ptrdiff_t>(front));
  return framed;
}

/// A device buffer holding @p values from element @p front on, with @p back elements after them;
/// every element around the values is 0xFF bytes (a NaN for floats), so that a kernel that reads
/// before or past its input computes with NaN. Never empty, so that even an empty input has a
/// pointer that is not null. The GPU's shared memory is left as it is: the output's poison()
/// before the launch poisons it.
template <class T>
[[nodiscard]] DeviceBuffer<T> upload_framed(std::span<const T> values, std::size_t front,
                                            std::size_t back) {
  DeviceBuffer<T> buffer(std::max<std::size_t>(1, front + values.size() + back));
  buffer.fill_bytes(0xFF);
  if (!values.empty())
    CUDA_CHECK(cudaMemcpy(buffer.data() + front, values.data(), values.size_bytes(),
                          cudaMemcpyHostToDevice));
  return buffer;
}

/// Whether every byte of @p values still holds the 0xFF poison that DeviceBuffer::poison() (or
/// upload_framed()) wrote: false when a kernel wrote there. For the guards around an output.
template <class T>
[[nodiscard]] bool still_poisoned(std::span<const T> values) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(values.data());
  return std::all_of(bytes, bytes + values.size_bytes(), [](unsigned char b) { return b == 0xFF; });
}

/// The words for a check's misaligned pointers, for its messages: "" when every offset in
/// @p buffers (name, elements past a 16-byte boundary) is 0, else ", " and the names of those
/// that are not, joined by @p separator, then " " and @p how (e.g. ", A, C one float past a
/// 16-byte boundary"). When every one is misaligned and @p all is given, @p all stands for the
/// names (e.g. ", both buffers offset by one float").
[[nodiscard]] inline std::string misaligned_text(
    std::initializer_list<std::pair<std::string_view, std::size_t>> buffers, std::string_view how,
    std::string_view separator = ", ", std::string_view all = {}) {
  std::string names;
  std::size_t count = 0;
  for (const auto& [name, offset] : buffers)
    if (offset != 0) {
      names.append(names.empty() ? "" : separator).append(name);
      ++count;
    }
  if (count == buffers.size() && !all.empty())
    names = all;
  return names.empty() ? "" : ", " + names + " " + std::string(how);
}

/// The words for one buffer placed @p offset elements into its allocation, for a message: ""
/// when @p offset is 0, else ", ", @p name, " " and @p how with its "{}" replaced by @p offset
/// (e.g. offset_text("x", 1, "{} float(s) past 16-byte alignment") is ", x 1 float(s) past 16-byte
/// alignment").
[[nodiscard]] inline std::string offset_text(std::string_view name, std::size_t offset,
                                             std::string_view how) {
  if (offset == 0)
    return "";
  std::string words(how);
  if (const auto at = words.find("{}"); at != std::string::npos)
    words.replace(at, 2, std::to_string(offset));
  return ", " + std::string(name) + " " + words;
}

/// The device buffers of a check whose input and output may each start off their alignment: the
/// input @p in_offset elements into an allocation that ends where it ends (so that memcheck sees
/// a read past it), the output @p out_offset elements after a guard of @p guard elements and
/// followed by another. Poisoned before each call, the guards show a write before or past the
/// output.
template <class T>
struct GuardedBuffers {
  /// Allocates the input and the guarded output for @p count elements.
  GuardedBuffers(std::size_t count, std::size_t in_offset, std::size_t out_offset,
                 std::size_t guard)
      : guard(guard),
        in(count + in_offset),
        out(guard + out_offset + count + guard),
        out_at(guard + out_offset) {}
  std::size_t guard;    ///< elements of guard on each side of the output
  DeviceBuffer<T> in;   ///< the input's allocation
  DeviceBuffer<T> out;  ///< the output's allocation, its guards included
  std::size_t out_at;   ///< where the output starts in `out`
};

/// Writes @p value into element @p index of both @p host (the values the check compares with)
/// and @p device (the device copy of @p host, which the launcher reads), leaving every other
/// element where it is. Two calls on the same buffers with one element changed in between catch
/// a launcher that replays a result kept from an earlier call, keyed on its pointers, its sizes
/// or a few elements read back: the second result must follow the change.
template <class T>
void change_element(std::vector<T>& host, T* device, std::size_t index, T value) {
  host[index] = value;
  CUDA_CHECK(cudaMemcpy(device + index, &host[index], sizeof(T), cudaMemcpyHostToDevice));
}

/// Element @p i of the elements spread over the middle of an input of @p n elements that a check
/// changes between two calls (change_element()): n/4 + i n/16, none near the start or the end,
/// where a launcher that fingerprints its input by a few elements would look.
[[nodiscard]] inline std::size_t spread_element(std::size_t n, std::size_t i) {
  return n / 4 + i * (n / 16);
}

}  // namespace course
