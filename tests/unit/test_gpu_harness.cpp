#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "course/testing.hpp"

TEST_SUITE("gpu") {
  TEST_CASE("device buffers round-trip, poison to NaN, and move") {
    const auto data = course::uniform_floats(1000, course::base_seed());
    course::DeviceBuffer<float> device{std::span<const float>(data)};
    CHECK(device.to_host() == data);
    device.poison();
    const auto poisoned = device.to_host();
    CHECK(std::all_of(poisoned.begin(), poisoned.end(), [](float v) { return std::isnan(v); }));
    course::DeviceBuffer<float> moved = std::move(device);
    CHECK(moved.size() == 1000);
    CHECK(device.data() == nullptr);
    CHECK_THROWS_AS(moved.upload(std::vector<float>(1001)), std::invalid_argument);
  }

  TEST_CASE("host buffers of every kind copy to and from the device") {
    using course::HostMemory;
    for (HostMemory kind : {HostMemory::Pageable, HostMemory::Pinned, HostMemory::PinnedMallocHost,
                            HostMemory::WriteCombined, HostMemory::Mapped}) {
      CAPTURE(course::to_string(kind));
      course::HostBuffer<int> host(4096, kind);
      std::iota(host.begin(), host.end(), 0);
      course::DeviceBuffer<int> device(host.size());
      device.upload(host.span());
      const auto back = device.to_host();
      CHECK(back[4095] == 4095);
      if (kind == HostMemory::Mapped) {
        int first = -1;
        CUDA_CHECK(cudaMemcpy(&first, host.device_data() + 7, sizeof(int), cudaMemcpyDefault));
        CHECK(first == 7);
      } else {
        CHECK_THROWS_AS((void)host.device_data(), std::logic_error);
      }
    }
  }

  TEST_CASE("a CUDA error becomes a CudaError naming the call") {
    void* pointer = nullptr;
    try {
      CUDA_CHECK(cudaMalloc(&pointer, std::size_t{1} << 62));
      FAIL("an impossible allocation succeeded");
    } catch (const course::CudaError& error) {
      CHECK(std::string(error.what()).find("cudaMalloc") != std::string::npos);
      CHECK(error.code() == cudaErrorMemoryAllocation);
    }
    // The error was reported once; the next check must not see it again.
    CHECK(cudaGetLastError() == cudaSuccess);
  }

  TEST_CASE("the timer reports a sane median, and the copy ceiling is plausible") {
    course::DeviceBuffer<float> a(1 << 24), b(1 << 24);
    a.fill_bytes(1);
    const auto t = course::time_on_gpu([&](cudaStream_t s) {
      CUDA_CHECK(cudaMemcpyAsync(b.data(), a.data(), a.bytes(), cudaMemcpyDeviceToDevice, s));
    });
    CHECK(t.repeats == 15);
    CHECK(t.min_ms > 0.0);
    CHECK(t.min_ms <= t.median_ms);
    CHECK(t.median_ms <= t.max_ms);
    const auto& copy = course::ceilings::device_copy();
    CHECK(copy.value > 50.0);      // GB/s: any GPU the course supports does better
    CHECK(copy.value < 20000.0);
  }

  TEST_CASE("the product check accepts a right product and names a wrong element") {
    using course::product::Second;
    // Small shapes take the double reference; 600^3 takes cuBLAS plus exact samples.
    for (int size : {37, 600}) {
      CAPTURE(size);
      const int m = size, n = size + 3, k = size - 5;
      const auto seed = course::derive_seed(course::base_seed(), size);
      course::DeviceBuffer<float> a{std::span<const float>(course::uniform_floats(std::size_t(m) * k, seed))};
      course::DeviceBuffer<float> b{std::span<const float>(course::uniform_floats(std::size_t(k) * n, seed + 1))};
      // The reference product in double, rounded once: well within the bound.
      const auto ha = a.to_host(), hb = b.to_host();
      std::vector<float> c(std::size_t(m) * n);
      for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) {
          double sum = 0;
          for (int p = 0; p < k; ++p) sum += double(ha[std::size_t(i) * k + p]) * hb[std::size_t(p) * n + j];
          c[std::size_t(i) * n + j] = static_cast<float>(sum);
        }
      course::DeviceBuffer<float> d_c{std::span<const float>(c)};
      const auto right = course::product::check(a.data(), b.data(), d_c.data(), m, n, k, Second::B, seed);
      CHECK_MESSAGE(right.ok, right.report());
      // One term missing from the last element: the error of a ragged edge.
      c.back() -= ha[std::size_t(m) * k - 1] * hb[std::size_t(k) * n - 1];
      d_c.upload(c);
      const auto wrong = course::product::check(a.data(), b.data(), d_c.data(), m, n, k, Second::B, seed);
      CHECK_FALSE(wrong.ok);
      CHECK(wrong.report().find("(row " + std::to_string(m - 1)) != std::string::npos);
    }
  }
}

