// `dopant convert --from megatron --to hf --model MODEL SRC DST`: a Megatron checkpoint
// (its root or one iter_* folder) to a Hugging Face safetensors folder, all or nothing, by a
// conversion strategy: a checkpoint plugin with the "dopant.checkpoint.convert/1"
// extension, loaded by id through the runtime (`gather`, `stream`, or one on --plugin-path).
// The plugin writes into a temporary folder beside DST that this process owns; it is
// renamed into place at the end, and removed on any failure. SIGINT, SIGTERM and SIGHUP
// cancel the runtime (InterruptGrace): the plugin sees host->is_cancelled between blocks,
// stops its workers and removes what it wrote, the temporary folder goes, and dopant then
// ends by the signal. An existing DST is refused unless --force; then the new folder is
// swapped in with one atomic exchange and the old one removed. Under mpirun the ranks
// convert together through the host's world communicator (`stream`; DST on a filesystem
// every rank sees): each copies its share of the tasks, rank 0 writes the index, renames,
// and prints.
#include "commands.hpp"

#include <dopant/checkpoint.h>
#include <dopant/comm.h>
#include <dopant/sdk/errors.hpp>
#include <dopant/support/c_api_errors.hpp>
#include <dopant/support/child_processes.hpp>
#include <dopant/support/text.hpp>

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <stdexcept>

namespace dopant::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kUsage =
    "usage: dopant convert --from megatron --to hf --model llama|qwen2|deepseek-v3|kimi-k2 SRC DST\n"
    "         [--strategy stream|gather|ID] [--workers N] [--task-size 2GiB] [--max-shard-size 5GB] [--force]\n"
    "         [--vocab-size N] [--heads N] [--query-groups N]";

std::string required_flag(std::vector<std::string>& words, const std::string& flag) {
  const auto value = take_flag_value(words, flag);
  if (!value) throw std::invalid_argument(flag + " is required\n" + kUsage);
  return *value;
}

// A model setting flag (--heads N) as the convert args' key and value, when given.
void take_setting(std::vector<std::string>& words, const std::string& flag, const char* key,
                  std::vector<std::pair<std::string, std::string>>& settings) {
  const auto value = take_flag_value(words, flag);
  if (!value) return;
  settings.emplace_back(key, std::to_string(parse_count(flag, *value, 1, 0x7fffffff, " (1 to 2147483647)")));
}

// A size flag's value in bytes (at least 1), or 0 when the flag is absent.
uint64_t size_flag(std::vector<std::string>& words, const std::string& flag) {
  const auto text = take_flag_value(words, flag);
  if (!text) return 0;
  std::string error;
  const auto parsed = parse_size(*text, &error);
  if (!parsed) throw std::invalid_argument(flag + ": " + quote_name(*text) + " " + error);
  if (*parsed == 0) throw std::invalid_argument(flag + ": must be at least 1 byte");
  return *parsed;
}

