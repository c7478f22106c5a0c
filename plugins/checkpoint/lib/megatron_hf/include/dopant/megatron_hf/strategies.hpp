// The conversion strategies convert() chooses between by name (see convert.hpp); each
// lives in its own file and adds the tasks' tensors to the writer in task order.
#pragma once

#include "dopant/megatron_hf/convert.hpp"

namespace dopant::megatron_hf {

void convert_gather(const ChunkSource& source, const std::vector<OutputTensor>& plan, const std::vector<Task>& tasks,
                    safetensors::Writer& writer, const ConvertOptions& options);
void convert_stream(const ChunkSource& source, const std::vector<OutputTensor>& plan, const std::vector<Task>& tasks,
                    safetensors::Writer& writer, const ConvertOptions& options);

// Throws sdk::Error(DPT_CANCELLED) once options.is_cancelled answers true.
void check_cancelled(const ConvertOptions& options);

// The tensors of every task, tasks in order, as the writer is to lay them out: the order in
// which add_task adds them, so a planned writer makes the same shards.
std::vector<safetensors::Writer::Planned> writing_order(const std::vector<OutputTensor>& plan,
                                                        const std::vector<Task>& tasks);

// Adds one task's tensors, whose bytes lie back to back in `data`, to the writer.
void add_task(safetensors::Writer& writer, const std::vector<OutputTensor>& plan, const Task& task, char* data);

}  // namespace dopant::megatron_hf
