// AdamW step throughput against memory bandwidth, measured in one run.
//
// Each AdamW element reads param, grad, exp_avg and exp_avg_sq and writes param, exp_avg and
// exp_avg_sq: 28 bytes for fp32 (for bf16 with fp32 master: master 4+4, grad 2, param 2,
// moments 16 - also 28). Two bandwidth probes run on the same sizes and thread counts:
//   triad    STREAM's a[i] = b[i] + s*c[i] on fp32, counted as STREAM counts it (12 bytes;
//            the write-allocate read of `a` is not counted);
//   inplace  AdamW's own traffic with no arithmetic to speak of: p += g, m += g, v += g
//            (28 bytes, every written line read first, so no write-allocate either).
// Threads split [0, n) into equal contiguous pieces as host->parallel_for does (sizes too
// small to split run on one thread only). After the Google Benchmark table (whose G/s are
// GiB/s), a summary prints each AdamW throughput in GB/s and as a fraction of both probes
// at the same size and thread count.
//
//   adamw_bench [--benchmark_min_time=1] [--sizes=65536,4194304,16777216]
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "dopant/adamw_kernels/kernels.hpp"

namespace {

using dopant::adamw_kernels::ParamDtype;
using dopant::adamw_kernels::Variant;

constexpr double kAdamwBytesPerElement = 28.0;
constexpr double kTriadBytesPerElement = 12.0;
// Below this many elements per thread, starting threads would cost more than the step.
constexpr size_t kMinElementsPerThread = size_t{1} << 19;

// Page-aligned storage, as tensors from a framework's allocator or host->alloc are aligned;
// std::vector's default storage is only 16-byte aligned, which splits most 64-byte loads.
template <typename T>
struct PageAligned {
  using value_type = T;
  PageAligned() = default;
  template <typename U>
  explicit PageAligned(const PageAligned<U>&) {}
  T* allocate(size_t count) {
    const size_t bytes = (count * sizeof(T) + 4095) / 4096 * 4096;
    void* data = std::aligned_alloc(4096, bytes);
    if (data == nullptr) throw std::bad_alloc();
    return static_cast<T*>(data);
  }
  void deallocate(T* data, size_t) { std::free(data); }
  bool operator==(const PageAligned&) const { return true; }
};
template <typename T>
using Buffer = std::vector<T, PageAligned<T>>;

// Runs body(begin, end) on `threads` equal pieces of [0, n), the calling thread taking the
// first piece.
template <typename Body>
void split(size_t n, unsigned threads, const Body& body) {
  std::vector<std::thread> workers;
  for (unsigned t = 1; t < threads; ++t) {
    workers.emplace_back([&, t] { body(n * t / threads, n * (t + 1) / threads); });
  }
  body(0, n / threads);
  for (std::thread& worker : workers) worker.join();
}

void triad(benchmark::State& state, size_t n, unsigned threads) {
  Buffer<float> a(n, 0.0f), b(n, 1.0f), c(n, 2.0f);
  float* __restrict out = a.data();
  const float* __restrict in1 = b.data();
  const float* __restrict in2 = c.data();
  const float s = 3.0f;
  for (auto _ : state) {
    split(n, threads, [=](size_t begin, size_t end) {
      for (size_t i = begin; i < end; ++i) out[i] = in1[i] + s * in2[i];
    });
    benchmark::DoNotOptimize(out);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kTriadBytesPerElement * n));
}

// The inplace probe's loop; built for AVX2 too where the CPU has it, so that it stays
// bound by memory rather than by SSE2 arithmetic.
__attribute__((target_clones("avx2", "default"))) void add_gradient_in_place(
    float* __restrict param, float* __restrict exp_avg, float* __restrict exp_avg_sq,
    const float* __restrict grad, size_t begin, size_t end) {
  for (size_t i = begin; i < end; ++i) {
    param[i] += grad[i];
    exp_avg[i] += grad[i];
    exp_avg_sq[i] += grad[i];
  }
}

void inplace(benchmark::State& state, size_t n, unsigned threads) {
  Buffer<float> param(n, 0.0f), exp_avg(n, 0.0f), exp_avg_sq(n, 0.0f), grad(n, 1.0f);
  for (auto _ : state) {
    split(n, threads, [&](size_t begin, size_t end) {
      add_gradient_in_place(param.data(), exp_avg.data(), exp_avg_sq.data(), grad.data(), begin,
                            end);
    });
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kAdamwBytesPerElement * n));
}

