// Choosing the strategy, and what every strategy shares: handing a task to the writer.
#include "dopant/megatron_hf/convert.hpp"

#include "dopant/megatron_hf/strategies.hpp"

#include <dopant/sdk/errors.hpp>

#include <stdexcept>

namespace dopant::megatron_hf {

std::string strategy_names() { return "gather, stream"; }

void add_task(safetensors::Writer& writer, const std::vector<OutputTensor>& plan, const Task& task, char* data) {
  for (size_t index : task.tensors) {
    const OutputTensor& t = plan[index];
    std::vector<int64_t> shape = t.shape;
    DLTensor tensor{};
    tensor.data = data;
    tensor.device = {kDLCPU, 0};
    tensor.ndim = static_cast<int32_t>(shape.size());
    tensor.dtype = t.dtype;
    tensor.shape = shape.data();
    writer.add(t.name, tensor);
    data += t.bytes;
  }
}

void check_cancelled(const ConvertOptions& options) {
  if (options.is_cancelled && options.is_cancelled()) {
    sdk::fail(DPT_CANCELLED, "the conversion was cancelled; nothing was left behind");
  }
}

std::vector<safetensors::Writer::Planned> writing_order(const std::vector<OutputTensor>& plan,
                                                        const std::vector<Task>& tasks) {
  std::vector<safetensors::Writer::Planned> order;
  for (const Task& task : tasks) {
    for (size_t index : task.tensors) order.push_back({plan[index].name, plan[index].dtype, plan[index].shape});
  }
  return order;
}

void convert(const ChunkSource& source, const std::vector<OutputTensor>& plan, safetensors::Writer& writer,
             const ConvertOptions& options) {
  const std::vector<Task> tasks = plan_tasks(plan, options.block_bytes);
  if (options.strategy == "gather") return convert_gather(source, plan, tasks, writer, options);
  if (options.strategy == "stream") return convert_stream(source, plan, tasks, writer, options);
  throw std::invalid_argument("--strategy: unknown strategy `" + options.strategy + "` (" + strategy_names() + ")");
}

}  // namespace dopant::megatron_hf
