// The least-squares problem the optimizer checks drive: f(p) = ½‖p − t‖² over fp32 tensors
// of awkward sizes ([1], [7], [1023]) in device memory from the host, handed to an optimizer
// as one param group whose gradients the problem rewrites in place between steps (or copies
// to new memory, for per-step gradients).
#pragma once

#include <dopant/optimizer.h>
#include <dopant/sdk/memory.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace dopant::conformance {

class OptimizerProblem {
 public:
  // Parameters and targets are drawn uniformly from [-1, 1] with `seed`; tensor names are
  // "<prefix>.<index>". The CPU device is assumed (memory is written directly).
  OptimizerProblem(const dpt_host* host, const std::string& prefix, uint32_t seed,
                   std::vector<int64_t> sizes = {1, 7, 1023});
  OptimizerProblem(const OptimizerProblem&) = delete;
  OptimizerProblem& operator=(const OptimizerProblem&) = delete;

  // The group over every tensor; NaN beta1/beta2/eps take the plugin's configured values.
  dpt_param_group group(double lr, double weight_decay) const;

  std::vector<float> params() const;  // all tensors, concatenated
  void set_params(const std::vector<float>& values);
  void zero_grads();
  void quadratic_grads();  // g = p − t
  // Views of a copy of the current gradients in fresh device memory (owned by `memory`),
  // as a caller whose gradients move every step passes them in dpt_step_args.grads.
  std::vector<DLTensor> moved_grads(std::vector<sdk::Allocation>& memory);
  double loss() const;

 private:
  const dpt_host* host_;
  std::vector<int64_t> sizes_;  // also the shape storage of the views
  int64_t unit_stride_ = 1;
  std::vector<std::string> names_;
  std::vector<const char*> name_pointers_;
  std::vector<sdk::Allocation> param_memory_;
  std::vector<sdk::Allocation> grad_memory_;
  std::vector<std::vector<float>> targets_;
  std::vector<DLTensor> params_;
  std::vector<DLTensor> grads_;
};

// One step with unit scales.
dpt_step_args unit_step_args();

}  // namespace dopant::conformance