// The measuring procedure (course/bench.hpp) on a GPU: an honest launch stands; a launch that
// escapes the stream, remembers, or skips when the output looks written does not.
TEST_SUITE("gpu") {
  TEST_CASE("the measuring procedure keeps an honest launch and rejects cheats") {
    const std::size_t n = std::size_t{1} << 24;
    course::DeviceBuffer<float> in(n), out(n), expected(n);
    course::Trial trial;
    trial.rung = "copy";
    trial.load = [&](std::uint64_t seed, cudaStream_t s) {
      course::fill_uniform_floats(in.data(), n, seed, -1.0f, 1.0f, s);
    };
    trial.reference = [&](cudaStream_t s) {
      CUDA_CHECK(cudaMemcpyAsync(expected.data(), in.data(), in.bytes(), cudaMemcpyDeviceToDevice, s));
    };
    trial.outputs = {{"out", out.data(), out.bytes(), expected.data(), {}}};
    auto copy_on = [&](cudaStream_t s) {
      CUDA_CHECK(cudaMemcpyAsync(out.data(), in.data(), in.bytes(), cudaMemcpyDeviceToDevice, s));
    };
    course::MeasureOptions options;
    options.seed = course::base_seed();

    SUBCASE("honest") {
      trial.launch = copy_on;
      const auto m = course::measure(trial, options);
      CHECK_MESSAGE(m.sound(), m.failure);
      CHECK(m.timing.median_ms > 0.0);
      CHECK(m.batch_launches >= 4);
    }
    SUBCASE("a private stream") {
      course::Stream side;
      trial.launch = [&](cudaStream_t) { copy_on(side.get()); };
      const auto m = course::measure(trial, options);
      CHECK_FALSE(m.sound());
      MESSAGE(m.failure);
    }
    SUBCASE("memoization: only the first call works") {
      int calls = 0;
      trial.launch = [&](cudaStream_t s) {
        if (calls++ == 0) copy_on(s);
      };
      const auto m = course::measure(trial, options);
      CHECK_FALSE(m.sound());
      CHECK(m.failure.find("differ from the reference") != std::string::npos);
    }
    SUBCASE("skipping when the output looks written") {
      trial.launch = [&](cudaStream_t s) {
        float first = 0.0f;
        CUDA_CHECK(cudaMemcpyAsync(&first, out.data(), sizeof first, cudaMemcpyDeviceToHost, s));
        CUDA_CHECK(cudaStreamSynchronize(s));
        if (std::isnan(first)) copy_on(s);
      };
      const auto m = course::measure(trial, options);
      CHECK_FALSE(m.sound());
      CHECK(m.failure.find("left stale") != std::string::npos);
    }
    SUBCASE("a float tolerance passes rounding and fails a NaN") {
      trial.outputs[0].check = {course::OutputCheck::Kind::Float32, {1e-6, 1e-6}};
      trial.launch = copy_on;
      CHECK(course::measure(trial, options).sound());
    }
  }

  TEST_CASE("the GPU generators make the CPU generators' values") {
    const std::size_t n = 100003;
    const std::uint64_t seed = course::base_seed();
    course::DeviceBuffer<float> f(n);
    course::DeviceBuffer<std::int32_t> i(n);
    course::DeviceBuffer<std::uint32_t> k(n);
    course::fill_uniform_floats(f.data(), n, seed, -3.0f, 5.0f, nullptr);
    course::fill_uniform_ints(i.data(), n, seed, -7, 1000, nullptr);
    course::fill_uniform_keys(k.data(), n, seed, nullptr);
    CHECK(f.to_host() == course::uniform_floats(n, seed, -3.0f, 5.0f));
    CHECK(i.to_host() == course::uniform_ints(n, seed, -7, 1000));
    CHECK(k.to_host() == course::uniform_keys(n, seed));
  }
}
