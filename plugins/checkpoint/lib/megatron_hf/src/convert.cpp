// Choosing the strategy, and what every strategy shares: handing a task to the writer.
#include "dopant/megatron_hf/convert.hpp"

#include "dopant/megatron_hf/ranks.hpp"
#include "dopant/megatron_hf/strategies.hpp"

#include <dopant/sdk/errors.hpp>

#include <exception>
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
  if (options.strategy == "gather" && Ranks(options.host, options.comm).size() > 1) {
    throw std::invalid_argument("--strategy: `gather` runs in one process; under mpirun use `stream`");
  }
  if (options.strategy == "gather") return convert_gather(source, plan, tasks, writer, options);
  if (options.strategy == "stream") return convert_stream(source, plan, tasks, writer, options);
  throw std::invalid_argument("--strategy: unknown strategy `" + options.strategy + "` (" + strategy_names() + ")");
}

void finish(safetensors::Writer& writer, const ConvertOptions& options) {
  Ranks ranks(options.host, options.comm);
  if (ranks.size() == 1) return writer.finalize();
  std::exception_ptr failure;
  std::string outcome;  // rank 0's error, "" when it finalized
  if (ranks.rank() == 0) {
    try {
      writer.finalize();
    } catch (const std::exception& e) {
      failure = std::current_exception();
      outcome = *e.what() != '\0' ? e.what() : "failed";
    }
  }
  outcome = ranks.broadcast(outcome, 0);
  if (failure) std::rethrow_exception(failure);
  if (!outcome.empty()) sdk::fail(DPT_INTERNAL, "rank 0 could not finish the output: " + outcome);
}

}  // namespace dopant::megatron_hf
