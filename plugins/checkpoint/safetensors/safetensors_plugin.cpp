// The `safetensors` checkpoint plugin: Hugging Face safetensors, read from a file or a
// folder (one file, or shards and their index) and written as a folder sharded at
// `max_shard_size`, all or nothing. The format lives in dopant_safetensors.
#include <dopant/sdk/sdk.hpp>

#include "dopant/safetensors/reader.hpp"
#include "dopant/safetensors/writer.hpp"

#include <memory>

namespace {

namespace sdk = dopant::sdk;
namespace safetensors = dopant::safetensors;

class SafetensorsCheckpoint {
 public:
  SafetensorsCheckpoint(const dpt_host* host, const sdk::Config& config)
      : host_(host), max_shard_bytes_(config.get_size("max_shard_size")) {}

  std::unique_ptr<safetensors::Reader> open(const char* path) { return std::make_unique<safetensors::Reader>(path); }

  std::unique_ptr<safetensors::Writer> begin(const char* destination, const sdk::Metadata& metadata) {
    return std::make_unique<safetensors::Writer>(destination, max_shard_bytes_, metadata, host_);
  }

 private:
  const dpt_host* host_;
  uint64_t max_shard_bytes_;
};

constexpr dpt_param_decl kParams[] = {
    sdk::size_param("max_shard_size", "5GB",
                    "most tensor bytes per shard file; a larger tensor gets a shard of its own")
        .range("1B", "256TiB")
        .unit("B"),
};

constexpr dpt_plugin_descriptor kSafetensors = sdk::describe<sdk::CheckpointAdapter<SafetensorsCheckpoint>>(
    "safetensors", "0.1.0", "Hugging Face safetensors: sharded, indexed, written atomically",
    sdk::param_list<kParams>);

}  // namespace

DOPANT_SDK_LIBRARY("dopant-safetensors", "0.1.0", &kSafetensors)
