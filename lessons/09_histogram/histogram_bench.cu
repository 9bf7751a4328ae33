// Lesson 09's timed work (histogram_bench.hpp): the lesson's inputs made on the GPU, CUB's counts
// as the reference, and the Trial that course::measure() times.
#include <cub/cub.cuh>

#include <algorithm>
#include <string>

#include "course/error.hpp"
#include "course/gpu.hpp"
#include "course/hash.hpp"  // hash64: byte i of a seed is the same here as in make_text()
#include "histogram_bench.hpp"

namespace course::lesson09 {

namespace {

// course::english_text's table: letter frequencies of English per 10000 letters, summed ('a'
// covers [0, 817), 'b' [817, 966), ...).
__constant__ int kEnglishCumulative[27] = {0,    817,  966,  1244, 1669, 2939, 3162, 3364, 3973,
                                           4670, 4685, 4762, 5165, 5406, 6081, 6832, 7025, 7035,
                                           7634, 8267, 9173, 9449, 9547, 9783, 9798, 9995, 10002};
__constant__ char kPunctuation[] = ".,;!?\n-'0";

// Byte i of make_text(input, n, seed).
__device__ unsigned char text_byte(Input input, std::uint64_t seed, std::size_t i) {
  switch (input) {
    case Input::UniformLetters:
      return static_cast<unsigned char>('a' + hash64(seed, i) % 26);
    case Input::English: {
      const std::uint64_t h = hash64(seed, i);
      if (h % 100 < 18)
        return (h >> 8) % 10 == 0 ? kPunctuation[(h >> 16) % 9] : ' ';
      const int target =
          static_cast<int>((h >> 20) % static_cast<std::uint64_t>(kEnglishCumulative[26]));
      int letter = 0;
      while (kEnglishCumulative[letter + 1] <= target)
        ++letter;
      return static_cast<unsigned char>('a' + letter);
    }
    case Input::LongRuns: {
      // long_runs_text(): run r ends at r kLongRun + (hash64(seed, r) mod kLongRun).
      const std::size_t r = i / kLongRun;
      const std::size_t run = i % kLongRun < hash64(seed, r) % kLongRun ? r : r + 1;
      return static_cast<unsigned char>('a' + (hash64(seed, run) >> 32) % 26);
    }
    case Input::OneLetter:
      return static_cast<unsigned char>('a' + seed % 26);
    case Input::NoLetters: {
      const auto byte = static_cast<unsigned>(hash64(seed, i) % (256 - 26));
      return static_cast<unsigned char>(byte < 'a' ? byte : byte + 26);
    }
    case Input::UniformBytes:
      break;
  }
  return static_cast<unsigned char>(hash64(seed, i) & 0xFF);
}

__global__ void text_kernel(unsigned char* text, std::size_t n, std::uint64_t seed, Input input) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x)
    text[i] = text_byte(input, seed, i);
}

// The 7 letter bins from the 256 byte counts: bin b holds the letters 'a' + 4b ... 'a' + 4b + 3
// (only 'y' and 'z' in the last).
__global__ void fold_letters_kernel(const std::uint32_t* byte_counts, std::uint32_t* letters) {
  const int bin = static_cast<int>(threadIdx.x);
  if (bin < kLetterBins) {
    std::uint32_t sum = 0;
    for (int c = 'a' + 4 * bin; c < 'a' + 4 * bin + 4 && c <= 'z'; ++c)
      sum += byte_counts[c];
    letters[bin] = sum;
  }
}

// CUB's 256-bin histogram of the n bytes at d_text into d_counts, with scratch of @p bytes.
void cub_byte_histogram(void* scratch, std::size_t& bytes, const unsigned char* d_text,
                        std::size_t n, std::uint32_t* d_counts, cudaStream_t stream) {
  CUDA_CHECK(cub::DeviceHistogram::HistogramEven(scratch, bytes, d_text, d_counts, kByteBins + 1, 0,
                                                 kByteBins, static_cast<std::int64_t>(n), stream));
}

}  // namespace

void fill_text(Input input, unsigned char* d_text, std::size_t n, std::uint64_t seed,
               cudaStream_t stream) {
  if (n == 0)
    return;
  const std::size_t blocks =
      std::min<std::size_t>((n + 255) / 256, static_cast<std::size_t>(gpu_info().sm_count) * 16);
  text_kernel<<<static_cast<unsigned>(blocks), 256, 0, stream>>>(d_text, n, seed, input);
  CUDA_CHECK_LAST();
}

ceilings::Ceiling histogram_ceiling(const unsigned char* d_text, std::size_t n, int bins) {
  // 'a' + 28: CUB's bins are all 4 wide, so its last one is 'y'...'|'; the timed inputs hold no
  // '{' or '|', so it counts what the rungs count.
  return bins == kByteBins
             ? ceilings::cub_histogram_even(d_text, n, kByteBins, 0, kByteBins)
             : ceilings::cub_histogram_even(d_text, n, kLetterBins, 'a', 'a' + 4 * kLetterBins);
}

HistogramBench::HistogramBench(std::size_t n)
    : n_(n), text_(n), bins_(kByteBins), byte_counts_(kByteBins), expected_(kByteBins) {
  require(n >= 1 && n <= kMaxCount, "HistogramBench: n must be in [1, kMaxCount]");
  std::size_t bytes = 0;
  cub_byte_histogram(nullptr, bytes, text_.data(), n_, byte_counts_.data(), nullptr);
  scratch_ = DeviceBuffer<unsigned char>(std::max<std::size_t>(bytes, 1));
}

void HistogramBench::load(Input input, std::uint64_t seed, cudaStream_t stream) {
  fill_text(input, text_.data(), n_, seed, stream);
}

void HistogramBench::reference(Variant variant, cudaStream_t stream) {
  std::size_t bytes = scratch_.size();
  const bool all_bytes = bins_of(variant) == kByteBins;
  cub_byte_histogram(scratch_.data(), bytes, text_.data(), n_,
                     all_bytes ? expected_.data() : byte_counts_.data(), stream);
  if (!all_bytes) {
    fold_letters_kernel<<<1, 32, 0, stream>>>(byte_counts_.data(), expected_.data());
    CUDA_CHECK_LAST();
  }
}

Trial HistogramBench::trial(Variant variant, Input input, int block) {
  Trial trial;
  trial.rung = std::string(name_of(variant));
  trial.load = [this, input](std::uint64_t seed, cudaStream_t stream) {
    load(input, seed, stream);
  };
  trial.reference = [this, variant](cudaStream_t stream) { reference(variant, stream); };
  trial.launch = [this, variant, block](cudaStream_t stream) {
    histogram(variant, text_.data(), n_, bins_.data(), stream, block);
  };
  const auto bytes = static_cast<std::size_t>(bins_of(variant)) * sizeof(std::uint32_t);
  trial.outputs = {
      {"counts", bins_.data(), bytes, expected_.data(), {OutputCheck::Kind::Bytes, {}}}};
  // The text is const in the interface: it must still hold what load() wrote after every launch.
  trial.inputs = {{"text", text_.data(), n_}};
  return trial;
}

}  // namespace course::lesson09
