// DeviceAdamW: torch.optim.AdamW with every state tensor (exp_avg, exp_avg_sq and, for bf16
// and fp16 parameters, fp32 master weights) in the run's device memory. On a CPU run the
// update runs on host->parallel_for with the dopant_adamw_kernels CPU variant; on a GPU run
// it is one multi-tensor CUDA launch per run of tensors with the same dtype and step
// scalars. Both give the kernel reference's bits, which are PyTorch 1.13's.
#pragma once

#include <dopant/sdk/sdk.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "dopant/adamw_kernels/kernels.hpp"
#include "dopant/adamw_common/hyper_params.hpp"
#include "dopant/adamw_common/state_transfer.hpp"

namespace dopant::adamw_plugin {

class DeviceAdamW {
 public:
  DeviceAdamW(const dpt_host* host, const sdk::Config& config);

  void add_param_group(const dpt_param_group& group);
  void step(const dpt_step_args& args, dpt_stream* stream);
  void export_state(const sdk::StateVisitor& visit) const;
  void import_state(const char* tensor_name, const char* state, const DLTensor& value);
  dpt_optimizer_memory memory() const;

 private:
  // One parameter tensor: borrowed parameter and gradient, owned device state.
  struct Tensor {
    std::string name;
    size_t group;
    adamw_kernels::ParamDtype dtype;
    void* param;                   // [count] dtype, device memory, updated in place
    const void* grad;              // [count] dtype, device memory
    uint64_t count;
    std::vector<int64_t> shape;    // the parameter's, for exported views
    uint64_t step = 0;             // PyTorch's state['step']
    sdk::Allocation exp_avg;       // [count] fp32
    sdk::Allocation exp_avg_sq;    // [count] fp32
    sdk::Allocation master;        // [count] fp32 for bf16/fp16; empty for fp32

    adamw_kernels::TensorRefs refs() const;
  };

  Tensor make_tensor(const dpt_param_group& group, uint32_t index) const;
  // `moved`: this step's gradients, one per tensor, or nullptr for each tensor's own.
  void step_cpu(const dpt_step_args& args, const DLTensor* moved);
  void step_gpu(const dpt_step_args& args, const DLTensor* moved, dpt_stream* stream);
  adamw_kernels::TensorRefs refs_for(size_t index, const DLTensor* moved) const;
  // The scalars of the coming step (the tensor's step + 1).
  adamw_kernels::StepScalars scalars_for(const Tensor& tensor, const dpt_step_args& args) const;
  Tensor& find(const char* name);

  const dpt_host* host_;
  int32_t device_index_ = 0;
  bool on_gpu_;
  adamw_kernels::Variant cpu_variant_;
  adamw_common::GroupHyper defaults_;
  std::vector<adamw_common::GroupHyper> groups_;
  std::vector<Tensor> tensors_;
  // Declared last, so destroyed first: it waits for the last step before state is freed.
  adamw_common::StateCopies copies_;
};

}  // namespace dopant::adamw_plugin
