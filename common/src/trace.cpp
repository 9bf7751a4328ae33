// CUPTI's activity API: the driver writes a record for every kernel, copy and memset into
// buffers we hand it, timestamped by the GPU. Only lesson 06's demo links this library.
#include "course/trace.hpp"

#include <algorithm>
#include <cstdlib>
#include <mutex>

#if COURSE_HAVE_CUPTI
#include <cuda_runtime.h>
#include <cupti.h>
#include <cxxabi.h>

#include <memory>

#include "course/error.hpp"
#endif

namespace course {

#if COURSE_HAVE_CUPTI

namespace {

std::mutex records_mutex;
std::vector<TraceSpan> records;  // start/end in ns until trace_gpu() rebases them

constexpr std::size_t kBufferBytes = 8u << 20;

std::string base_name(const char* mangled) {
  if (mangled == nullptr) return "?";
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> text(
      abi::__cxa_demangle(mangled, nullptr, nullptr, &status), std::free);
  std::string name = status == 0 && text ? text.get() : mangled;
  // "course::lesson06::(anonymous namespace)::blur_kernel<8>(const float*, float*)": drop the
  // trailing parameter list and template arguments (balanced, from the end), then the scopes.
  auto drop_trailing = [&name](char open, char close) {
    if (name.empty() || name.back() != close) return;
    int depth = 0;
    for (std::size_t i = name.size(); i-- > 0;) {
      depth += name[i] == close ? 1 : name[i] == open ? -1 : 0;
      if (depth == 0) {
        name.resize(i);
        return;
      }
    }
  };
  drop_trailing('(', ')');
  drop_trailing('<', '>');
  if (const auto colon = name.rfind("::"); colon != std::string::npos) name = name.substr(colon + 2);
  return name;
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer != nullptr ? kBufferBytes : 0;
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* record = nullptr;
  std::lock_guard lock(records_mutex);
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
    TraceSpan span;
    if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ||
        record->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
      const auto* kernel = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
      span = {kernel->streamId, "kernel", base_name(kernel->name),
              static_cast<double>(kernel->start), static_cast<double>(kernel->end), 0};
    } else if (record->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
      const auto* copy = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
      const char* kind = copy->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_HTOD   ? "H2D"
                         : copy->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_DTOH ? "D2H"
                                                                             : "D2D";
      span = {copy->streamId, kind, "", static_cast<double>(copy->start),
              static_cast<double>(copy->end), static_cast<double>(copy->bytes)};
    } else if (record->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
      const auto* set = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
      span = {set->streamId, "memset", "", static_cast<double>(set->start),
              static_cast<double>(set->end), static_cast<double>(set->bytes)};
    } else {
      continue;
    }
    records.push_back(std::move(span));
  }
  std::free(buffer);
}

constexpr CUpti_ActivityKind kKinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
                                         CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET};

}  // namespace

std::optional<Trace> trace_gpu(const std::function<void()>& work, std::string& why_not) {
  auto failed = [&](CUptiResult result, const char* what) {
    const char* text = nullptr;
    cuptiGetResultString(result, &text);
    why_not = std::string("CUPTI refused to trace (") + what + ": " + (text ? text : "?") + ")";
    return std::nullopt;
  };
  CUDA_CHECK(cudaDeviceSynchronize());  // work from before is not part of the trace
  static const CUptiResult registered =
      cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
  if (registered != CUPTI_SUCCESS) return failed(registered, "cuptiActivityRegisterCallbacks");
  for (CUpti_ActivityKind kind : kKinds)
    if (const CUptiResult result = cuptiActivityEnable(kind); result != CUPTI_SUCCESS)
      return failed(result, "cuptiActivityEnable");
  {
    std::lock_guard lock(records_mutex);
    records.clear();
  }
  work();
  CUDA_CHECK(cudaDeviceSynchronize());
  for (CUpti_ActivityKind kind : kKinds) cuptiActivityDisable(kind);
  if (const CUptiResult result = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
      result != CUPTI_SUCCESS)
    return failed(result, "cuptiActivityFlushAll");
  Trace trace;
  {
    std::lock_guard lock(records_mutex);
    trace.spans = std::move(records);
    records.clear();
  }
  std::sort(trace.spans.begin(), trace.spans.end(),
            [](const TraceSpan& a, const TraceSpan& b) { return a.start_ms < b.start_ms; });
  if (trace.spans.empty()) {
    why_not = "CUPTI recorded no GPU work";
    return std::nullopt;
  }
  const double origin = trace.spans.front().start_ms;
  for (auto& span : trace.spans) {  // ns from the GPU's clock -> ms from the first start
    span.start_ms = (span.start_ms - origin) / 1e6;
    span.end_ms = (span.end_ms - origin) / 1e6;
  }
  return trace;
}

#else

std::optional<Trace> trace_gpu(const std::function<void()>&, std::string& why_not) {
  why_not = "this build has no CUPTI (the CUDA toolkit's profiling interface was not found when "
            "the course was configured)";
  return std::nullopt;
}

#endif

}  // namespace course
