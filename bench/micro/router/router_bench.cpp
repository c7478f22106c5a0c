// Router kernels in one run, single-threaded, as Google Benchmark tables:
//   topk/<shape>/<implementation>  tokens routed per second by route_reference and
//       route_fast (one thread; the plugin adds threads on top), on DeepSeek-V3's gate
//       (sigmoid, 256 experts, 8 groups keep 4, top-8, bias) and Mixtral's (softmax,
//       8 experts, top-2), 4096 tokens of random logits;
//   codec/<step>  one 2048-token turn of Kimi-K2 routing ([2048, 61, 8] int32 ids below
//       384): sglang and packed encode and decode, next to a memcpy of the same int32
//       array. Bytes/s count the int32 array for every step, so the rates compare directly.
//
//   router_bench [--benchmark_filter=codec] [--benchmark_min_time=1]
#include <benchmark/benchmark.h>

#include <cstring>
#include <random>
#include <vector>

#include "dopant/replay_codec/codecs.hpp"
#include "dopant/topk_kernels/routing.hpp"

namespace {

namespace kernels = dopant::topk_kernels;
namespace codec = dopant::replay_codec;

constexpr int64_t kTokens = 4096;

struct GateShape {
  kernels::RoutingRule rule;
  int64_t experts;
  bool bias;
};

const GateShape kDeepseek{{kernels::Scoring::sigmoid, 8, true, 8, 4, 2.5f}, 256, true};
const GateShape kMixtral{{kernels::Scoring::softmax, 2, true, 1, 1, 1.0f}, 8, false};

void topk(benchmark::State& state, const GateShape& shape, bool fast) {
  std::mt19937 random(3);
  std::normal_distribution<float> normal(0.0f, 2.0f);
  std::vector<float> logits(kTokens * shape.experts);  // [tokens, experts] fp32
  for (float& x : logits) x = normal(random);
  std::vector<float> bias(shape.experts);  // [experts] fp32
  for (float& b : bias) b = normal(random) * 0.005f;
  std::vector<int32_t> ids(kTokens * shape.rule.top_k);  // [tokens, top_k] int32
  std::vector<float> weights(ids.size());                // [tokens, top_k] fp32
  const kernels::RouteData data{logits.data(), kernels::LogitsType::f32, kTokens, shape.experts,
                                shape.bias ? bias.data() : nullptr, nullptr, ids.data(), weights.data()};
  for (auto _ : state) {
    if (fast) {
      kernels::route_fast(shape.rule, data, 0, kTokens);
    } else {
      kernels::route_reference(shape.rule, data);
    }
    benchmark::DoNotOptimize(ids.data());
  }
  state.SetItemsProcessed(state.iterations() * kTokens);
}

// One Kimi-K2 turn: 2048 rows, 61 layers, top-8 of 384 experts.
const codec::RoutingRows& kimi_turn() {
  static const codec::RoutingRows rows = [] {
    std::mt19937 random(5);
    std::uniform_int_distribution<int32_t> id(0, 383);
    codec::RoutingRows r{0, 61, 8, 384, std::vector<int32_t>(2048 * 61 * 8)};
    for (int32_t& x : r.ids) x = id(random);
    return r;
  }();
  return rows;
}

void codec_step(benchmark::State& state, int step) {
  const codec::RoutingRows& rows = kimi_turn();
  const std::string text = codec::encode_sglang(rows.ids);
  const std::vector<uint8_t> packed = codec::encode_packed(rows);
  std::vector<int32_t> copy(rows.ids.size());
  for (auto _ : state) {
    switch (step) {
      case 0: std::memcpy(copy.data(), rows.ids.data(), copy.size() * 4); break;
      case 1: benchmark::DoNotOptimize(codec::encode_sglang(rows.ids)); break;
      case 2: benchmark::DoNotOptimize(codec::decode_sglang(text, 61, 8, 384)); break;
      case 3: benchmark::DoNotOptimize(codec::encode_packed(rows)); break;
      default: benchmark::DoNotOptimize(codec::decode_packed(packed)); break;
    }
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(rows.ids.size() * 4));
  state.counters["wire_bytes"] = static_cast<double>(step == 0 ? rows.ids.size() * 4
                                                     : step <= 2 ? text.size() : packed.size());
}

}  // namespace

BENCHMARK_CAPTURE(topk, deepseek_v3/reference, kDeepseek, false)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(topk, deepseek_v3/fast, kDeepseek, true)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(topk, mixtral/reference, kMixtral, false)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(topk, mixtral/fast, kMixtral, true)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(codec_step, codec/memcpy, 0)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(codec_step, codec/sglang_encode, 1)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(codec_step, codec/sglang_decode, 2)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(codec_step, codec/packed_encode, 3)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(codec_step, codec/packed_decode, 4)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
