// The measuring procedure (course/bench.hpp): the GPU side. Fresh inputs and a trusted reference
// before every launch, outputs poisoned or left stale, every timed output compared on the GPU,
// and a synchronized batch whose host time must agree with its events.
#include <cuda_bf16.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <sstream>
#include <vector>

#include "course/bench.hpp"
#include "course/buffer.hpp"
#include "course/data.hpp"
#include "course/error.hpp"
#include "course/gpu.hpp"
#include "course/hash.hpp"
#include "course/stream.hpp"

namespace course {

namespace {

__global__ void uniform_floats_kernel(float* out, std::size_t n, std::uint64_t seed, float low,
                                      float high) {
  const float span = __fsub_rn(high, low);
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const float unit = static_cast<float>(hash64(seed, i) >> 40) * 0x1.0p-24f;
    out[i] = __fadd_rn(low, __fmul_rn(span, unit));  // no FMA: the CPU rounds twice too
  }
}

__global__ void uniform_ints_kernel(std::int32_t* out, std::size_t n, std::uint64_t seed,
                                    std::int32_t low, std::uint64_t span) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x)
    out[i] = static_cast<std::int32_t>(low + static_cast<std::int64_t>(hash64(seed, i) % span));
}

__global__ void uniform_keys_kernel(std::uint32_t* out, std::size_t n, std::uint64_t seed) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x)
    out[i] = static_cast<std::uint32_t>(hash64(seed, i));
}

__global__ void round_to_bf16_kernel(float* values, __nv_bfloat16* out, std::size_t n,
                                     bool from_int_bits) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const float raw = values[i];
    const float x = from_int_bits ? static_cast<float>(__float_as_int(raw)) : raw;
    const __nv_bfloat16 rounded = __float2bfloat16(x);  // to nearest, ties to even
    out[i] = rounded;
    values[i] = __bfloat162float(rounded);
  }
}

// counters[0]: elements that differ; counters[1]: the first such element's index. Bytes and
// 32-bit words alike: an exact comparison of whatever the elements hold.
template <class Element>
__global__ void compare_exact_kernel(const Element* got, const Element* expected, std::size_t n,
                                     unsigned long long* counters) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    if (got[i] != expected[i]) {
      atomicAdd(&counters[0], 1ULL);
      atomicMin(&counters[1], static_cast<unsigned long long>(i));
    }
  }
}

__global__ void compare_floats_kernel(const float* got, const float* expected, std::size_t n,
                                      double atol, double rtol, unsigned long long* counters) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    const double g = got[i];
    const double e = expected[i];
    bool ok;
    if (isnan(e) || isinf(e)) {
      ok = __float_as_uint(got[i]) == __float_as_uint(expected[i]);
    } else {
      ok = !isnan(g) && fabs(g - e) <= atol + rtol * fabs(e);  // NaN compares false: fails
    }
    if (!ok) {
      atomicAdd(&counters[0], 1ULL);
      atomicMin(&counters[1], static_cast<unsigned long long>(i));
    }
  }
}

__global__ void poison_shared_kernel(std::size_t words) {
  extern __shared__ std::uint32_t shared[];
  for (std::size_t i = threadIdx.x; i < words; i += blockDim.x)
    shared[i] = 0xFFFFFFFFu;
}

unsigned grid_for(std::size_t n) {
  const std::size_t blocks = (n + 255) / 256;
  const std::size_t most = static_cast<std::size_t>(gpu_info().sm_count) * 8;
  return static_cast<unsigned>(std::max<std::size_t>(1, std::min(blocks, most)));
}

// True for device (or managed) memory; false for host memory of any kind, which is poisoned and
// compared on the CPU.
bool on_device(const void* pointer) {
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, pointer) != cudaSuccess) {
    (void)cudaGetLastError();  // pageable memory on older runtimes: host
    return false;
  }
  return attributes.type == cudaMemoryTypeDevice || attributes.type == cudaMemoryTypeManaged;
}

