// What the `gather` and `stream` checkpoint plugins share: one Megatron → Hugging Face
// conversion behind the "dopant.checkpoint.convert/1" extension, over dopant_megatron_hf's
// public entry points (open_megatron, with_checkpoint_args, plan_hf, convert) and the
// safetensors writer. A plugin differs only by its strategy name and its parameters.
#pragma once

#include <dopant/checkpoint.h>

#include <cstdint>
#include <string>

namespace dopant::convert_plugin {

// A strategy's tunables, read from its plugin parameters at create.
struct StrategyOptions {
  std::string strategy;           // "gather" or "stream"
  unsigned workers = 1;           // reading threads (stream)
  uint64_t task_bytes = 2ull << 30;  // most bytes of HF tensors read, held and written together
};

// The settings the model mappings take, by their convert-args key: "heads", "query_groups",
// "vocab_size" (positive integers overriding what the checkpoint records).
class MegatronToHf {
 public:
  MegatronToHf(const dpt_host* host, StrategyOptions options) : host_(host), options_(std::move(options)) {}

  // Converts as dpt_checkpoint_convert_v1.convert says: the destination checked first, then
  // from ("megatron"), to ("hf") and the model, then the source. Fills the outputs on
  // success. Throws sdk::Error; cancellation is polled before reading and after each task.
  void convert(dpt_checkpoint_convert_args& args);

 private:
  const dpt_host* host_;
  StrategyOptions options_;
};

}  // namespace dopant::convert_plugin
