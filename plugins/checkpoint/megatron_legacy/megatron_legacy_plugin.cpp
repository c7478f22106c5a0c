// The `megatron-legacy` checkpoint plugin: reads Megatron's legacy checkpoints
// (latest_checkpointed_iteration.txt, iter_*/mp_rank_*/model_optim_rng.pt), merging the
// tensor-, pipeline- and expert-parallel ranks into global tensors whose chunks are byte
// ranges of the rank files. Read-only. The format lives in dopant_megatron_legacy.
#include <dopant/sdk/sdk.hpp>

#include "dopant/megatron_legacy/reader.hpp"

#include <memory>

namespace {

namespace sdk = dopant::sdk;

class MegatronLegacyCheckpoint {
 public:
  MegatronLegacyCheckpoint(const dpt_host*, const sdk::Config&) {}
  std::unique_ptr<dopant::megatron_legacy::Reader> open(const char* path) {
    return std::make_unique<dopant::megatron_legacy::Reader>(path);
  }
};

constexpr dpt_plugin_descriptor kMegatronLegacy = sdk::describe<sdk::CheckpointAdapter<MegatronLegacyCheckpoint>>(
    "megatron-legacy", "0.1.0",
    "Megatron legacy checkpoints (mp_rank_*/model_optim_rng.pt), TP/PP/EP merged: read-only, chunk by chunk");

}  // namespace

DOPANT_SDK_LIBRARY("dopant-megatron-legacy", "0.1.0", &kMegatronLegacy)
