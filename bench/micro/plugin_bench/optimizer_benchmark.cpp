// Standard input of the optimizer kind: one group of four fp32 tensors of uneven sizes
// (10/20/30/40 % of the total) in device memory; one iteration is one step. Reported as
// parameters per second.
#include "bench_runtime.hpp"

#include <cmath>
#include <limits>

namespace dopant::bench {
namespace {

void optimizer_step(benchmark::State& state, const std::string& plugin) {
  const uint64_t total = static_cast<uint64_t>(state.range(0));
  const dpt_host* host = dpt_runtime_host(runtime());
  Instance instance = create_instance(state, plugin);
  if (!instance) return;
  const auto* table = static_cast<const dpt_optimizer_v1*>(dpt_plugin_instance_table(instance.get()));

  DeviceBuffer params, grads;
  if (skip_on_error(state, host->alloc(host, DPT_MEMORY_DEVICE, total * 4, 0, &params.data)) ||
      skip_on_error(state, host->alloc(host, DPT_MEMORY_DEVICE, total * 4, 0, &grads.data))) {
    return;
  }
  auto* p = static_cast<float*>(params.data);
  auto* g = static_cast<float*>(grads.data);
  for (uint64_t i = 0; i < total; ++i) {
    p[i] = std::sin(0.001f * static_cast<float>(i));
    g[i] = 1e-3f * std::cos(0.003f * static_cast<float>(i));
  }

  const uint64_t sizes[4] = {total / 10, total / 5, total * 3 / 10, total - total / 10 - total / 5 - total * 3 / 10};
  std::vector<std::unique_ptr<TensorView>> param_views, grad_views;
  std::vector<DLTensor> param_tensors, grad_tensors;
  const char* names[4] = {"w0", "w1", "w2", "w3"};
  uint64_t offset = 0;
  for (uint64_t size : sizes) {
    param_views.push_back(std::make_unique<TensorView>(p + offset, kFloat32, std::vector<int64_t>{int64_t(size)}));
    grad_views.push_back(std::make_unique<TensorView>(g + offset, kFloat32, std::vector<int64_t>{int64_t(size)}));
    param_tensors.push_back(param_views.back()->tensor);
    grad_tensors.push_back(grad_views.back()->tensor);
    offset += size;
  }
  const double use_config = std::numeric_limits<double>::quiet_NaN();
  dpt_param_group group{};
  group.struct_size = sizeof group;
  group.name = "standard";
  group.lr = group.beta1 = group.beta2 = group.eps = group.weight_decay = use_config;
  group.tensor_count = 4;
  group.tensor_names = names;
  group.params = param_tensors.data();
  group.grads = grad_tensors.data();
  if (skip_on_error(state, table->add_param_group(dpt_plugin_instance_handle(instance.get()), &group))) return;

  dpt_step_args args{};
  args.struct_size = sizeof args;
  args.lr_scale = 1.0;
  args.grad_scale = 1.0;
  for (auto _ : state) {
    if (skip_on_error(state, table->step(dpt_plugin_instance_handle(instance.get()), &args, nullptr))) return;
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(total));
}

}  // namespace

void register_optimizer(const std::string& plugin) {
  benchmark::RegisterBenchmark(("optimizer/" + plugin).c_str(), optimizer_step, plugin)
      ->Arg(1 << 20)
      ->Arg(1 << 24)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
}

}  // namespace dopant::bench
