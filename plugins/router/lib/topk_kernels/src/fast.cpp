// route_fast: the routing rule of routing.hpp over a range of tokens, for threads to share.
// Per row it makes one pass per step instead of sorting: the two largest choice values of
// each group, then the best groups and the best experts kept in small arrays ordered best
// first. Candidates are visited in ascending index order and only a strictly larger value
// moves ahead of a kept one, so ties go to the lower index, as the reference's stable sorts
// give. The element loops (widening, bias) are plain loops the compiler vectorizes.
#include <algorithm>
#include <limits>
#include <vector>

#include "row_math.hpp"

namespace dopant::topk_kernels {
namespace {

// The `capacity` best of the values offered in ascending index order, best first; a tie
// keeps the earlier (lower) index ahead.
class BestOf {
 public:
  explicit BestOf(uint32_t capacity) : values_(capacity), indices_(capacity) {}
  void clear() { count_ = 0; }
  void offer(float value, int32_t index) {
    const uint32_t capacity = static_cast<uint32_t>(values_.size());
    if (count_ == capacity && !(value > values_[capacity - 1])) return;
    uint32_t slot = count_ < capacity ? count_++ : capacity - 1;
    for (; slot > 0 && value > values_[slot - 1]; --slot) {
      values_[slot] = values_[slot - 1];
      indices_[slot] = indices_[slot - 1];
    }
    values_[slot] = value;
    indices_[slot] = index;
  }
  const int32_t* indices() const { return indices_.data(); }

 private:
  std::vector<float> values_;
  std::vector<int32_t> indices_;
  uint32_t count_ = 0;
};

}  // namespace

void route_fast(const RoutingRule& rule, const RouteData& data, int64_t begin, int64_t end) {
  const int64_t experts = data.experts;
  const int64_t group_size = experts / rule.n_group;
  std::vector<float> x(experts), scores(experts), biased(experts);  // [experts] fp32 each
  std::vector<int32_t> kept_groups(rule.topk_group);
  BestOf best_groups(rule.topk_group), best_experts(rule.top_k);
  for (int64_t t = begin; t < end; ++t) {
    if (detail::score_or_replay(rule, data, t, x.data(), scores.data())) continue;
    int32_t* ids = data.ids + t * rule.top_k;        // [top_k] int32
    float* weights = data.weights + t * rule.top_k;  // [top_k] fp32
    const float* choice = scores.data();  // [experts] fp32: score + bias
    if (data.bias != nullptr) {
      for (int64_t e = 0; e < experts; ++e) biased[e] = scores[e] + data.bias[e];
      choice = biased.data();
    }
    best_experts.clear();
    if (rule.n_group == 1) {
      for (int64_t e = 0; e < experts; ++e) best_experts.offer(choice[e], static_cast<int32_t>(e));
    } else {
      best_groups.clear();
      for (uint32_t g = 0; g < rule.n_group; ++g) {
        // group score = largest + second largest choice value of the group
        float first = -std::numeric_limits<float>::infinity(), second = first;
        for (const float* v = choice + g * group_size; v != choice + (g + 1) * group_size; ++v) {
          if (*v > first) {
            second = first;
            first = *v;
          } else if (*v > second) {
            second = *v;
          }
        }
        best_groups.offer(first + second, static_cast<int32_t>(g));
      }
      // Kept groups in ascending order, so their experts are offered by ascending index.
      std::copy_n(best_groups.indices(), rule.topk_group, kept_groups.begin());
      std::sort(kept_groups.begin(), kept_groups.end());
      for (int32_t g : kept_groups) {
        for (int64_t e = g * group_size; e < (g + 1) * group_size; ++e) {
          best_experts.offer(choice[e], static_cast<int32_t>(e));
        }
      }
    }
    std::copy_n(best_experts.indices(), rule.top_k, ids);
    detail::write_weights(rule, scores.data(), ids, weights);
  }
}

}  // namespace dopant::topk_kernels
