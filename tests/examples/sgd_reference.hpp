// A plain C++ SGD with momentum (torch.optim.SGD semantics, fp32 arithmetic in the same
// order as the c-sgd example plugin), used to check the plugin's results.
#pragma once

#include <cstddef>
#include <vector>

namespace dopant::tests {

// As written in the config; rounded to fp32 once, like the plugin does.
struct SgdSettings {
  double lr = 1e-3;
  double momentum = 0.0;
  double dampening = 0.0;
  double weight_decay = 0.0;
  bool nesterov = false;
};

// One parameter tensor and its momentum buffer (empty until the first step with momentum).
class SgdReference {
 public:
  explicit SgdReference(const SgdSettings& settings)
      : lr_(static_cast<float>(settings.lr)),
        momentum_(static_cast<float>(settings.momentum)),
        one_minus_dampening_(static_cast<float>(1.0 - settings.dampening)),
        weight_decay_(static_cast<float>(settings.weight_decay)),
        nesterov_(settings.nesterov) {}

  // params -= lr * update(grads); grads are not loss-scaled.
  void step(std::vector<float>& params, const std::vector<float>& grads) {
    const bool first = buffer_.empty();
    if (momentum_ != 0.0f && first) buffer_.resize(params.size());
    for (size_t i = 0; i < params.size(); ++i) {
      float g = grads[i];
      if (weight_decay_ != 0.0f) g = g + weight_decay_ * params[i];
      if (momentum_ != 0.0f) {
        buffer_[i] = first ? g : momentum_ * buffer_[i] + one_minus_dampening_ * g;
        g = nesterov_ ? g + momentum_ * buffer_[i] : buffer_[i];
      }
      params[i] = params[i] - lr_ * g;
    }
  }

 private:
  float lr_;
  float momentum_;
  float one_minus_dampening_;
  float weight_decay_;
  bool nesterov_;
  std::vector<float> buffer_;  // momentum buffer, [params.size()]
};

}  // namespace dopant::tests