void adamw(benchmark::State& state, Variant variant, ParamDtype dtype, size_t n,
           unsigned threads) {
  const size_t width = dopant::adamw_kernels::param_bytes(dtype);
  Buffer<unsigned char> param(n * width), grad(n * width);
  Buffer<float> master(dtype == ParamDtype::f32 ? 0 : n, 0.5f);
  Buffer<float> exp_avg(n, 0.0f), exp_avg_sq(n, 0.0f);
  std::vector<float> values(n);
  for (size_t i = 0; i < n; ++i) values[i] = static_cast<float>(i % 1000) * 1e-4f - 0.05f;
  dopant::adamw_kernels::narrow_from_float(Variant::reference, dtype, values.data(), grad.data(),
                                           n);
  dopant::adamw_kernels::narrow_from_float(Variant::reference, dtype, values.data(),
                                           param.data(), n);
  const dopant::adamw_kernels::TensorRefs refs{param.data(), grad.data(),
                                               master.empty() ? nullptr : master.data(),
                                               exp_avg.data(), exp_avg_sq.data()};
  dopant::adamw_kernels::StepHyper hyper{.lr = 1e-3, .beta1 = 0.9, .beta2 = 0.999,
                                         .eps = 1e-8, .weight_decay = 1e-2, .step = 0};
  for (auto _ : state) {
    ++hyper.step;
    const dopant::adamw_kernels::StepScalars scalars =
        dopant::adamw_kernels::make_step_scalars(hyper);
    split(n, threads, [&](size_t begin, size_t end) {
      dopant::adamw_kernels::step_range(variant, dtype, scalars, refs, begin, end);
    });
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kAdamwBytesPerElement * n));
}

struct Key {
  size_t n;
  unsigned threads;
  bool operator<(const Key& other) const {
    return n != other.n ? n < other.n : threads < other.threads;
  }
};

// The console table as usual, plus each benchmark's bytes per second kept for the summary:
// the median when repetitions are asked for, else the one measurement.
class CollectingReporter : public benchmark::ConsoleReporter {
 public:
  CollectingReporter() : ConsoleReporter(OO_Tabular) {}
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      const bool usable = run.run_type == Run::RT_Iteration ||
                          (run.run_type == Run::RT_Aggregate && run.aggregate_name == "median");
      if (!usable || run.error_occurred) continue;
      const std::string& name = run.run_name.function_name;
      if (rates_.count(name) == 0) order_.push_back(name);
      rates_[name] = run.counters.at("bytes_per_second");
    }
    ConsoleReporter::ReportRuns(runs);
  }
  const std::vector<std::string>& names() const { return order_; }
  double rate(const std::string& name) const {
    const auto found = rates_.find(name);
    return found == rates_.end() ? 0.0 : found->second;
  }

 private:
  std::vector<std::string> order_;
  std::map<std::string, double> rates_;
};

std::vector<size_t> parse_sizes(int& argc, char** argv) {
  std::vector<size_t> sizes = {size_t{1} << 16, size_t{1} << 22, size_t{1} << 24};
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--sizes=", 8) != 0) continue;
    sizes.clear();
    for (char* p = argv[i] + 8; *p != '\0';) {
      sizes.push_back(std::strtoull(p, &p, 10));
      if (*p == ',') ++p;
    }
    for (int j = i; j + 1 < argc; ++j) argv[j] = argv[j + 1];
    --argc;
    break;
  }
  return sizes;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<size_t> sizes = parse_sizes(argc, argv);
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());

  std::map<std::string, Key> keys;  // benchmark name -> size and threads
  std::map<Key, std::string> triad_names;
  std::map<Key, std::string> inplace_names;
  for (size_t n : sizes) {
    std::vector<unsigned> thread_counts = {1};
    if (cores > 1 && n >= kMinElementsPerThread * cores) thread_counts.push_back(cores);
    for (unsigned threads : thread_counts) {
      const std::string suffix =
          "/threads:" + std::to_string(threads) + "/n:" + std::to_string(n);
      const std::string triad_name = "triad_f32" + suffix;
      benchmark::RegisterBenchmark(triad_name.c_str(), triad, n, threads)->UseRealTime();
      triad_names[{n, threads}] = triad_name;
      const std::string inplace_name = "inplace_f32" + suffix;
      benchmark::RegisterBenchmark(inplace_name.c_str(), inplace, n, threads)->UseRealTime();
      inplace_names[{n, threads}] = inplace_name;
      for (Variant v : {Variant::reference, Variant::scalar, Variant::avx2, Variant::avx512}) {
        if (!dopant::adamw_kernels::variant_supported(v)) continue;
        for (ParamDtype dtype : {ParamDtype::f32, ParamDtype::bf16}) {
          const std::string name = "adamw_" + std::string(dopant::adamw_kernels::variant_name(v)) +
                                   (dtype == ParamDtype::f32 ? "_f32" : "_bf16") + suffix;
          benchmark::RegisterBenchmark(name.c_str(), adamw, v, dtype, n, threads)
              ->UseRealTime();
          keys[name] = {n, threads};
        }
      }
    }
  }

  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  CollectingReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();

  std::printf("\nAdamW step throughput (GB/s, 1e9 B/s) as a fraction of the bandwidth probes "
              "of the same run:\n");
  std::printf("%-40s %8s %8s %7s %8s %7s\n", "kernel", "GB/s", "triad", "ratio", "inplace",
              "ratio");
  for (const std::string& name : reporter.names()) {
    const auto key = keys.find(name);
    if (key == keys.end()) continue;
    const double bytes_per_second = reporter.rate(name);
    const double triad = reporter.rate(triad_names[key->second]);
    const double in_place = reporter.rate(inplace_names[key->second]);
    std::printf("%-40s %8.2f %8.2f %7.3f %8.2f %7.3f\n", name.c_str(), bytes_per_second / 1e9,
                triad / 1e9, bytes_per_second / triad, in_place / 1e9,
                bytes_per_second / in_place);
  }
  return 0;
}
