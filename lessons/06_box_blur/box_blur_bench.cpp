// Lesson 06's timed work (box_blur_bench.hpp): a course::Trial for each kernel rung, each trip
// and each lone copy. Inputs are made on the GPU from each launch's seed; expected outputs come
// from the given global kernel, never from the rung under test.
#include "box_blur_bench.hpp"

#include <string>
#include <vector>

#include "box_blur_rungs.cuh"
#include "course/error.hpp"
#include "course/stream.hpp"

namespace course::lesson06 {

namespace {

// The address the device reaches @p host at: page-locked memory of every kind is mapped into the
// device's address space (unified addressing); pageable memory is not, and gives nullptr.
void* device_view(void* host) {
  cudaPointerAttributes attributes{};
  if (host == nullptr || cudaPointerGetAttributes(&attributes, host) != cudaSuccess) {
    (void)cudaGetLastError();
    return nullptr;
  }
  return attributes.type == cudaMemoryTypeHost ? attributes.devicePointer : nullptr;
}

// Uniform floats in [0, 1) made from @p seed: the same values as course::uniform_floats.
void load_uniform(float* d_out, std::size_t n, std::uint64_t seed, cudaStream_t stream) {
  fill_uniform_floats(d_out, n, seed, 0.0f, 1.0f, stream);
}

// The trusted blur: the given global kernel over the whole vector.
void reference_blur(const float* d_in, float* d_out, std::size_t n, int radius,
                    cudaStream_t stream) {
  launch_global(d_in, d_out, n, radius, Range{0, n}, kDefaultBlock, stream);
}

}  // namespace

Measurement measure_kernel(Kernel kernel, std::size_t n, int radius, int block,
                           const MeasureOptions& options) {
  DeviceBuffer<float> d_in(n), d_out(n), d_expected(n);
  Trial trial;
  trial.rung = std::string(name_of(kKernels, kernel));
  trial.load = [&](std::uint64_t seed, cudaStream_t s) { load_uniform(d_in.data(), n, seed, s); };
  trial.reference = [&](cudaStream_t s) {
    reference_blur(d_in.data(), d_expected.data(), n, radius, s);
  };
  trial.launch = [&](cudaStream_t s) {
    blur(kernel, d_in.data(), d_out.data(), n, radius, s, block);
  };
  trial.outputs = {{"out",
                    d_out.data(),
                    d_out.bytes(),
                    d_expected.data(),
                    {OutputCheck::Kind::Float32, kGpuTolerance}}};
  // The input is declared const: after every launch it must still hold what load() wrote.
  trial.inputs = {{"in", d_in.data(), d_in.bytes()}};
  return measure(trial, options);
}

Measurement measure_trip(Memory memory, std::size_t n, const PipelineOptions& trip_options,
                         const MeasureOptions& options) {
  const TripMemory kinds = trip_memory(memory);
  HostBuffer<float> h_in(n, kinds.input), h_out(n, kinds.output);
  DeviceBuffer<float> d_in(n), d_out(n), d_source(n), d_expected(n);
  void* out_on_device = device_view(h_out.data());
  Trial trial;
  trial.rung = std::string(name_of(kMemories, memory));
  // The inputs are made on the GPU and copied into the host input: staging, not timed.
  trial.load = [&](std::uint64_t seed, cudaStream_t s) {
    load_uniform(d_source.data(), n, seed, s);
    CUDA_CHECK(
        cudaMemcpyAsync(h_in.data(), d_source.data(), h_in.bytes(), cudaMemcpyDeviceToHost, s));
  };
  trial.reference = [&](cudaStream_t s) {
    reference_blur(d_source.data(), d_expected.data(), n, trip_options.radius, s);
  };
  trial.launch = [&](cudaStream_t s) {
    trip(memory, h_in.data(), h_out.data(), n, TripBuffers{d_in.data(), d_out.data()}, trip_options,
         s);
  };
  if (out_on_device != nullptr)
    trial.outputs = {{"h_out",
                      out_on_device,
                      h_out.bytes(),
                      d_expected.data(),
                      {OutputCheck::Kind::Float32, kGpuTolerance}}};
  // The host input is declared const: after every trip it must still hold what load() copied
  // there. (The device buffers d_in and d_out are the trip's to write.)
  trial.inputs = {{"h_in", h_in.data(), h_in.bytes()}};
  Measurement result = measure(trial, options);
  if (out_on_device == nullptr && result.sound()) {
    // Temporary (see the header): the last trips blurred the last inputs loaded, which are still
    // in d_source; compare their output on the CPU.
    const Stream stream;
    reference_blur(d_source.data(), d_expected.data(), n, trip_options.radius, stream.get());
    stream.synchronize();
    const std::vector<float> expected = d_expected.to_host();
    const Comparison comparison = compare_close(h_out.span(), expected, kGpuTolerance, {n});
    if (!comparison.ok)
      result.failure =
          trial.rung + ": the last trip's output (compared on the CPU): " + comparison.report();
  }
  return result;
}

Measurement measure_copy(cudaMemcpyKind direction, HostMemory kind, std::size_t n,
                         const MeasureOptions& options) {
  require(direction == cudaMemcpyHostToDevice || direction == cudaMemcpyDeviceToHost,
          "measure_copy: the direction is host to device or device to host");
  const bool up = direction == cudaMemcpyHostToDevice;
  HostBuffer<float> host(n, kind);
  DeviceBuffer<float> d_source(n), d_target(n);
  Trial trial;
  trial.rung = std::string(up ? "copy to the device from " : "copy from the device to ") +
               std::string(to_string(kind)) + " memory";
  trial.load = [&](std::uint64_t seed, cudaStream_t s) {
    load_uniform(d_source.data(), n, seed, s);
    if (up)
      CUDA_CHECK(
          cudaMemcpyAsync(host.data(), d_source.data(), host.bytes(), cudaMemcpyDeviceToHost, s));
  };
  trial.reference = [](cudaStream_t) {};  // the copy must give back d_source
  trial.launch = [&](cudaStream_t s) {
    if (up) {
      CUDA_CHECK(
          cudaMemcpyAsync(d_target.data(), host.data(), host.bytes(), cudaMemcpyHostToDevice, s));
    } else {
      CUDA_CHECK(
          cudaMemcpyAsync(host.data(), d_source.data(), host.bytes(), cudaMemcpyDeviceToHost, s));
    }
  };
  void* target = up ? static_cast<void*>(d_target.data()) : device_view(host.data());
  if (target != nullptr)
    trial.outputs = {
        {"copy", target, host.bytes(), d_source.data(), {OutputCheck::Kind::Bytes, {}}}};
  return measure(trial, options);
}

}  // namespace course::lesson06
