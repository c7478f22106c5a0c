// TopkRouter (see topk_router.hpp): argument checks naming the route args field, then the
// fast path on host->parallel_for over token blocks.
#include "dopant/topk_router/topk_router.hpp"

#include <cmath>
#include <initializer_list>
#include <string>

namespace dopant::topk_router {
namespace {

namespace kernels = topk_kernels;

// Tokens per parallel_for task: a task routes at least this many rows.
constexpr uint64_t kTokensPerTask = 64;

// Refuses `tensor` (the route args field `field`) unless it is a contiguous CPU tensor of
// `dtype` with the extents `shape`.
void require_tensor(const DLTensor* tensor, const char* field, DLDataType dtype,
                    std::initializer_list<int64_t> shape) {
  const std::string name = std::string("route args `") + field + "`";
  sdk::require(tensor != nullptr, name + " is NULL");
  std::string expected = "[";
  for (int64_t extent : shape) expected += (expected.size() > 1 ? ", " : "") + std::to_string(extent);
  expected += "] " + sdk::dtype_name(dtype);
  bool same = tensor->ndim == static_cast<int32_t>(shape.size()) && sdk::same_dtype(tensor->dtype, dtype);
  for (size_t i = 0; same && i < shape.size(); ++i) same = tensor->shape[i] == shape.begin()[i];
  sdk::require(same, name + " must be " + expected + ", got " + sdk::shape_string(*tensor) + " " +
                         sdk::dtype_name(tensor->dtype));
  sdk::require(sdk::is_contiguous(*tensor), name + " must be contiguous (row-major)");
  if (tensor->device.device_type != kDLCPU) {
    sdk::fail(DPT_UNIMPLEMENTED, name + " is not in CPU memory; topk routes on the CPU only");
  }
}

// Arguments of one parallel_for over tokens.
struct RouteBlocks {
  const dpt_host* host;
  kernels::RoutingRule rule;
  kernels::RouteData data;
};

dpt_error* route_block(void* context, uint64_t begin, uint64_t end) {
  const auto& blocks = *static_cast<const RouteBlocks*>(context);
  return sdk::guard(blocks.host, [&] {
    kernels::route_fast(blocks.rule, blocks.data, static_cast<int64_t>(begin), static_cast<int64_t>(end));
  });
}

}  // namespace

TopkRouter::TopkRouter(const dpt_host* host, const sdk::Config& config)
    : host_(host), configured_top_k_(config.get_int("top_k")) {
  rule_.scoring = config.get_string("scoring") == "sigmoid" ? kernels::Scoring::sigmoid
                                                            : kernels::Scoring::softmax;
  rule_.norm_topk_prob = config.get_bool("norm_topk_prob");
  rule_.n_group = static_cast<uint32_t>(config.get_int("n_group"));
  rule_.topk_group = static_cast<uint32_t>(config.get_int("topk_group"));
  rule_.routed_scaling_factor = static_cast<float>(config.get_float("routed_scaling_factor"));
}

void TopkRouter::route(const dpt_route_args& args, dpt_stream*) {
  sdk::require(args.logits != nullptr, "route args `logits` is NULL");
  const DLTensor& logits = *args.logits;  // [tokens, experts] fp32 or bf16
  sdk::require(logits.ndim == 2 && (sdk::is_fp32(logits) || sdk::is_bf16(logits)),
               "route args `logits` must be [tokens, experts] fp32 or bf16, got " +
                   sdk::shape_string(logits) + " " + sdk::dtype_name(logits.dtype));
  const int64_t tokens = logits.shape[0], experts = logits.shape[1];
  require_tensor(&logits, "logits", logits.dtype, {tokens, experts});
  sdk::require(configured_top_k_ == 0 || configured_top_k_ == args.top_k,
               "route args `top_k` " + std::to_string(args.top_k) + " differs from the configured top_k " +
                   std::to_string(configured_top_k_));
  kernels::RoutingRule rule = rule_;
  rule.top_k = args.top_k;
  kernels::check_rule(rule, experts);
  const int64_t k = args.top_k;
  require_tensor(args.expert_ids, "expert_ids", sdk::kInt32, {tokens, k});
  require_tensor(args.weights, "weights", sdk::kFloat32, {tokens, k});

  kernels::RouteData data;
  data.logits = sdk::data_as<const void>(logits);
  data.logits_type = sdk::is_bf16(logits) ? kernels::LogitsType::bf16 : kernels::LogitsType::f32;
  data.tokens = tokens;
  data.experts = experts;
  if (args.correction_bias != nullptr) {
    require_tensor(args.correction_bias, "correction_bias", sdk::kFloat32, {experts});
    data.bias = sdk::data_as<const float>(*args.correction_bias);  // [experts] fp32
    for (int64_t e = 0; e < experts; ++e) {
      sdk::require(std::isfinite(data.bias[e]),
                   "route args `correction_bias`: expert " + std::to_string(e) + " is not finite");
    }
  }
  if (args.recorded_ids != nullptr) {
    require_tensor(args.recorded_ids, "recorded_ids", sdk::kInt32, {tokens, k});
    data.recorded = sdk::data_as<const int32_t>(*args.recorded_ids);  // [tokens, top_k] int32
  }
  if (args.expert_load != nullptr) require_tensor(args.expert_load, "expert_load", sdk::kInt64, {experts});
  data.ids = sdk::data_as<int32_t>(*args.expert_ids);   // [tokens, top_k] int32
  data.weights = sdk::data_as<float>(*args.weights);    // [tokens, top_k] fp32

  RouteBlocks blocks{host_, rule, data};
  sdk::check(host_, host_->parallel_for(host_, 0, static_cast<uint64_t>(tokens), kTokensPerTask,
                                        &route_block, &blocks));
  if (args.expert_load != nullptr) {
    kernels::count_load(data.ids, tokens * k, experts, sdk::data_as<int64_t>(*args.expert_load));
  }
}

}  // namespace dopant::topk_router
