// ChunkedOffloadAdamW: placing each group's state (offload choice, image planning, one
// allocation per memory kind), the step, and state export and import under PyTorch's names.
#include "chunked_offload_adamw.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <unordered_set>
#include <utility>

#include "cpu_pipeline.hpp"
#include "dopant/adamw_common/param_checks.hpp"
#include "offload_choice.hpp"
#ifdef DOPANT_ADAMW_HAVE_CUDA
#include "dopant/adamw_kernels/cuda_step.hpp"
#endif

namespace dopant::adamw_offload {
namespace {

uint64_t total_bytes(const std::vector<ImageLayout>& images) {
  uint64_t total = 0;
  for (const ImageLayout& image : images) total += image.bytes;
  return total;
}

sdk::Allocation allocate(const dpt_host* host, dpt_memory_kind kind, uint64_t bytes) {
  return bytes == 0 ? sdk::Allocation() : sdk::Allocation(host, kind, bytes);
}

}  // namespace

ChunkedOffloadAdamW::ChunkedOffloadAdamW(const dpt_host* host, const sdk::Config& config)
    : host_(host),
      on_gpu_(host->device_is_gpu(host, &device_index_) != 0),
      cpu_variant_(adamw_kernels::active_variant()),
      defaults_(adamw_common::GroupHyper::configured(config)),
      chunk_bytes_(config.get_size("chunk")),
      offload_fraction_(config.get_float("offload_fraction")),
      copies_(host) {
#ifdef DOPANT_ADAMW_HAVE_CUDA
  if (on_gpu_) cuda_ = std::make_unique<CudaPipeline>(host_);
#else
  if (on_gpu_) sdk::fail(DPT_UNIMPLEMENTED, "adamw-chunked-offload was built without CUDA");
#endif
}

void ChunkedOffloadAdamW::add_param_group(const dpt_param_group& group) {
  std::unordered_set<std::string> taken;
  for (const Tensor& t : tensors_) taken.insert(t.name);
  adamw_common::check_group(group, taken, on_gpu_);

  const size_t first = tensors_.size();
  std::vector<Tensor> added;
  std::vector<uint64_t> state_bytes;
  for (uint32_t i = 0; i < group.tensor_count; ++i) {
    const DLTensor& param = group.params[i];
    const std::string name = group.tensor_names[i];
    Tensor t{name,
             groups_.size(),
             adamw_common::param_dtype(name, param),
             sdk::data_as<void>(param),
             sdk::data_as<const void>(group.grads[i]),
             static_cast<uint64_t>(sdk::element_count(param)),
             std::vector<int64_t>(param.shape, param.shape + param.ndim),
             0,
             {}};
    state_bytes.push_back(t.arrays() * array_bytes(t.count));
    added.push_back(std::move(t));
  }
  const std::vector<bool> offloaded = choose_offloaded(state_bytes, offload_fraction_);
  std::vector<TensorState> on_host, on_device;
  for (size_t i = 0; i < added.size(); ++i) {
    (offloaded[i] ? on_host : on_device)
        .push_back({static_cast<uint32_t>(first + i), added[i].count, added[i].arrays()});
  }
  std::vector<ImageLayout> streamed = plan_images(on_host, chunk_bytes_);
  std::vector<ImageLayout> resident =
      plan_images(on_device, std::numeric_limits<uint64_t>::max());

  // Allocate everything first, so a refused group leaves the instance unchanged.
  sdk::Allocation host_memory = allocate(host_, DPT_MEMORY_PINNED_HOST, total_bytes(streamed));
  sdk::Allocation device_memory = allocate(host_, DPT_MEMORY_DEVICE, total_bytes(resident));
  std::array<sdk::Allocation, 2> larger_slots;
  const uint64_t slot_bytes = largest_image_bytes(streamed);
  if (slot_bytes > slots_[0].bytes()) {
    for (sdk::Allocation& slot : larger_slots) {
      slot = sdk::Allocation(host_, DPT_MEMORY_DEVICE, slot_bytes);
    }
  }

  groups_.push_back(adamw_common::GroupHyper::resolve(group, defaults_));
  for (Tensor& t : added) tensors_.push_back(std::move(t));
  place_images(std::move(streamed), DPT_MEMORY_PINNED_HOST, host_memory, true);
  place_images(std::move(resident), DPT_MEMORY_DEVICE, device_memory, false);
  if (larger_slots[0].data() != nullptr) {
    copies_.wait_for_steps();  // the last step's loads, updates and stores use the old slots
    slots_ = std::move(larger_slots);
  }
  initialize_state(first);
  build_work();
}

void ChunkedOffloadAdamW::place_images(std::vector<ImageLayout> layouts, dpt_memory_kind kind,
                                       sdk::Allocation& memory, bool streamed) {
  if (memory.data() == nullptr) return;
  std::vector<StateImage>& images = streamed ? streamed_ : resident_;
  auto* next = memory.as<std::byte>();
  for (ImageLayout& layout : layouts) {
    const auto index = static_cast<uint32_t>(images.size());
    for (uint32_t s = 0; s < layout.segments.size(); ++s) {
      tensors_[layout.segments[s].tensor].parts.push_back(StatePart{streamed, index, s});
    }
    const uint64_t bytes = layout.bytes;
    images.push_back(StateImage{next, kind, std::move(layout)});
    next += bytes;
  }
  zero(memory.as<std::byte>(), kind, memory.bytes());
  homes_.push_back(std::move(memory));
}

void ChunkedOffloadAdamW::initialize_state(size_t first_tensor) {
  for (size_t i = first_tensor; i < tensors_.size(); ++i) {
    const Tensor& t = tensors_[i];
    if (t.dtype == adamw_kernels::ParamDtype::f32) continue;
    const std::vector<float> master =
        copies_.download_widened(cpu_variant_, t.dtype, t.param, t.count);
    write_array(t, adamw_common::StateArray::master, master.data());
  }
}

void ChunkedOffloadAdamW::build_work() {
  const auto work_of = [&](const StateImage& image) {
    ImageWork work{image.home, image.layout.bytes, {}};
    for (const Segment& s : image.layout.segments) {
      const Tensor& t = tensors_[s.tensor];
      const uint64_t skip = s.begin * adamw_kernels::param_bytes(t.dtype);
      work.segments.push_back(SegmentUpdate{
          t.dtype, s.tensor, static_cast<std::byte*>(t.param) + skip,
          static_cast<const std::byte*>(t.grad) + skip, s.count, s.array_offset(0),
          s.array_offset(1), s.arrays == 3 ? s.array_offset(2) : 0});
    }
    return work;
  };
  work_.scalars.resize(tensors_.size());
  work_.resident.clear();
  work_.streamed.clear();
  for (const StateImage& image : resident_) work_.resident.push_back(work_of(image));
  for (const StateImage& image : streamed_) work_.streamed.push_back(work_of(image));
}

// Points every segment's gradient into `moved` (one gradient per tensor; nullptr: each
// tensor's own), keeping its offset within the tensor: a segment's slice starts as far into
// the gradient as its parameter slice starts into the parameter.
void ChunkedOffloadAdamW::point_grads_at(const DLTensor* moved) {
  for (std::vector<ImageWork>* images : {&work_.resident, &work_.streamed}) {
    for (ImageWork& image : *images) {
      for (SegmentUpdate& s : image.segments) {
        const Tensor& t = tensors_[s.scalars];
        const auto skip = static_cast<std::byte*>(s.param) - static_cast<std::byte*>(t.param);
        const void* grad = moved != nullptr ? sdk::data_as<const void>(moved[s.scalars]) : t.grad;
        s.grad = static_cast<const std::byte*>(grad) + skip;
      }
    }
  }
}

void ChunkedOffloadAdamW::step(const dpt_step_args& args, [[maybe_unused]] dpt_stream* stream) {
  adamw_common::check_step_args(args);
  // Per-step gradients (or, after a step that had them, the group's own again).
  const DLTensor* moved = adamw_common::checked_step_gradients(args, tensors_, on_gpu_);
  if (moved != nullptr || grads_moved_) point_grads_at(moved);
  grads_moved_ = moved != nullptr;
  for (size_t i = 0; i < tensors_.size(); ++i) {
    const Tensor& t = tensors_[i];
    work_.scalars[i] = adamw_kernels::make_step_scalars(groups_[t.group].at_step(t.step + 1, args));
  }
  const std::array<std::byte*, 2> slots{slots_[0].as<std::byte>(), slots_[1].as<std::byte>()};
#ifdef DOPANT_ADAMW_HAVE_CUDA
  if (on_gpu_) {
    const adamw_kernels::cuda::DeviceScope scope(device_index_);  // any thread may call step
    cuda_->step(work_, slots, stream);
    copies_.step_queued(stream);
  }
#endif
  if (!on_gpu_) step_on_cpu(host_, cpu_variant_, work_, slots);  // complete when it returns
  // Counters advance only once the whole step is queued, so a failed step leaves them.
  for (Tensor& t : tensors_) ++t.step;
}

const ChunkedOffloadAdamW::StateImage& ChunkedOffloadAdamW::image_of(
    const StatePart& part) const {
  return (part.streamed ? streamed_ : resident_)[part.image];
}

void ChunkedOffloadAdamW::read_array(const Tensor& t, adamw_common::StateArray array,
                                     float* out) const {
  for (const StatePart& part : t.parts) {
    const StateImage& image = image_of(part);
    const Segment& s = image.layout.segments[part.segment];
    copies_.copy(out + s.begin, DPT_MEMORY_HOST,
                 image.home + s.array_offset(static_cast<uint32_t>(array)), image.kind,
                 s.count * sizeof(float));
  }
}

void ChunkedOffloadAdamW::write_array(const Tensor& t, adamw_common::StateArray array,
                                      const float* in) {
  for (const StatePart& part : t.parts) {
    const StateImage& image = image_of(part);
    const Segment& s = image.layout.segments[part.segment];
    copies_.copy(image.home + s.array_offset(static_cast<uint32_t>(array)), image.kind,
                 in + s.begin, DPT_MEMORY_HOST, s.count * sizeof(float));
  }
}

// Sets `bytes` at `memory` to zero: directly in (pinned) host memory, through copies of a
// bounded zero buffer in device memory.
void ChunkedOffloadAdamW::zero(std::byte* memory, dpt_memory_kind kind, uint64_t bytes) const {
  if (kind != DPT_MEMORY_DEVICE) {
    std::memset(memory, 0, bytes);
    return;
  }
  const std::vector<std::byte> zeros(std::min<uint64_t>(bytes, uint64_t{16} << 20));
  for (uint64_t done = 0; done < bytes; done += zeros.size()) {
    copies_.copy(memory + done, kind, zeros.data(), DPT_MEMORY_HOST,
                 std::min<uint64_t>(zeros.size(), bytes - done));
  }
}

void ChunkedOffloadAdamW::export_state(const sdk::StateVisitor& visit) const {
  copies_.wait_for_steps();
  for (const Tensor& t : tensors_) {
    adamw_common::HostState state{t.step, t.arrays() == 3, std::vector<float>(t.count),
                                  std::vector<float>(t.count), {}};
    read_array(t, adamw_common::StateArray::exp_avg, state.exp_avg.data());
    read_array(t, adamw_common::StateArray::exp_avg_sq, state.exp_avg_sq.data());
    if (state.has_master) {
      state.master.resize(t.count);
      read_array(t, adamw_common::StateArray::master, state.master.data());
    }
    adamw_common::visit_torch_state(visit, t.name, t.shape, state);
  }
}

void ChunkedOffloadAdamW::import_state(const char* tensor_name, const char* state,
                                       const DLTensor& value) {
  Tensor& t = find(tensor_name);
  const adamw_common::ImportTarget target =
      adamw_common::parse_import(t.name, state, value, t.count, t.arrays());
  if (target.is_step) {
    t.step = target.step;
    return;
  }
  copies_.wait_for_steps();
  write_array(t, target.array, sdk::data_as<const float>(value));
}

dpt_optimizer_memory ChunkedOffloadAdamW::memory() const {
  dpt_optimizer_memory out{DPT_OPTIMIZER_MEMORY_SIZE_1_0, 0, 0, 0};
  for (const sdk::Allocation& home : homes_) {
    (home.kind() == DPT_MEMORY_DEVICE ? out.device_state_bytes : out.host_state_bytes) +=
        home.bytes();
  }
  for (const sdk::Allocation& slot : slots_) out.device_staging_bytes += slot.bytes();
  return out;
}

ChunkedOffloadAdamW::Tensor& ChunkedOffloadAdamW::find(const char* name) {
  for (Tensor& t : tensors_) {
    if (t.name == name) return t;
  }
  sdk::fail(DPT_NOT_FOUND, std::string("no tensor named `") + name + "`");
}

}  // namespace dopant::adamw_offload
