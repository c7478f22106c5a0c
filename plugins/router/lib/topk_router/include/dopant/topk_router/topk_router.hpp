// TopkRouter: the route() of the `topk` router plugin, shared by the plugins that route the
// same way and add replay (replay-full, replay-delta). It checks each call's tensors, then
// routes token blocks on host->parallel_for with the dopant_topk_kernels fast path, and
// counts the per-expert load when asked. The rule, its formulas and its tie-breaking are
// in dopant/topk_kernels/routing.hpp.
#pragma once

#include <dopant/sdk/sdk.hpp>

#include "dopant/topk_kernels/routing.hpp"

namespace dopant::topk_router {

inline constexpr const char* kScoringChoices[] = {"softmax", "sigmoid"};

// The parameters of every router built on TopkRouter.
inline constexpr dpt_param_decl kTopkParams[] = {
    sdk::enum_param("scoring", "softmax", kScoringChoices,
                    "softmax: Mixtral/Qwen-MoE; sigmoid: DeepSeek-V3/Kimi-K2 noaux_tc"),
    sdk::int_param("top_k", "0", "experts per token; 0: as each call asks, else calls must ask this many")
        .min("0"),
    sdk::bool_param("norm_topk_prob", "false", "divide the chosen weights by their sum (+1e-20)"),
    sdk::int_param("n_group", "1", "expert groups for group-limited selection (1: none)").min("1"),
    sdk::int_param("topk_group", "1", "groups kept per token, by the sum of their top-2 scores")
        .min("1"),
    sdk::float_param("routed_scaling_factor", "1.0", "factor applied to every weight (> 0)"),
};

class TopkRouter {
 public:
  TopkRouter(const dpt_host* host, const sdk::Config& config);
  void route(const dpt_route_args& args, dpt_stream* stream);

 private:
  const dpt_host* host_;
  int64_t configured_top_k_;
  topk_kernels::RoutingRule rule_;
};

}  // namespace dopant::topk_router
