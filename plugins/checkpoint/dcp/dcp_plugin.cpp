// The `dcp` checkpoint plugin: reads PyTorch distributed checkpoints (DCP: `.metadata` and
// its `.distcp` files, as torch.distributed.checkpoint, PyTorch 1.13's
// torch.distributed._shard.checkpoint and Megatron's torch_dist write them), listing each
// stored chunk as a byte range and reading it in place. Read-only. The format lives in
// dopant_dcp.
#include <dopant/sdk/sdk.hpp>

#include "dopant/dcp/reader.hpp"

#include <memory>

namespace {

namespace sdk = dopant::sdk;

class DcpCheckpoint {
 public:
  DcpCheckpoint(const dpt_host*, const sdk::Config&) {}
  std::unique_ptr<dopant::dcp::Reader> open(const char* path) { return std::make_unique<dopant::dcp::Reader>(path); }
};

constexpr dpt_plugin_descriptor kDcp = sdk::describe<sdk::CheckpointAdapter<DcpCheckpoint>>(
    "dcp", "0.1.0", "PyTorch distributed checkpoints (DCP, Megatron torch_dist): read-only, chunk by chunk");

}  // namespace

DOPANT_SDK_LIBRARY("dopant-dcp", "0.1.0", &kDcp)