// The CPU's comparison, for outputs in host memory (a trip that ends in host memory).
std::string compare_on_host(const TimedOutput& output, cudaStream_t stream) {
  CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<unsigned char> got(output.bytes), expected(output.bytes);
  CUDA_CHECK(cudaMemcpy(got.data(), output.data, output.bytes, cudaMemcpyDefault));
  CUDA_CHECK(cudaMemcpy(expected.data(), output.expected, output.bytes, cudaMemcpyDefault));
  if (std::memcmp(got.data(), expected.data(), output.bytes) == 0)
    return {};  // the same bits pass either check, and a 64 MB trip is compared in milliseconds
  const bool float32 = output.check.kind == OutputCheck::Kind::Float32;
  const std::size_t size = float32 ? sizeof(float) : 1;
  const std::size_t elements = output.bytes / size;
  std::size_t wrong = 0, first = 0;
  float first_got = 0, first_expected = 0;
  for (std::size_t i = 0; i < elements; ++i) {
    bool ok;
    if (float32) {
      float g, e;
      std::memcpy(&g, &got[i * 4], 4);
      std::memcpy(&e, &expected[i * 4], 4);
      ok = std::isfinite(e)
               ? !std::isnan(g) && std::fabs(double{g} - e) <=
                                       output.check.tolerance.atol +
                                           output.check.tolerance.rtol * std::fabs(double{e})
               : std::memcmp(&g, &e, 4) == 0;
      if (!ok && wrong == 0)
        first_got = g, first_expected = e;
    } else {
      ok = got[i] == expected[i];
    }
    if (!ok && wrong++ == 0)
      first = i;
  }
  if (wrong == 0)
    return {};
  std::ostringstream out;
  out << wrong << " of " << elements << (float32 ? " elements" : " bytes") << " of "
      << (output.name.empty() ? "the output" : output.name)
      << " differ from the reference; first at index " << first;
  if (float32)
    out << ": expected " << first_expected << ", got " << first_got;
  return out.str();
}

