/// @file
/// @brief The one measuring procedure of the course: how every speed test and every demo times a
/// rung, checks what it timed, and decides whether the figure can be believed.
///
/// A lesson describes a rung's work as a course::Trial (how to load fresh inputs, how to compute
/// the expected outputs with trusted code, how to call the launcher under test, which device
/// memory it writes); course::measure() does the rest, the same way for tests and demos:
///
/// 1. **Fresh inputs every repeat.** Each timed repeat loads inputs made from a new seed, and
///    every call of measure() in a process starts from a seed of its own (a second attempt, a
///    baseline after its rung), so no launcher can replay a result it kept from an earlier
///    call, whatever it keys it on.
/// 2. **Every timed repeat is checked.** Before each repeat the outputs are either poisoned with
///    0xFF bytes (a NaN for floats, -1 for integers) or left holding the previous repeat's
///    result, a decoy that looks written; which of the two is decided by the seed. After the
///    repeat a kernel compares every output element with its expected value on the GPU, at
///    once, and the inputs the interface declares const (Trial::inputs) must be as they were
///    loaded.
/// 3. **The harness owns the stream and the clock.** It creates a non-blocking stream, hands it
///    to the launcher and records its events there. A host wall-clock measurement of a
///    synchronized batch of launches cross-checks the events: work that escapes to another
///    stream is seen by the host clock and not by the events, and fails the rung.
/// 4. **A cold, clean L2.** Before each timed repeat course::flush_l2() reads a buffer twice the
///    L2's size: nothing the launch reads is cached, and no dirty line it did not write waits to
///    be written back during it (timer.hpp). The flush is still running when the host records
///    the start event and calls the launcher, so the events time the launch, not the few
///    microseconds the host takes to submit it: the same as course::time_on_gpu() times a
///    ceiling, where the work is queued behind the flush too.
/// 5. **Plausibility** (course::check_plausible): a share of the ceiling above the bound the
///    lesson README writes for the rung means the timing cannot be right.
#pragma once

#include <cuda_runtime.h>

struct __nv_bfloat16;  // cuda_bf16.h's type, named by round_to_bf16()

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "course/compare.hpp"
#include "course/timer.hpp"

