// route_reference: the routing rule of routing.hpp written plainly, one token after the
// other, with full stable sorts, so that its selection and tie-breaking read off the code.
#include <algorithm>
#include <numeric>
#include <vector>

#include "row_math.hpp"

namespace dopant::topk_kernels {

void route_reference(const RoutingRule& rule, const RouteData& data) {
  const int64_t experts = data.experts;
  const int64_t group_size = experts / rule.n_group;
  std::vector<float> x(experts), scores(experts), choice(experts);  // [experts] fp32 each
  for (int64_t t = 0; t < data.tokens; ++t) {
    if (detail::score_or_replay(rule, data, t, x.data(), scores.data())) continue;
    int32_t* ids = data.ids + t * rule.top_k;        // [top_k] int32
    float* weights = data.weights + t * rule.top_k;  // [top_k] fp32
    for (int64_t e = 0; e < experts; ++e) {
      choice[e] = data.bias != nullptr ? scores[e] + data.bias[e] : scores[e];
    }
    // Groups: each scored by the sum of its two largest choice values; keep the best
    // topk_group (stable sort: the lower group index wins a tie).
    std::vector<bool> selectable(experts, true);
    if (rule.n_group > 1) {
      std::vector<float> group_score(rule.n_group);
      for (uint32_t g = 0; g < rule.n_group; ++g) {
        std::vector<float> members(choice.begin() + g * group_size,
                                   choice.begin() + (g + 1) * group_size);
        std::sort(members.begin(), members.end(), std::greater<float>());
        group_score[g] = members[0] + members[1];
      }
      std::vector<uint32_t> groups(rule.n_group);
      std::iota(groups.begin(), groups.end(), 0u);
      std::stable_sort(groups.begin(), groups.end(),
                       [&](uint32_t a, uint32_t b) { return group_score[a] > group_score[b]; });
      std::fill(selectable.begin(), selectable.end(), false);
      for (uint32_t i = 0; i < rule.topk_group; ++i) {
        std::fill_n(selectable.begin() + groups[i] * group_size, group_size, true);
      }
    }
    // Experts: the top_k selectable ones by choice (stable sort: the lower index wins a tie).
    std::vector<int32_t> order;
    for (int64_t e = 0; e < experts; ++e) {
      if (selectable[e]) order.push_back(static_cast<int32_t>(e));
    }
    std::stable_sort(order.begin(), order.end(),
                     [&](int32_t a, int32_t b) { return choice[a] > choice[b]; });
    std::copy_n(order.begin(), rule.top_k, ids);
    detail::write_weights(rule, scores.data(), ids, weights);
  }
}

}  // namespace dopant::topk_kernels
