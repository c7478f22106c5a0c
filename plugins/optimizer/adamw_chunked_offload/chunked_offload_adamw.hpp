// ChunkedOffloadAdamW: torch.optim.AdamW with the state (exp_avg, exp_avg_sq and, for bf16
// and fp16 parameters, fp32 master weights) of the offloaded tensors in pinned host memory
// between steps. Each step streams that state through two device slots of at most `chunk`
// bytes (cpu_pipeline.hpp, cuda_pipeline.hpp) and updates it with the dopant_adamw_kernels
// update that `adamw` uses, so both plugins give the same bits. Tensors not offloaded
// (offload_fraction < 1) keep their state on the device, as in `adamw`.
#pragma once

#include <dopant/sdk/sdk.hpp>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dopant/adamw_kernels/kernels.hpp"
#include "dopant/adamw_common/hyper_params.hpp"
#include "dopant/adamw_common/state_transfer.hpp"
#include "state_layout.hpp"
#include "step_work.hpp"
#ifdef DOPANT_ADAMW_HAVE_CUDA
#include "cuda_pipeline.hpp"
#endif

namespace dopant::adamw_offload {

class ChunkedOffloadAdamW {
 public:
  ChunkedOffloadAdamW(const dpt_host* host, const sdk::Config& config);

  void add_param_group(const dpt_param_group& group);
  void step(const dpt_step_args& args, dpt_stream* stream);
  void export_state(const sdk::StateVisitor& visit) const;
  void import_state(const char* tensor_name, const char* state, const DLTensor& value);
  dpt_optimizer_memory memory() const;

 private:
  // A block of state with the layout of state_layout.hpp, in pinned host or device memory.
  struct StateImage {
    std::byte* home;
    dpt_memory_kind kind;
    ImageLayout layout;
  };
  // Segment `segment` of image `image` of streamed_ (or resident_) holds part of a tensor.
  struct StatePart {
    bool streamed;
    uint32_t image;
    uint32_t segment;
  };
  // One parameter tensor: borrowed parameter and gradient, and where its state is.
  struct Tensor {
    std::string name;
    size_t group;
    adamw_kernels::ParamDtype dtype;
    void* param;                 // [count] dtype, device memory, updated in place
    const void* grad;            // [count] dtype, device memory
    uint64_t count;
    std::vector<int64_t> shape;  // the parameter's, for exported views
    uint64_t step = 0;           // PyTorch's state['step']
    std::vector<StatePart> parts;

    uint32_t arrays() const { return dtype == adamw_kernels::ParamDtype::f32 ? 2 : 3; }
  };

  void place_images(std::vector<ImageLayout> layouts, dpt_memory_kind kind,
                    sdk::Allocation& memory, bool streamed);
  void initialize_state(size_t first_tensor);
  void build_work();
  void point_grads_at(const DLTensor* moved);
  const StateImage& image_of(const StatePart& part) const;
  void read_array(const Tensor& t, adamw_common::StateArray array, float* out) const;
  void write_array(const Tensor& t, adamw_common::StateArray array, const float* in);
  void zero(std::byte* memory, dpt_memory_kind kind, uint64_t bytes) const;
  Tensor& find(const char* name);

  const dpt_host* host_;
  int32_t device_index_ = 0;  // before on_gpu_, whose initializer sets it
  bool on_gpu_;
  adamw_kernels::Variant cpu_variant_;
  adamw_common::GroupHyper defaults_;
  uint64_t chunk_bytes_;
  double offload_fraction_;
  std::vector<adamw_common::GroupHyper> groups_;
  std::vector<Tensor> tensors_;
  std::vector<StateImage> streamed_;   // pinned host homes, streamed in this order each step
  std::vector<StateImage> resident_;   // device memory, updated in place
  std::vector<sdk::Allocation> homes_;  // the memory of all images: one block per kind and group
  std::array<sdk::Allocation, 2> slots_;
  StepWork work_;
  bool grads_moved_ = false;  // the last step read per-step gradients
#ifdef DOPANT_ADAMW_HAVE_CUDA
  std::unique_ptr<CudaPipeline> cuda_;
#endif
  // Declared last, so destroyed first: it waits for the last step before the slots, the
  // images and the pipeline's streams go.
  adamw_common::StateCopies copies_;
};

}  // namespace dopant::adamw_offload
