// The per-row formulas shared by route_reference and route_fast (see row_math.hpp).
#include "row_math.hpp"

#include <dopant/sdk/errors.hpp>
#include <dopant/sdk/float16.hpp>

#include <algorithm>
#include <cmath>
#include <string>

namespace dopant::topk_kernels::detail {
namespace {

// x[e] = logit e of `token` as fp32 (bf16 widened exactly); throws naming the token and
// expert when one is not finite.
void load_row(const RouteData& data, int64_t token, float* x) {
  const int64_t first = token * data.experts;
  if (data.logits_type == LogitsType::bf16) {
    const uint16_t* row = static_cast<const uint16_t*>(data.logits) + first;  // [experts] bf16
    for (int64_t e = 0; e < data.experts; ++e) x[e] = sdk::bf16_to_float(row[e]);
  } else {
    const float* row = static_cast<const float*>(data.logits) + first;  // [experts] fp32
    std::copy(row, row + data.experts, x);
  }
  bool finite = true;
  for (int64_t e = 0; e < data.experts; ++e) finite &= std::isfinite(x[e]);
  if (finite) return;
  const int64_t bad = std::find_if(x, x + data.experts, [](float v) { return !std::isfinite(v); }) - x;
  sdk::fail(DPT_INVALID_ARGUMENT, "logits: token " + std::to_string(token) + ", expert " +
                                      std::to_string(bad) + " is " + std::to_string(x[bad]) +
                                      "; logits must be finite");
}

// scores[e] from logits x[e], e in [0, experts) (the formulas of routing.hpp).
void score_row(Scoring scoring, const float* x, int64_t experts, float* scores) {
  if (scoring == Scoring::sigmoid) {
    for (int64_t e = 0; e < experts; ++e) scores[e] = 1.0f / (1.0f + std::exp(-x[e]));  // sigmoid
    return;
  }
  // softmax: exp(x - max) / sum, the sum taken in index order
  const float top = *std::max_element(x, x + experts);
  float total = 0.0f;
  for (int64_t e = 0; e < experts; ++e) {
    scores[e] = std::exp(x[e] - top);
    total += scores[e];
  }
  for (int64_t e = 0; e < experts; ++e) scores[e] /= total;
}

}  // namespace

void write_weights(const RoutingRule& rule, const float* scores, const int32_t* ids, float* weights) {
  float total = 0.0f;
  for (uint32_t k = 0; k < rule.top_k; ++k) {
    weights[k] = scores[ids[k]];
    total += weights[k];
  }
  if (rule.norm_topk_prob) {
    const float denominator = total + 1e-20f;  // as Hugging Face's DeepSeek-V3 gate
    for (uint32_t k = 0; k < rule.top_k; ++k) weights[k] /= denominator;
  }
  for (uint32_t k = 0; k < rule.top_k; ++k) weights[k] *= rule.routed_scaling_factor;
}

bool score_or_replay(const RoutingRule& rule, const RouteData& data, int64_t token, float* x, float* scores) {
  load_row(data, token, x);
  score_row(rule.scoring, x, data.experts, scores);
  if (data.recorded == nullptr) return false;
  int32_t* ids = data.ids + token * rule.top_k;  // [top_k] int32
  const int32_t* row = data.recorded + token * rule.top_k;  // [top_k] int32
  for (uint32_t k = 0; k < rule.top_k; ++k) {
    const int32_t id = row[k];
    const auto where = [&] {
      return "recorded_ids: token " + std::to_string(token) + ", slot " + std::to_string(k) +
             ": expert " + std::to_string(id);
    };
    if (id < 0 || id >= data.experts) {
      sdk::fail(DPT_INVALID_ARGUMENT, where() + " is outside [0, " + std::to_string(data.experts) + ")");
    }
    if (std::find(row, row + k, id) != row + k) sdk::fail(DPT_INVALID_ARGUMENT, where() + " repeats within the row");
    ids[k] = id;
  }
  write_weights(rule, scores, ids, data.weights + token * rule.top_k);
  return true;
}

}  // namespace dopant::topk_kernels::detail