// Compares one output with its expected value on @p stream; returns what is wrong, or "".
std::string compare_output(const TimedOutput& output, DeviceBuffer<unsigned long long>& counters,
                           cudaStream_t stream) {
  if (output.bytes == 0)
    return {};
  if (!on_device(output.data) || !on_device(output.expected))
    return compare_on_host(output, stream);
  const unsigned long long reset[2] = {0, ~0ULL};
  CUDA_CHECK(cudaMemcpyAsync(counters.data(), reset, sizeof reset, cudaMemcpyHostToDevice, stream));
  std::size_t elements = output.bytes;
  std::size_t element_bytes = 1;
  const bool float32 = output.check.kind == OutputCheck::Kind::Float32;
  if (float32) {
    elements = output.bytes / sizeof(float);
    element_bytes = sizeof(float);
    compare_floats_kernel<<<grid_for(elements), 256, 0, stream>>>(
        static_cast<const float*>(output.data), static_cast<const float*>(output.expected),
        elements, output.check.tolerance.atol, output.check.tolerance.rtol, counters.data());
  } else if (output.bytes % 4 == 0 && reinterpret_cast<std::uintptr_t>(output.data) % 4 == 0 &&
             reinterpret_cast<std::uintptr_t>(output.expected) % 4 == 0) {
    elements = output.bytes / 4;
    element_bytes = 4;
    compare_exact_kernel<std::uint32_t><<<grid_for(elements), 256, 0, stream>>>(
        static_cast<const std::uint32_t*>(output.data),
        static_cast<const std::uint32_t*>(output.expected), elements, counters.data());
  } else {
    compare_exact_kernel<unsigned char><<<grid_for(elements), 256, 0, stream>>>(
        static_cast<const unsigned char*>(output.data),
        static_cast<const unsigned char*>(output.expected), elements, counters.data());
  }
  CUDA_CHECK_LAST();
  unsigned long long found[2] = {0, 0};
  CUDA_CHECK(cudaMemcpyAsync(found, counters.data(), sizeof found, cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  if (found[0] == 0)
    return {};

  std::ostringstream out;
  out << found[0] << " of " << elements
      << (float32              ? " elements"
          : element_bytes == 4 ? " words"
                               : " bytes")
      << " of " << (output.name.empty() ? "the output" : output.name)
      << " differ from the reference; first at index " << found[1];
  if (float32 || element_bytes == 4) {
    std::uint32_t bits[2] = {0, 0};
    const auto offset = static_cast<std::size_t>(found[1]) * 4;
    CUDA_CHECK(cudaMemcpyAsync(&bits[0],
                               static_cast<const unsigned char*>(output.expected) + offset, 4,
                               cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaMemcpyAsync(&bits[1], static_cast<const unsigned char*>(output.data) + offset, 4,
                               cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    float values[2];
    std::memcpy(values, bits, sizeof values);
    if (float32) {
      out << ": expected " << values[0] << ", got " << values[1];
    } else {
      out << ": expected 0x" << std::hex << bits[0] << ", got 0x" << bits[1] << std::dec;
    }
  }
  return out.str();
}

}  // namespace

void fill_uniform_floats(float* d_out, std::size_t count, std::uint64_t seed, float low, float high,
                         cudaStream_t stream) {
  if (count == 0)
    return;
  uniform_floats_kernel<<<grid_for(count), 256, 0, stream>>>(d_out, count, seed, low, high);
  CUDA_CHECK_LAST();
}

void fill_uniform_ints(std::int32_t* d_out, std::size_t count, std::uint64_t seed, std::int32_t low,
                       std::int32_t high, cudaStream_t stream) {
  if (count == 0)
    return;
  const std::uint64_t span = static_cast<std::uint64_t>(std::int64_t{high} - low) + 1;
  uniform_ints_kernel<<<grid_for(count), 256, 0, stream>>>(d_out, count, seed, low, span);
  CUDA_CHECK_LAST();
}

void fill_uniform_keys(std::uint32_t* d_out, std::size_t count, std::uint64_t seed,
                       cudaStream_t stream) {
  if (count == 0)
    return;
  uniform_keys_kernel<<<grid_for(count), 256, 0, stream>>>(d_out, count, seed);
  CUDA_CHECK_LAST();
}

void round_to_bf16(float* d_values, __nv_bfloat16* d_bf16, std::size_t count, cudaStream_t stream,
                   bool from_int_bits) {
  if (count == 0)
    return;
  round_to_bf16_kernel<<<grid_for(count), 256, 0, stream>>>(d_values, d_bf16, count, from_int_bits);
  CUDA_CHECK_LAST();
}

void poison_shared_memory(cudaStream_t stream) {
  // Under compute-sanitizer, memcheck and racecheck look for the bugs this poison would show, and
  // racecheck would track each of its stores: a hundred-fold slower run for nothing.
  if (sanitize_mode())
    return;
  static const std::size_t bytes = [] {
    const std::size_t most = gpu_info().shared_per_block_optin;
    CUDA_CHECK(cudaFuncSetAttribute(
        poison_shared_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(most)));
    return most;
  }();
  // One block per multiprocessor at the largest shared allocation a block may have: each block
  // covers (nearly) all of its multiprocessor's shared memory. Twice, so that a multiprocessor
  // that ran two of the blocks still had every byte written.
  poison_shared_kernel<<<gpu_info().sm_count * 2, 1024, bytes, stream>>>(bytes / 4);
  CUDA_CHECK_LAST();
}

Measurement measure(const Trial& trial, const MeasureOptions& options) {
  require(static_cast<bool>(trial.load) && static_cast<bool>(trial.reference) &&
              static_cast<bool>(trial.launch),
          "course::measure: a Trial needs load, reference and launch");
  const Stream owned;  // the harness's stream: the launcher gets this one, and the events are on it
  const cudaStream_t stream = owned.get();
  DeviceBuffer<unsigned long long> counters(2);
  Measurement result;
  int launch_index = 0;

  std::vector<bool> device_output;
  for (const auto& output : trial.outputs)
    device_output.push_back(on_device(output.data));
  // Device outputs are poisoned on the stream; host outputs by the CPU once the stream is idle.
  auto poison = [&] {
    for (std::size_t i = 0; i < trial.outputs.size(); ++i) {
      const auto& output = trial.outputs[i];
      if (output.bytes == 0)
        continue;
      if (device_output[i]) {
        CUDA_CHECK(cudaMemsetAsync(output.data, 0xFF, output.bytes, stream));
      } else {
        CUDA_CHECK(cudaStreamSynchronize(stream));
        std::memset(output.data, 0xFF, output.bytes);
      }
    }
  };
  // Every call of measure() in a process starts from a seed of its own: a measurement taken again
  // (a speed row's second attempt, a baseline after its rung) meets inputs no earlier launch saw,
  // so nothing a launcher kept from an earlier call can answer it.
  static std::atomic<std::uint64_t> calls{0};
  const std::uint64_t call = calls++;
  const std::uint64_t first_seed =
      call == 0 ? options.seed : derive_seed(options.seed, 0x6d656173757265ULL + call);
  // A copy of each input as load() wrote it, to compare with after every launch.
  std::vector<DeviceBuffer<unsigned char>> snapshots;
  for (const auto& input : trial.inputs)
    snapshots.emplace_back(input.bytes);
  auto fresh = [&](bool with_reference) {
    const std::uint64_t seed = bench::launch_seed(first_seed, launch_index++);
    trial.load(seed, stream);
    for (std::size_t i = 0; i < trial.inputs.size(); ++i) {
      if (trial.inputs[i].bytes != 0)
        CUDA_CHECK(cudaMemcpyAsync(snapshots[i].data(), trial.inputs[i].data, trial.inputs[i].bytes,
                                   cudaMemcpyDefault, stream));
    }
    if (with_reference)
      trial.reference(stream);
    return seed;
  };
  // After a launch: every output compared with the reference at once, on the harness's stream,
  // so that work the launcher left running elsewhere is caught unfinished; then the inputs, which
  // must be as load() left them. Returns what is wrong, or "".
  auto verify = [&](const std::string& which, std::uint64_t seed) {
    std::ostringstream out;
    out << trial.rung << ": " << which << " (inputs of seed " << seed << ")";
    for (const auto& output : trial.outputs) {
      if (const std::string wrong = compare_output(output, counters, stream); !wrong.empty()) {
        out << ": " << wrong;
        return out.str();
      }
    }
    for (std::size_t i = 0; i < trial.inputs.size(); ++i) {
      const auto& input = trial.inputs[i];
      const TimedOutput as_loaded{input.name,
                                  const_cast<void*>(input.data),
                                  input.bytes,
                                  snapshots[i].data(),
                                  {OutputCheck::Kind::Bytes, {}}};
      if (const std::string wrong = compare_output(as_loaded, counters, stream); !wrong.empty()) {
        out << " wrote its input " << input.name
            << ", which the interface declares const: " << wrong;
        return out.str();
      }
    }
    return std::string{};
  };

  // Whatever ran before (a launcher's stray work included) is finished before the first launch.
  CUDA_CHECK(cudaDeviceSynchronize());
  for (int i = 0; i < options.warmup; ++i) {
    const std::uint64_t seed = fresh(true);
    poison();
    trial.launch(stream);
    result.failure = verify("untimed launch " + std::to_string(i + 1), seed);
    if (!result.sound())
      return result;
  }

  const int repeats = std::max(options.repeats, 1);
  const auto schedule = bench::prepare_schedule(options.seed, repeats);
  std::vector<double> ms;
  ms.reserve(static_cast<std::size_t>(repeats));
  EventTimer timer;
  for (int r = 0; r < repeats; ++r) {
    const std::uint64_t seed = fresh(true);
    if (schedule[r] == bench::Prepare::Poison)
      poison();  // else: the last result, now stale
    // Inputs, reference and poison are done before the flush; the flush is then the only work in
    // flight while the host records the start event and runs the launcher. The GPU reaches the
    // start event when the flush ends, and the launch is queued behind it by then: the events
    // time the launch, not the ~5 us the host takes to submit it, exactly as time_on_gpu() times
    // a ceiling. The host work a launcher could hide this way is bounded by the flush (~30 us).
    CUDA_CHECK(cudaStreamSynchronize(stream));
    if (options.flush_l2)
      flush_l2(stream);
    timer.start(stream);
    trial.launch(stream);
    ms.push_back(timer.stop(stream));
    result.failure =
        verify("timed launch " + std::to_string(r + 1) + " of " + std::to_string(repeats) +
                   (schedule[r] == bench::Prepare::Poison ? ", output poisoned before it"
                                                          : ", output left stale before it"),
               seed);
    if (!result.sound())
      return result;
  }
  result.timing = bench::summarize(ms);

  // The cross-check: a batch of launches on fresh inputs, timed by the events on the harness's
  // stream and by the host clock up to a device-wide synchronization. Scheduling can delay the
  // host, so a disagreement is confirmed twice more before it fails the rung.
  result.batch_launches = bench::batch_launches(result.timing.median_ms);
  std::optional<std::string> disagreement;
  for (int attempt = 0; attempt < 3; ++attempt) {
    fresh(false);
    CUDA_CHECK(cudaDeviceSynchronize());
    const auto start = std::chrono::steady_clock::now();
    timer.start(stream);
    for (int i = 0; i < result.batch_launches; ++i)
      trial.launch(stream);
    timer.record_stop(stream);
    // Once the harness's stream is done, nothing may still run: a launcher whose host calls
    // block (a full launch queue) drags the events along with the host clock, but the work it
    // put on another stream is still pending here.
    CUDA_CHECK(cudaStreamSynchronize(stream));
    const auto stream_done = std::chrono::steady_clock::now();
    CUDA_CHECK(cudaDeviceSynchronize());
    const auto end = std::chrono::steady_clock::now();
    result.batch_host_ms = std::chrono::duration<double, std::milli>(end - start).count();
    result.batch_event_ms = timer.elapsed();
    const double after_ms = std::chrono::duration<double, std::milli>(end - stream_done).count();
    disagreement =
        bench::clocks_disagree(result.batch_host_ms, result.batch_event_ms, result.batch_launches);
    if (!disagreement)
      disagreement = bench::busy_after_stream(after_ms);
    if (!disagreement)
      break;
  }
  if (disagreement)
    result.failure = trial.rung + ": " + *disagreement;
  return result;
}

}  // namespace course