// The loaded checkpoint plugins that convert, by id in name order.
std::vector<std::string> strategies(dpt_runtime* runtime) {
  std::vector<std::string> ids;
  for (uint32_t i = 0; i < dpt_runtime_plugin_count(runtime); ++i) {
    const dpt_plugin_descriptor* descriptor = dpt_runtime_plugin(runtime, i)->descriptor;
    if (std::strcmp(descriptor->kind, DPT_KIND_CHECKPOINT) == 0 &&
        descriptor->get_extension(DPT_EXT_CHECKPOINT_CONVERT) != nullptr) {
      ids.push_back(descriptor->id);
    }
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

// The strategy plugin `id`, created with `params_text` (TOML of its parameters).
std::unique_ptr<dpt_plugin_instance, void (*)(dpt_plugin_instance*)> create_strategy(dpt_runtime* runtime,
                                                                                     const std::string& id,
                                                                                     const std::string& params_text) {
  const std::vector<std::string> known = strategies(runtime);
  if (std::find(known.begin(), known.end(), id) == known.end()) {
    std::string names;
    for (const std::string& name : known) names += (names.empty() ? "" : ", ") + name;
    throw std::invalid_argument("--strategy: unknown strategy `" + id + "` (" + names + ")");
  }
  dpt_config* params = nullptr;
  throw_if_error(dpt_plugin_params_parse(runtime, id.c_str(), params_text.c_str(), "command line", &params), id);
  const std::unique_ptr<dpt_config, void (*)(dpt_config*)> owned(params, dpt_plugin_params_destroy);
  dpt_plugin_instance* created = nullptr;
  throw_if_error(dpt_plugin_instance_create(runtime, id.c_str(), params, &created), id);
  return {created, dpt_plugin_instance_destroy};
}

// "[=====     ]  50%  1.2 of 2.4 GB" on one line of a terminal: the convert args' progress
// callback.
void draw_progress(void*, uint64_t done, uint64_t total) {
  constexpr int kWidth = 30;
  const double share = total == 0 ? 1.0 : static_cast<double>(done) / static_cast<double>(total);
  const int filled = static_cast<int>(share * kWidth);
  std::fprintf(stderr, "\r[%s%s] %3d%%  %.2f of %.2f GB", std::string(filled, '=').c_str(),
               std::string(kWidth - filled, ' ').c_str(), static_cast<int>(share * 100), done / 1e9, total / 1e9);
  if (done == total) std::fputc('\n', stderr);
  std::fflush(stderr);
}

// Whether this process is rank 0 of the host's world (always, outside mpirun).
bool leads_world(dpt_runtime* runtime) {
  const dpt_host* host = dpt_runtime_host(runtime);
  const auto* comm = static_cast<const dpt_host_comm_v1*>(host->get_extension(host, DPT_HOST_COMM));
  if (comm == nullptr) return true;
  dpt_comm* world = nullptr;
  sdk::check(host, comm->world(host, &world));
  return comm->rank(host, world) == 0;
}

}  // namespace

int command_convert(const Options& options) {
  std::vector<std::string> words(options.words.begin() + 1, options.words.end());
  const std::string from = required_flag(words, "--from");
  if (from != "megatron") throw std::invalid_argument("--from: only `megatron` is read");
  const std::string to = required_flag(words, "--to");
  if (to != "hf") throw std::invalid_argument("--to: only `hf` is written");
  const std::string model = required_flag(words, "--model");
  std::vector<std::pair<std::string, std::string>> settings;
  take_setting(words, "--heads", "heads", settings);
  take_setting(words, "--query-groups", "query_groups", settings);
  take_setting(words, "--vocab-size", "vocab_size", settings);
  const std::string strategy = take_flag_value(words, "--strategy").value_or("stream");
  // The strategy's own parameters, checked against what it declares.
  std::string params;
  if (const auto workers = take_flag_value(words, "--workers")) {
    params += "workers = " + std::to_string(parse_count("--workers", *workers, 1, 1024, " (1 to 1024)")) + "\n";
  }
  if (const uint64_t task = size_flag(words, "--task-size")) params += "task_size = \"" + std::to_string(task) + "B\"\n";
  const uint64_t max_shard_bytes = size_flag(words, "--max-shard-size");
  const bool force = take_flag(words, "--force");
  for (const std::string& word : words) {
    if (word.rfind("--", 0) == 0) throw std::invalid_argument("unknown option `" + word + "`\n" + kUsage);
  }
  if (words.size() != 2) throw std::invalid_argument(kUsage);
  const std::string& source = words[0];
  const fs::path destination = fs::path(words[1]).lexically_normal();
  const bool replace = fs::exists(fs::symlink_status(destination));
  if (replace && !force) {
    sdk::fail(DPT_ALREADY_EXISTS, destination.string() + ": already exists (give --force to replace it)");
  }

  Runtime runtime(options);
  const bool leader = leads_world(runtime.get());  // the rank that swaps DST in and prints
  const auto instance = create_strategy(runtime.get(), strategy, params);
  const auto& table = *static_cast<const dpt_checkpoint_convert_v1*>(
      dpt_plugin_instance_info(instance.get())->descriptor->get_extension(DPT_EXT_CHECKPOINT_CONVERT));
  // A signal cancels the runtime, so the strategy stops at its next poll of
  // host->is_cancelled; the cleanup waits for this guard, which outlives the work folder and
  // the --force swap, so neither a temporary folder nor a half-swapped DST stays after it.
  const InterruptGrace grace(10, [&runtime] { dpt_runtime_cancel(runtime.get()); });
  const fs::path parent = destination.has_parent_path() ? destination.parent_path() : fs::path(".");
  TemporaryFolder work(parent.string(), "." + destination.filename().string() + ".convert");
  const fs::path target = fs::path(work.path()) / "out";
  std::vector<const char*> keys, values;
  for (const auto& [key, value] : settings) {
    keys.push_back(key.c_str());
    values.push_back(value.c_str());
  }
  dpt_checkpoint_convert_args args = DPT_CHECKPOINT_CONVERT_ARGS_INIT;
  args.source = source.c_str();
  args.destination = target.c_str();
  args.from = from.c_str();
  args.to = to.c_str();
  args.model = model.c_str();
  args.setting_count = settings.size();
  args.setting_keys = keys.data();
  args.setting_values = values.data();
  args.max_shard_bytes = max_shard_bytes;
  if (leader && isatty(STDERR_FILENO)) args.progress = draw_progress;
  throw_if_error(table.convert(dpt_plugin_instance_handle(instance.get()), &args), strategy);
  if (!leader) return 0;
  // With --force the old DST is swapped into the work folder, which then removes it.
  if (::renameat2(AT_FDCWD, target.c_str(), AT_FDCWD, destination.c_str(), replace ? RENAME_EXCHANGE : RENAME_NOREPLACE) != 0) {
    const std::string why = std::strerror(errno);
    sdk::fail(errno == EEXIST ? DPT_ALREADY_EXISTS : DPT_INTERNAL,
              destination.string() + ": could not move the new folder into place: " + why);
  }
  std::printf("%s: %llu tensors, %llu bytes in %llu files written by `%s`\n", destination.c_str(),
              static_cast<unsigned long long>(args.tensors_written), static_cast<unsigned long long>(args.bytes_written),
              static_cast<unsigned long long>(args.files_written), strategy.c_str());
  return 0;
}

}  // namespace dopant::cli
