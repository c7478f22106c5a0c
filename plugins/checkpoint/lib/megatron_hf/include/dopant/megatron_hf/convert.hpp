// Converting a Megatron checkpoint to Hugging Face safetensors: the plan's HF tensors are
// grouped into tasks, which a strategy fills and hands to the safetensors writer in task
// order. Both strategies therefore write the same bytes; they differ in how they read:
//
//   gather  materializes every source tensor whole (all chunks, via ChunkSource::read),
//           then cuts the HF tensors out of memory: the baseline, memory = checkpoint size;
//   stream  plans the output's shards up front (each tensor's place is known from the plan)
//           and copies each task's pieces from the chunks' files straight to their place
//           in the shards (copy_file_range), N workers taking tasks largest first; no
//           tensor is held in memory and each byte is written once.
#pragma once

#include "dopant/megatron_hf/mapping.hpp"
#include "dopant/megatron_hf/source.hpp"

#include <dopant/comm.h>

#include <dopant/safetensors/writer.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace dopant::megatron_hf {

// HF tensors that are read, held and written together.
struct Task {
  std::vector<size_t> tensors;  // indices into the plan
  uint64_t bytes = 0;
};

// Groups the plan into tasks of at most `block_bytes` (a larger tensor is a task alone),
// keeping each layer's MLA projections (q_a/q_b/kv_a/kv_b and their norms) in one task;
// largest task first, ties by first name, so the order is the same on every run.
std::vector<Task> plan_tasks(const std::vector<OutputTensor>& plan, uint64_t block_bytes);

struct ConvertOptions {
  std::string strategy = "stream";  // "gather" or "stream"
  unsigned workers = 1;             // stream's reading threads
  uint64_t block_bytes = 2ull << 30;
  std::function<void(uint64_t done, uint64_t total)> progress;  // bytes written; may be empty
  // Polled between blocks of work (from any worker thread); once it answers true the
  // conversion stops and throws sdk::Error(DPT_CANCELLED). May be empty.
  std::function<bool()> is_cancelled;
  // Ranks converting together (`stream` only): the host's communicator (dopant.host.comm/1,
  // the world of an mpirun), each rank with its own writer for the same destination on a
  // filesystem they share. Null: this process alone.
  const dpt_host* host = nullptr;
  dpt_comm* comm = nullptr;
};

// The strategy names, for messages: "gather, stream".
std::string strategy_names();

// Adds every planned tensor to `writer` (which the caller finalizes). Throws
// std::invalid_argument for an unknown strategy, sdk::Error for a failed read.
void convert(const ChunkSource& source, const std::vector<OutputTensor>& plan, safetensors::Writer& writer,
             const ConvertOptions& options);

// Finalizes the writer convert() filled. Alone: writer.finalize(). Across ranks: rank 0
// finalizes (the index, the rename into place) and every rank returns, or throws, with it.
void finish(safetensors::Writer& writer, const ConvertOptions& options);

}  // namespace dopant::megatron_hf
