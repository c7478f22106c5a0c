// The least-squares problem of the optimizer checks.
#include "optimizer_problem.hpp"

#include <dopant/sdk/tensors.hpp>

#include <cmath>
#include <cstring>
#include <random>

namespace dopant::conformance {

OptimizerProblem::OptimizerProblem(const dpt_host* host, const std::string& prefix,
                                   uint32_t seed, std::vector<int64_t> sizes)
    : host_(host), sizes_(std::move(sizes)) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (size_t i = 0; i < sizes_.size(); ++i) {
    const auto count = static_cast<size_t>(sizes_[i]);
    names_.push_back(prefix + "." + std::to_string(i));
    param_memory_.emplace_back(host_, DPT_MEMORY_DEVICE, count * sizeof(float));
    grad_memory_.emplace_back(host_, DPT_MEMORY_DEVICE, count * sizeof(float));
    targets_.emplace_back(count);
    for (size_t k = 0; k < count; ++k) {
      param_memory_.back().as<float>()[k] = uniform(random);
      targets_.back()[k] = uniform(random);
    }
  }
  for (size_t i = 0; i < sizes_.size(); ++i) {
    name_pointers_.push_back(names_[i].c_str());
    params_.push_back(DLTensor{param_memory_[i].data(), {kDLCPU, 0}, 1, sdk::kFloat32,
                               &sizes_[i], &unit_stride_, 0});
    grads_.push_back(DLTensor{grad_memory_[i].data(), {kDLCPU, 0}, 1, sdk::kFloat32,
                              &sizes_[i], &unit_stride_, 0});
  }
  zero_grads();
}

dpt_param_group OptimizerProblem::group(double lr, double weight_decay) const {
  const double configured = std::nan("");
  return dpt_param_group{DPT_PARAM_GROUP_SIZE_1_0, nullptr, "conformance",
                         lr, configured, configured, configured, weight_decay,
                         static_cast<uint32_t>(params_.size()), name_pointers_.data(),
                         params_.data(), grads_.data()};
}

std::vector<float> OptimizerProblem::params() const {
  std::vector<float> values;
  for (size_t i = 0; i < sizes_.size(); ++i) {
    const float* p = param_memory_[i].as<float>();
    values.insert(values.end(), p, p + sizes_[i]);
  }
  return values;
}

void OptimizerProblem::set_params(const std::vector<float>& values) {
  size_t offset = 0;
  for (size_t i = 0; i < sizes_.size(); ++i) {
    std::memcpy(param_memory_[i].data(), values.data() + offset, sizes_[i] * sizeof(float));
    offset += static_cast<size_t>(sizes_[i]);
  }
}

void OptimizerProblem::zero_grads() {
  for (size_t i = 0; i < sizes_.size(); ++i) {
    std::memset(grad_memory_[i].data(), 0, sizes_[i] * sizeof(float));
  }
}

void OptimizerProblem::quadratic_grads() {
  for (size_t i = 0; i < sizes_.size(); ++i) {
    const float* p = param_memory_[i].as<float>();
    float* g = grad_memory_[i].as<float>();
    for (int64_t k = 0; k < sizes_[i]; ++k) g[k] = p[k] - targets_[i][k];
  }
}

std::vector<DLTensor> OptimizerProblem::moved_grads(std::vector<sdk::Allocation>& memory) {
  memory.clear();
  std::vector<DLTensor> views;
  for (size_t i = 0; i < sizes_.size(); ++i) {
    memory.emplace_back(host_, DPT_MEMORY_DEVICE, sizes_[i] * sizeof(float));
    std::memcpy(memory.back().data(), grad_memory_[i].data(), sizes_[i] * sizeof(float));
    views.push_back(DLTensor{memory.back().data(), {kDLCPU, 0}, 1, sdk::kFloat32,
                             &sizes_[i], &unit_stride_, 0});
  }
  return views;
}

double OptimizerProblem::loss() const {
  double sum = 0.0;
  for (size_t i = 0; i < sizes_.size(); ++i) {
    const float* p = param_memory_[i].as<float>();
    for (int64_t k = 0; k < sizes_[i]; ++k) {
      const double d = static_cast<double>(p[k]) - targets_[i][k];
      sum += 0.5 * d * d;
    }
  }
  return sum;
}

dpt_step_args unit_step_args() { return DPT_STEP_ARGS_INIT; }

}  // namespace dopant::conformance
