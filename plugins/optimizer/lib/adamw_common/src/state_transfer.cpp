// StateCopies, visit_torch_state and parse_import (see state_transfer.hpp).
#include "dopant/adamw_common/state_transfer.hpp"

#include <dopant/sdk/errors.hpp>

#include <cmath>
#include <cstring>

namespace dopant::adamw_common {

StateCopies::StateCopies(const dpt_host* host) : host_(host) {
  try {
    sdk::check(host_, host_->stream_create(host_, &stream_));
    sdk::check(host_, host_->event_create(host_, &step_done_));
  } catch (...) {
    release();
    throw;
  }
}

StateCopies::~StateCopies() {
  sdk::guard_and_log(host_, "waiting for the last optimizer step", [&] { wait_for_steps(); });
  release();
}

void StateCopies::release() noexcept {
  if (step_done_ != nullptr) host_->event_destroy(host_, step_done_);
  host_->stream_destroy(host_, stream_);
}

void StateCopies::step_queued(dpt_stream* stream) {
  sdk::check(host_, host_->event_record(host_, step_done_, stream));
}

// An event never recorded counts as complete: before the first step this returns at once.
void StateCopies::wait_for_steps() const {
  sdk::check(host_, host_->event_synchronize(host_, step_done_));
}

void StateCopies::copy(void* dst, dpt_memory_kind dst_kind, const void* src,
                       dpt_memory_kind src_kind, uint64_t bytes) const {
  if (bytes == 0) return;
  sdk::check(host_, host_->copy(host_, dst, dst_kind, src, src_kind, bytes, stream_));
  sdk::check(host_, host_->stream_synchronize(host_, stream_));
}

void StateCopies::upload(void* device_dst, const void* host_src, uint64_t bytes) const {
  copy(device_dst, DPT_MEMORY_DEVICE, host_src, DPT_MEMORY_HOST, bytes);
}

void StateCopies::download(void* host_dst, const void* device_src, uint64_t bytes) const {
  copy(host_dst, DPT_MEMORY_HOST, device_src, DPT_MEMORY_DEVICE, bytes);
}

std::vector<float> StateCopies::download_widened(adamw_kernels::Variant variant,
                                                 adamw_kernels::ParamDtype dtype,
                                                 const void* device_param, uint64_t count) const {
  std::vector<uint16_t> narrow(count);
  download(narrow.data(), device_param, count * sizeof(uint16_t));
  std::vector<float> wide(count);
  adamw_kernels::widen_to_float(variant, dtype, narrow.data(), wide.data(), count);
  return wide;
}

void visit_torch_state(const sdk::StateVisitor& visit, const std::string& name,
                       const std::vector<int64_t>& shape, const HostState& state) {
  const float step = static_cast<float>(state.step);
  int64_t no_dims = 0;
  visit(name.c_str(), "step",
        DLTensor{const_cast<float*>(&step), {kDLCPU, 0}, 0, sdk::kFloat32, &no_dims, &no_dims,
                 0});
  std::vector<int64_t> strides(shape.size());
  int64_t stride = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    strides[d] = stride;
    stride *= shape[d];
  }
  const auto visit_floats = [&](const char* state_name, const std::vector<float>& values) {
    visit(name.c_str(), state_name,
          DLTensor{const_cast<float*>(values.data()), {kDLCPU, 0},
                   static_cast<int>(shape.size()), sdk::kFloat32,
                   const_cast<int64_t*>(shape.data()), strides.data(), 0});
  };
  visit_floats("exp_avg", state.exp_avg);
  visit_floats("exp_avg_sq", state.exp_avg_sq);
  if (state.has_master) visit_floats("master", state.master);
}

ImportTarget parse_import(const std::string& name, const char* state, const DLTensor& value,
                          uint64_t count, uint32_t arrays) {
  const std::string what = std::string("state `") + state + "` of `" + name + "`";
  sdk::require(sdk::is_contiguous(value), what + ": not contiguous");
  if (std::strcmp(state, "step") == 0) {
    sdk::require(sdk::element_count(value) == 1 && sdk::is_fp32(value),
                 what + ": expected one fp32 value");
    const float step = *sdk::data_as<const float>(value);
    sdk::require(step >= 0.0f && std::floor(step) == step, what + ": not a step count");
    return ImportTarget{true, static_cast<uint64_t>(step), {}};
  }
  ImportTarget target;
  if (std::strcmp(state, "exp_avg") == 0) {
    target.array = StateArray::exp_avg;
  } else if (std::strcmp(state, "exp_avg_sq") == 0) {
    target.array = StateArray::exp_avg_sq;
  } else if (std::strcmp(state, "master") == 0 && arrays == 3) {
    target.array = StateArray::master;
  } else {
    sdk::fail(DPT_NOT_FOUND, "adamw has no " + what);
  }
  sdk::require(sdk::is_fp32(value) && static_cast<uint64_t>(sdk::element_count(value)) == count,
               what + ": expected " + std::to_string(count) + " fp32 elements");
  return target;
}

}  // namespace dopant::adamw_common
