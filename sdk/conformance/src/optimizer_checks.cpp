// Functional checks of "dopant.optimizer/1" plugins on fp32 tensors of awkward sizes: zero
// gradients change nothing, steps descend a quadratic, exported state restores bit-exactly,
// instances do not share state, per-step gradients update like gradients in place, bad
// groups (a shape whose size wraps 64 bits among them) are refused with a message, and
// `memory` (when provided) agrees with what the host accounted, from above and below.
#include "optimizer_problem.hpp"
#include "outcome.hpp"
#include "registry.hpp"

#include <dopant/sdk/tensors.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace dopant::conformance {

namespace {

constexpr double kLr = 1e-3;
constexpr uint32_t kSeed = 7;

const dpt_host* host_of(const Target& target) { return dpt_runtime_host(target.runtime); }

// Adds the problem's group to the instance: "" or the error (for ASSERT_EQ("", ...)).
std::string add_group(const PluginInstance& optimizer, const OptimizerProblem& problem,
                      double weight_decay) {
  const dpt_param_group group = problem.group(kLr, weight_decay);
  return ok_or_message(
      optimizer.table<dpt_optimizer_v1>().add_param_group(optimizer.handle(), &group));
}

// One step with unit scales: "" or the error.
std::string step(const PluginInstance& optimizer) {
  const dpt_step_args args = unit_step_args();
  return ok_or_message(
      optimizer.table<dpt_optimizer_v1>().step(optimizer.handle(), &args, nullptr));
}

bool bit_identical(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

void check_zero_grads_keep_params(const Target& target) {
  PluginInstance optimizer(target);
  ASSERT_TRUE(optimizer.ok());
  OptimizerProblem problem(host_of(target), "zero", kSeed);
  const std::vector<float> before = problem.params();
  ASSERT_EQ("", add_group(optimizer, problem, 0.0));
  for (int i = 0; i < 3; ++i) ASSERT_EQ("", step(optimizer));
  EXPECT_TRUE(bit_identical(before, problem.params()))
      << "zero gradients with weight_decay 0 changed the parameters";
}

void check_quadratic_descent(const Target& target) {
  PluginInstance optimizer(target);
  ASSERT_TRUE(optimizer.ok());
  OptimizerProblem problem(host_of(target), "quadratic", kSeed);
  ASSERT_EQ("", add_group(optimizer, problem, 0.0));
  const double initial = problem.loss();
  for (int i = 0; i < 5; ++i) {
    problem.quadratic_grads();
    ASSERT_EQ("", step(optimizer));
  }
  const double final_loss = problem.loss();
  EXPECT_TRUE(std::isfinite(final_loss));
  EXPECT_LT(final_loss, initial) << "5 steps with lr " << kLr << " on ½‖p−t‖² did not descend";
}

// One exported state tensor, copied out of the visitor's view.
struct SavedState {
  std::string tensor, state;
  DLDataType dtype;
  std::vector<int64_t> shape, strides;
  std::vector<char> bytes;
};

struct Saver {
  const dpt_host* host;
  std::vector<SavedState> states;
};

dpt_error* save_state(void* context, const char* tensor, const char* state, const DLTensor* v) {
  auto& saver = *static_cast<Saver*>(context);
  if (tensor == nullptr || state == nullptr || v == nullptr || !sdk::is_contiguous(*v)) {
    return saver.host->error(saver.host, DPT_INVALID_ARGUMENT,
                             "export_state gave a NULL name or a non-contiguous view");
  }
  SavedState saved{tensor, state, v->dtype, std::vector<int64_t>(v->shape, v->shape + v->ndim),
                   std::vector<int64_t>(v->ndim), {}};
  int64_t stride = 1;
  for (int d = v->ndim - 1; d >= 0; --d) {
    saved.strides[d] = stride;
    stride *= v->shape[d];
  }
  const char* data = sdk::data_as<const char>(*v);
  saved.bytes.assign(data, data + sdk::byte_size(*v));
  saver.states.push_back(std::move(saved));
  return nullptr;
}

void check_state_round_trip(const Target& target) {
  const dpt_host* host = host_of(target);
  PluginInstance original(target);
  PluginInstance restored(target);
  ASSERT_TRUE(original.ok() && restored.ok());
  OptimizerProblem a(host, "state", kSeed);
  OptimizerProblem b(host, "state", kSeed);
  ASSERT_EQ("", add_group(original, a, 0.01));
  for (int i = 0; i < 3; ++i) {
    a.quadratic_grads();
    ASSERT_EQ("", step(original));
  }
  Saver saver{host, {}};
  ASSERT_EQ("", ok_or_message(original.table<dpt_optimizer_v1>().export_state(
                    original.handle(), &save_state, &saver)));

  b.set_params(a.params());
  ASSERT_EQ("", add_group(restored, b, 0.01));
  for (SavedState& s : saver.states) {
    const DLTensor view{s.bytes.data(), {kDLCPU, 0}, static_cast<int>(s.shape.size()), s.dtype,
                        s.shape.data(), s.strides.data(), 0};
    ASSERT_EQ("", ok_or_message(restored.table<dpt_optimizer_v1>().import_state(
                      restored.handle(), s.tensor.c_str(), s.state.c_str(), &view)))
        << "importing `" << s.state << "` of `" << s.tensor << "`";
  }
  a.quadratic_grads();
  b.quadratic_grads();
  ASSERT_EQ("", step(original));
  ASSERT_EQ("", step(restored));
  EXPECT_TRUE(bit_identical(a.params(), b.params()))
      << "after import of " << saver.states.size()
      << " exported state tensors, one more step differs from the original instance";
}

void check_instances_independent(const Target& target) {
  const dpt_host* host = host_of(target);
  PluginInstance busy(target);
  PluginInstance quiet(target);
  ASSERT_TRUE(busy.ok() && quiet.ok());
  OptimizerProblem busy_problem(host, "independent", kSeed);
  OptimizerProblem quiet_problem(host, "independent", kSeed);
  ASSERT_EQ("", add_group(busy, busy_problem, 0.0));
  ASSERT_EQ("", add_group(quiet, quiet_problem, 0.0));
  for (int i = 0; i < 3; ++i) {
    busy_problem.quadratic_grads();
    ASSERT_EQ("", step(busy));
  }
  PluginInstance fresh(target);
  ASSERT_TRUE(fresh.ok());
  OptimizerProblem fresh_problem(host, "independent", kSeed);
  ASSERT_EQ("", add_group(fresh, fresh_problem, 0.0));
  quiet_problem.quadratic_grads();
  fresh_problem.quadratic_grads();
  ASSERT_EQ("", step(quiet));
  ASSERT_EQ("", step(fresh));
  EXPECT_TRUE(bit_identical(quiet_problem.params(), fresh_problem.params()))
      << "steps of one instance changed what another instance computes";
}

// Gradients at new addresses every step (dpt_step_args.grads, minor 3) give bit for bit what
// the same gradients written in place give; a later step without them reads the group's.
void check_per_step_gradients(const Target& target) {
  if (target.info->library_abi_minor < 3) {
    GTEST_SKIP() << "built against ABI minor " << target.info->library_abi_minor
                 << ", before per-step gradients";
  }
  const dpt_host* host = host_of(target);
  PluginInstance in_place(target);
  PluginInstance moving(target);
  ASSERT_TRUE(in_place.ok() && moving.ok());
  OptimizerProblem a(host, "moving", kSeed);
  OptimizerProblem b(host, "moving", kSeed);  // its own gradients stay zero
  ASSERT_EQ("", add_group(in_place, a, 0.01));
  ASSERT_EQ("", add_group(moving, b, 0.01));
  std::vector<sdk::Allocation> memory;
  for (int i = 0; i < 3; ++i) {
    a.quadratic_grads();
    ASSERT_EQ("", step(in_place));
    const std::vector<DLTensor> grads = a.moved_grads(memory);
    dpt_step_args args = unit_step_args();
    args.grad_count = static_cast<uint32_t>(grads.size());
    args.grads = grads.data();
    ASSERT_EQ("", ok_or_message(moving.table<dpt_optimizer_v1>().step(moving.handle(), &args, nullptr)));
  }
  EXPECT_TRUE(bit_identical(a.params(), b.params()))
      << "steps given their gradients in dpt_step_args.grads differ from steps over the same "
         "gradients given to add_param_group";
  a.zero_grads();
  ASSERT_EQ("", step(in_place));
  ASSERT_EQ("", step(moving));
  EXPECT_TRUE(bit_identical(a.params(), b.params()))
      << "a step without per-step gradients did not read the group's gradients";
}

// Expects add_param_group to refuse `group` with a message.
void expect_refused(const PluginInstance& optimizer, const dpt_param_group& group,
                    const char* what) {
  const Outcome outcome =
      take(optimizer.table<dpt_optimizer_v1>().add_param_group(optimizer.handle(), &group));
  EXPECT_TRUE(outcome.failed) << what << " was accepted";
  EXPECT_TRUE(!outcome.failed || !outcome.message.empty()) << what << ": empty error message";
}

// One-tensor group over caller-owned views.
dpt_param_group single_group(const char* const* names, const DLTensor* params,
                             const DLTensor* grads, uint32_t count) {
  const double configured = std::nan("");
  return dpt_param_group{DPT_PARAM_GROUP_SIZE_1_0, nullptr, "conformance-bad", kLr,
                         configured, configured, configured, 0.0, count, names, params, grads};
}

void check_rejects_shape_mismatch(const Target& target) {
  PluginInstance optimizer(target);
  ASSERT_TRUE(optimizer.ok());
  std::vector<float> param(7), grad(8);
  int64_t param_shape[] = {7}, grad_shape[] = {8}, stride[] = {1};
  const DLTensor p{param.data(), {kDLCPU, 0}, 1, sdk::kFloat32, param_shape, stride, 0};
  const DLTensor g{grad.data(), {kDLCPU, 0}, 1, sdk::kFloat32, grad_shape, stride, 0};
  const char* names[] = {"mismatch"};
  expect_refused(optimizer, single_group(names, &p, &g, 1), "param [7] with grad [8]");
}

void check_rejects_duplicate_names(const Target& target) {
  std::vector<float> memory(4 * 7);
  int64_t shape[] = {7}, stride[] = {1};
  DLTensor views[4];
  for (int i = 0; i < 4; ++i) {
    views[i] = DLTensor{memory.data() + 7 * i, {kDLCPU, 0}, 1, sdk::kFloat32, shape, stride, 0};
  }
  const char* twice[] = {"same", "same"};
  {
    PluginInstance optimizer(target);
    ASSERT_TRUE(optimizer.ok());
    expect_refused(optimizer, single_group(twice, &views[0], &views[2], 2),
                   "a group naming two tensors `same`");
  }
  PluginInstance optimizer(target);
  ASSERT_TRUE(optimizer.ok());
  const dpt_param_group first = single_group(twice, &views[0], &views[1], 1);
  ASSERT_EQ("", ok_or_message(optimizer.table<dpt_optimizer_v1>().add_param_group(
                    optimizer.handle(), &first)));
  expect_refused(optimizer, single_group(twice, &views[2], &views[3], 1),
                 "a second group reusing the tensor name `same`");
}

void check_rejects_int32(const Target& target) {
  PluginInstance optimizer(target);
  ASSERT_TRUE(optimizer.ok());
  std::vector<int32_t> param(7), grad(7);
  int64_t shape[] = {7}, stride[] = {1};
  const DLTensor p{param.data(), {kDLCPU, 0}, 1, sdk::kInt32, shape, stride, 0};
  const DLTensor g{grad.data(), {kDLCPU, 0}, 1, sdk::kInt32, shape, stride, 0};
  const char* names[] = {"integers"};
  expect_refused(optimizer, single_group(names, &p, &g, 1), "an int32 tensor");
}

// A shape whose element count wraps 64 bits (2^62 x 4 = 0 mod 2^64) over a few real floats:
// a plugin that multiplies without checking sizes it as empty or tiny, then reads past it.
void check_rejects_wrapping_shape(const Target& target) {
  PluginInstance optimizer(target);
  ASSERT_TRUE(optimizer.ok());
  std::vector<float> param(8), grad(8);
  int64_t shape[] = {int64_t{1} << 62, 4}, strides[] = {4, 1};
  const DLTensor p{param.data(), {kDLCPU, 0}, 2, sdk::kFloat32, shape, strides, 0};
  const DLTensor g{grad.data(), {kDLCPU, 0}, 2, sdk::kFloat32, shape, strides, 0};
  const char* names[] = {"wrapping"};
  expect_refused(optimizer, single_group(names, &p, &g, 1), "a [2^62, 4] tensor");
}

dpt_memory_stats device_stats(const dpt_host* host) {
  dpt_memory_stats stats{};
  stats.struct_size = DPT_MEMORY_STATS_SIZE_1_0;
  EXPECT_EQ("", ok_or_message(host->memory_stats(host, DPT_MEMORY_DEVICE, &stats)));
  return stats;
}

void check_memory_accounted(const Target& target) {
  const dpt_host* host = host_of(target);
  OptimizerProblem problem(host, "memory", kSeed);
  dpt_runtime_reset_memory_peaks(target.runtime);
  const dpt_memory_stats before = device_stats(host);
  PluginInstance optimizer(target);
  ASSERT_TRUE(optimizer.ok());
  const auto& table = optimizer.table<dpt_optimizer_v1>();
  if (table.struct_size < DPT_OPTIMIZER_V1_SIZE_1_1 || table.memory == nullptr) {
    GTEST_SKIP() << "the plugin does not provide `memory`";
  }
  ASSERT_EQ("", add_group(optimizer, problem, 0.0));
  problem.quadratic_grads();
  ASSERT_EQ("", step(optimizer));
  dpt_optimizer_memory reported{DPT_OPTIMIZER_MEMORY_SIZE_1_0, 0, 0, 0};
  ASSERT_EQ("", ok_or_message(table.memory(optimizer.handle(), &reported)));
  const dpt_memory_stats after = device_stats(host);
  EXPECT_LE(reported.device_state_bytes, after.current_bytes - before.current_bytes)
      << "device state reported beyond what the host allocated for this instance";
  EXPECT_LE(reported.device_state_bytes + reported.device_staging_bytes,
            after.peak_bytes - before.current_bytes)
      << "device state + staging reported beyond the host's peak for this instance";
  // And from below: what the instance still holds on the device after a step is its state
  // or its staging, so the report must cover it.
  EXPECT_GE(reported.device_state_bytes + reported.device_staging_bytes,
            after.current_bytes - before.current_bytes)
      << "the instance holds device memory that `memory` does not report";
}

}  // namespace

void register_optimizer_checks(const Target& target) {
  add_check(target, "optimizer_zero_grads_keep_params",
            [target] { check_zero_grads_keep_params(target); });
  add_check(target, "optimizer_quadratic_descent", [target] { check_quadratic_descent(target); });
  add_check(target, "optimizer_state_round_trip", [target] { check_state_round_trip(target); });
  add_check(target, "optimizer_instances_independent",
            [target] { check_instances_independent(target); });
  add_check(target, "optimizer_per_step_gradients", [target] { check_per_step_gradients(target); });
  add_check(target, "optimizer_rejects_shape_mismatch",
            [target] { check_rejects_shape_mismatch(target); });
  add_check(target, "optimizer_rejects_duplicate_names",
            [target] { check_rejects_duplicate_names(target); });
  add_check(target, "optimizer_rejects_int32", [target] { check_rejects_int32(target); });
  add_check(target, "optimizer_rejects_wrapping_shape", [target] { check_rejects_wrapping_shape(target); });
  add_check(target, "optimizer_memory_accounted", [target] { check_memory_accounted(target); });
}

}  // namespace dopant::conformance