namespace course {

/// How a timed output is compared with what it should hold, on the GPU.
struct OutputCheck {
  /// The element type.
  enum class Kind {
    Bytes,    ///< every byte equal (integers, and floats that must be bit-identical)
    Float32,  ///< floats within a tolerance; a NaN never passes
  };
  Kind kind = Kind::Bytes;  ///< how to compare
  Tolerance tolerance{};    ///< Float32: |got - expected| <= atol + rtol * |expected|
};

/// One region of device memory that the launch writes, with where its expected value is.
struct TimedOutput {
  std::string name;  ///< for messages, e.g. "out"
  /// Device memory the launcher writes (or host memory, for a trip that ends on the host: then
  /// it is poisoned and compared by the CPU, outside the timed region).
  void* data = nullptr;
  std::size_t bytes = 0;  ///< its size in bytes (a multiple of 4 for Float32)
  const void* expected =
      nullptr;          ///< device (or host) memory, @p bytes long, from Trial::reference
  OutputCheck check{};  ///< how to compare
};

/// One region of memory that the launch reads and must leave unchanged: an input the
/// interface declares const. course::measure() checks it after every launch.
struct TimedInput {
  std::string name;            ///< for messages, e.g. "in"
  const void* data = nullptr;  ///< device memory (or host memory, for a trip that starts there)
  std::size_t bytes = 0;       ///< its size in bytes
};

/// A rung's timed work, as a lesson describes it to course::measure().
struct Trial {
  std::string rung;  ///< the rung's name, for messages
  /// Writes fresh inputs made from @p seed into the buffers the launch reads (not timed).
  std::function<void(std::uint64_t seed, cudaStream_t stream)> load;
  /// Computes the expected value of every output for the inputs just loaded, with trusted code
  /// (a given rung, a library, the harness): not timed, never the code under test.
  std::function<void(cudaStream_t stream)> reference;
  /// Calls the launcher under test: everything it does must be ordered on @p stream.
  std::function<void(cudaStream_t stream)> launch;
  /// What the launch writes.
  std::vector<TimedOutput> outputs;
  /// What the launch reads and may not write (the interface's const inputs): after every launch
  /// each must hold exactly what load() wrote, or the rung fails.
  std::vector<TimedInput> inputs;
};

/// How course::measure() times.
struct MeasureOptions {
  int warmup = 2;          ///< untimed, checked launches first
  int repeats = 15;        ///< timed, checked launches; the median is reported
  bool flush_l2 = true;    ///< evict the L2 cache (course::flush_l2) before each timed launch
  std::uint64_t seed = 0;  ///< where the inputs' seeds start (tests pass a derived seed)
};

/// What course::measure() found.
struct Measurement {
  Timing timing;                ///< events around each checked, timed launch
  double batch_event_ms = 0.0;  ///< events around the cross-check batch
  double batch_host_ms = 0.0;   ///< host wall clock around the same batch, synchronized
  int batch_launches = 0;       ///< launches in the batch
  /// Empty when the timing stands; otherwise why it does not (a wrong output in a timed repeat,
  /// work that escaped the timed stream). A test fails on it; a demo marks the row.
  std::string failure;
  /// True when every timed output was right and the clocks agree.
  [[nodiscard]] bool sound() const noexcept { return failure.empty(); }
};

/// Times @p trial as the module comment says. Exceptions from the launcher (not implemented, bad
/// arguments, CUDA errors) propagate; a wrong or escaping launch is reported in
/// Measurement::failure, never thrown, so a demo can still print its row.
[[nodiscard]] Measurement measure(const Trial& trial, const MeasureOptions& options = {});

/// Fills the shared memory of every multiprocessor with 0xFF bytes (NaN as floats), so that a
/// kernel reading shared memory it never wrote computes with NaN instead of with whatever the
/// last kernel left there. DeviceBuffer::poison() calls it before every correctness run; it does
/// nothing under compute-sanitizer (sanitize_mode()), whose tools look for those bugs themselves.
void poison_shared_memory(cudaStream_t stream = {});

// Inputs made on the GPU: the same values as the CPU generators of course/data.hpp (element i
// of seed s is the same number on both), so a test may compute a CPU reference of the inputs a
// timed launch used.

/// @p count floats uniform in [@p low, @p high), as course::uniform_floats().
void fill_uniform_floats(float* d_out, std::size_t count, std::uint64_t seed, float low, float high,
                         cudaStream_t stream);
/// @p count integers uniform in [@p low, @p high], as course::uniform_ints().
void fill_uniform_ints(std::int32_t* d_out, std::size_t count, std::uint64_t seed, std::int32_t low,
                       std::int32_t high, cudaStream_t stream);
/// @p count keys uniform over all 2^32 values, as course::uniform_keys().
void fill_uniform_keys(std::uint32_t* d_out, std::size_t count, std::uint64_t seed,
                       cudaStream_t stream);

/// Rounds @p count floats to BF16 (to nearest, ties to even): the BF16 copy to @p d_bf16, and the
/// rounded value back to @p d_values, so that the float copy is exactly what a BF16 kernel
/// multiplies and a float reference multiplies the same numbers. With @p from_int_bits,
/// d_values holds the bits of int32s (fill_uniform_ints), converted to float exactly first.
void round_to_bf16(float* d_values, __nv_bfloat16* d_bf16, std::size_t count, cudaStream_t stream,
                   bool from_int_bits = false);

/// The arithmetic behind course::measure(), kept apart so that it is tested without a GPU.
namespace bench {

/// How the outputs are prepared before a timed repeat.
enum class Prepare {
  Poison,  ///< 0xFF bytes
  Decoy,   ///< left holding the previous repeat's (correct, but now stale) result
};

/// The preparation of each of @p repeats timed repeats, decided by @p seed: both kinds occur
/// whenever @p repeats >= 2, and the first repeat is always poisoned (there is no previous
/// result before it).
[[nodiscard]] std::vector<Prepare> prepare_schedule(std::uint64_t seed, int repeats);

/// The seed of the inputs of launch @p index of a measurement starting at @p seed: a different,
/// well-mixed seed for every launch.
[[nodiscard]] std::uint64_t launch_seed(std::uint64_t seed, int index) noexcept;

/// The median, minimum and maximum of @p ms (not empty).
[[nodiscard]] Timing summarize(std::vector<double> ms);

/// Launches in the cross-check batch, for a rung whose median is @p median_ms: enough for the
/// batch to last about 10 ms, at least 4 and at most 400.
[[nodiscard]] int batch_launches(double median_ms) noexcept;

/// Whether the host clock and the events of one batch agree: the host's time over a batch may
/// exceed the events' by scheduling and wake-up latency (a fraction, plus a fixed slack), never
/// by whole launches of work. Returns what is wrong, or nothing when they agree.
[[nodiscard]] std::optional<std::string> clocks_disagree(double host_ms, double event_ms,
                                                         int launches);

/// Whether the device was still busy @p after_ms after the harness's own stream had finished a
/// batch: more than kClockSlackMs is work on another stream. It catches what clocks_disagree
/// cannot: a launcher whose host calls block (a full launch queue), so that the stop event is
/// recorded late and the events grow with the host clock. Returns what is wrong, or nothing.
[[nodiscard]] std::optional<std::string> busy_after_stream(double after_ms);

/// The host's time may exceed the events' by this factor of the events' time (a busy host or
/// a GPU shared with other processes wakes the host late; work that escaped the stream leaves
/// the events with nothing but the enqueueing, a small fraction of the host's time)...
inline constexpr double kClockRatio = 2.0;
/// ...plus this many milliseconds.
inline constexpr double kClockSlackMs = 1.0;

}  // namespace bench

/// Checks that @p share of a ceiling is one the hardware can reach: nothing when
/// 0 < share <= @p bound, otherwise the failure message ("the timing cannot be right").
[[nodiscard]] std::optional<std::string> check_plausible(double share, double bound,
                                                         const std::string& ceiling);

}  // namespace course
