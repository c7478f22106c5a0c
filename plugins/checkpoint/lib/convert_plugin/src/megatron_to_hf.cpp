// One Megatron → Hugging Face conversion for the strategy plugins: args checked in the
// order the ABI states, the plan made by dopant_megatron_hf, the chosen strategy writing
// through the safetensors writer (a hidden folder renamed into place at finalize, removed
// on any failure), progress and cancellation tied to the host and the caller's callback.
#include "dopant/convert_plugin/megatron_to_hf.hpp"

#include <dopant/comm.h>
#include <dopant/megatron_hf/convert.hpp>
#include <dopant/megatron_hf/mapping.hpp>
#include <dopant/megatron_hf/source.hpp>
#include <dopant/safetensors/writer.hpp>
#include <dopant/sdk/errors.hpp>

#include <filesystem>
#include <stdexcept>

namespace dopant::convert_plugin {
namespace {

namespace fs = std::filesystem;
namespace mhf = megatron_hf;

constexpr uint64_t kDefaultMaxShardBytes = 5'000'000'000;  // Hugging Face's "5GB"

// A setting's value as a positive integer, or an error naming the setting.
int64_t positive_setting(const std::string& key, const std::string& value) {
  size_t used = 0;
  long long parsed = 0;
  try {
    parsed = std::stoll(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != value.size() || parsed < 1 || parsed > 0x7fffffff) {
    sdk::fail(DPT_INVALID_ARGUMENT, "setting `" + key + "`: `" + value + "` is not an integer from 1 to 2147483647");
  }
  return parsed;
}

mhf::ModelArgs model_args(const dpt_checkpoint_convert_args& args) {
  mhf::ModelArgs model;
  try {
    model.model = mhf::parse_model(args.model);
  } catch (const std::invalid_argument& e) {
    sdk::fail(DPT_UNIMPLEMENTED, e.what());
  }
  for (uint64_t i = 0; i < args.setting_count; ++i) {
    sdk::require(args.setting_keys[i] != nullptr && args.setting_values[i] != nullptr,
                 "convert: setting " + std::to_string(i) + " is NULL");
    const std::string key = args.setting_keys[i], value = args.setting_values[i];
    if (key == "heads") {
      model.heads = positive_setting(key, value);
    } else if (key == "query_groups") {
      model.query_groups = positive_setting(key, value);
    } else if (key == "vocab_size") {
      model.vocab_size = positive_setting(key, value);
    } else {
      sdk::fail(DPT_INVALID_ARGUMENT, "unknown setting `" + key + "` (heads, query_groups, vocab_size)");
    }
  }
  return model;
}

}  // namespace

void MegatronToHf::convert(dpt_checkpoint_convert_args& args) {
  const std::string destination = args.destination;
  if (fs::exists(fs::symlink_status(destination))) sdk::fail(DPT_ALREADY_EXISTS, destination + ": already exists");
  if (std::string(args.from) != "megatron") {
    sdk::fail(DPT_UNIMPLEMENTED, std::string("from `") + args.from + "`: `" + options_.strategy +
                                     "` reads only `megatron` checkpoints");
  }
  if (std::string(args.to) != "hf") {
    sdk::fail(DPT_UNIMPLEMENTED, std::string("to `") + args.to + "`: `" + options_.strategy + "` writes only `hf`");
  }
  mhf::ModelArgs model = model_args(args);
  const auto cancelled = [this] {
    if (host_->is_cancelled(host_)) sdk::fail(DPT_CANCELLED, "conversion cancelled");
  };
  cancelled();
  try {
    const std::unique_ptr<mhf::ChunkSource> source = mhf::open_megatron(args.source);
    sdk::Metadata recorded = source->listing().metadata;
    recorded.insert(recorded.end(), source->saved_args.begin(), source->saved_args.end());
    model = mhf::with_checkpoint_args(model, recorded);
    const std::vector<mhf::OutputTensor> plan = mhf::plan_hf(source->listing(), model);
    mhf::ConvertOptions options;
    options.strategy = options_.strategy;
    options.workers = options_.workers;
    options.block_bytes = options_.task_bytes;
    options.is_cancelled = [this] { return host_->is_cancelled(host_) != 0; };
    // Under mpirun the world's ranks convert together (each calls this with its own
    // destination; rank 0's is the one that is finished).
    const auto* comm = host_->struct_size >= DPT_HOST_SIZE_1_4 && host_->get_extension != nullptr
                           ? static_cast<const dpt_host_comm_v1*>(host_->get_extension(host_, DPT_HOST_COMM))
                           : nullptr;
    if (comm != nullptr) {
      dpt_comm* world = nullptr;
      sdk::check(host_, comm->world(host_, &world));
      if (comm->size(host_, world) > 1) {
        options.host = host_;
        options.comm = world;
      }
    }
    // After each task the strategy hands to the writer, one call at a time.
    options.progress = [&](uint64_t done, uint64_t total) {
      cancelled();
      if (args.progress != nullptr) args.progress(args.progress_context, done, total);
    };
    const uint64_t max_shard_bytes = args.max_shard_bytes != 0 ? args.max_shard_bytes : kDefaultMaxShardBytes;
    safetensors::Writer writer(destination, max_shard_bytes, {{"format", "pt"}}, host_);
    mhf::convert(*source, plan, writer, options);
    mhf::finish(writer, options);
    uint64_t bytes = 0, files = 0;
    for (const mhf::OutputTensor& tensor : plan) bytes += tensor.bytes;
    if (fs::exists(destination)) {  // only where this rank finished the output
      for (const auto& entry : fs::directory_iterator(destination)) files += entry.path().extension() == ".safetensors";
    }
    args.tensors_written = plan.size();
    args.bytes_written = bytes;
    args.files_written = files;
  } catch (const std::invalid_argument& e) {  // the library's word for bad input
    sdk::fail(DPT_INVALID_ARGUMENT, e.what());
  }
}

}  // namespace dopant::convert_plugin
