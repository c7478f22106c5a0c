// `dopant convert --from megatron --to hf --model MODEL SRC DST`: a Megatron checkpoint
// (its root or one iter_* folder) to a Hugging Face safetensors folder, all or nothing.
// The safetensors writer builds the output in a hidden folder beside DST, which its
// destructor removes on any failure, and renames it into place at the end. SIGINT, SIGTERM
// and SIGHUP are the conversion's cancel predicate (InterruptGrace): the workers stop
// between blocks, the writer removes its folder, and dopant then ends by the signal. An
// existing DST is refused unless --force; then the new folder is swapped in with one
// atomic exchange and the old one removed. Under mpirun the ranks convert together through
// the host's world communicator (`stream`; DST on a filesystem every rank sees): each
// copies its share of the tasks, rank 0 writes the index, renames, and prints.
#include "commands.hpp"

#include <dopant/comm.h>
#include <dopant/megatron_hf/convert.hpp>
#include <dopant/megatron_hf/mapping.hpp>
#include <dopant/megatron_hf/source.hpp>
#include <dopant/safetensors/writer.hpp>
#include <dopant/sdk/errors.hpp>
#include <dopant/support/child_processes.hpp>
#include <dopant/support/text.hpp>

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <thread>

namespace dopant::cli {
namespace {

namespace fs = std::filesystem;
namespace mhf = megatron_hf;

constexpr const char* kUsage =
    "usage: dopant convert --from megatron --to hf --model llama|qwen2|deepseek-v3|kimi-k2 SRC DST\n"
    "         [--strategy stream|gather] [--workers N] [--task-size 2GiB] [--max-shard-size 5GB] [--force]\n"
    "         [--vocab-size N] [--heads N] [--query-groups N]";

std::string required_flag(std::vector<std::string>& words, const std::string& flag) {
  const auto value = take_flag_value(words, flag);
  if (!value) throw std::invalid_argument(flag + " is required\n" + kUsage);
  return *value;
}

int64_t optional_count(std::vector<std::string>& words, const std::string& flag) {
  const auto value = take_flag_value(words, flag);
  return value ? parse_count(flag, *value, 1, 0x7fffffff, " (1 to 2147483647)") : 0;
}

// A size flag's value in bytes (at least 1), or `fallback` when the flag is absent.
uint64_t size_flag(std::vector<std::string>& words, const std::string& flag, uint64_t fallback) {
  const auto text = take_flag_value(words, flag);
  if (!text) return fallback;
  std::string error;
  const auto parsed = parse_size(*text, &error);
  if (!parsed) throw std::invalid_argument(flag + ": " + quote_name(*text) + " " + error);
  if (*parsed == 0) throw std::invalid_argument(flag + ": must be at least 1 byte");
  return *parsed;
}

// "[=====     ]  50%  1.2 of 2.4 GB" on one line of a terminal.
void draw_progress(uint64_t done, uint64_t total) {
  constexpr int kWidth = 30;
  const double share = total == 0 ? 1.0 : static_cast<double>(done) / static_cast<double>(total);
  const int filled = static_cast<int>(share * kWidth);
  std::fprintf(stderr, "\r[%s%s] %3d%%  %.2f of %.2f GB", std::string(filled, '=').c_str(),
               std::string(kWidth - filled, ' ').c_str(), static_cast<int>(share * 100), done / 1e9, total / 1e9);
  if (done == total) std::fputc('\n', stderr);
  std::fflush(stderr);
}

}  // namespace

int command_convert(const Options& options) {
  std::vector<std::string> words(options.words.begin() + 1, options.words.end());
  if (required_flag(words, "--from") != "megatron") throw std::invalid_argument("--from: only `megatron` is read");
  if (required_flag(words, "--to") != "hf") throw std::invalid_argument("--to: only `hf` is written");
  mhf::ModelArgs args;
  args.model = mhf::parse_model(required_flag(words, "--model"));
  args.heads = optional_count(words, "--heads");
  args.query_groups = optional_count(words, "--query-groups");
  args.vocab_size = optional_count(words, "--vocab-size");
  mhf::ConvertOptions convert;
  convert.strategy = take_flag_value(words, "--strategy").value_or("stream");
  if (convert.strategy != "stream" && convert.strategy != "gather") {
    throw std::invalid_argument("--strategy: unknown strategy `" + convert.strategy + "` (" +
                                mhf::strategy_names() + ")");
  }
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  convert.workers = std::min(8u, cores);
  if (const auto workers = take_flag_value(words, "--workers")) {
    convert.workers = parse_count("--workers", *workers, 1, 1024, " (1 to 1024)");
  }
  const uint64_t max_shard_bytes = size_flag(words, "--max-shard-size", 5'000'000'000);
  convert.block_bytes = size_flag(words, "--task-size", convert.block_bytes);
  const bool force = take_flag(words, "--force");
  for (const std::string& word : words) {
    if (word.rfind("--", 0) == 0) throw std::invalid_argument("unknown option `" + word + "`\n" + kUsage);
  }
  if (words.size() != 2) throw std::invalid_argument(kUsage);
  const std::string& source_path = words[0];
  const fs::path destination = fs::path(words[1]).lexically_normal();
  const bool replace = fs::exists(fs::symlink_status(destination));
  if (replace && !force) {
    sdk::fail(DPT_ALREADY_EXISTS, destination.string() + ": already exists (give --force to replace it)");
  }

  // Under mpirun, the world communicator of a runtime's host; alone, none.
  std::unique_ptr<Runtime> runtime;
  bool leader = true;  // the rank that finalizes, swaps and prints
  if (std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr) {
    runtime = std::make_unique<Runtime>(options);
    convert.host = dpt_runtime_host(runtime->get());
    const auto* comm = static_cast<const dpt_host_comm_v1*>(convert.host->get_extension(convert.host, DPT_HOST_COMM));
    if (comm == nullptr) throw std::runtime_error("mpirun: this dopant has no host communicator");
    sdk::check(convert.host, comm->world(convert.host, &convert.comm));
    leader = comm->rank(convert.host, convert.comm) == 0;
  }

  const std::unique_ptr<mhf::ChunkSource> source = mhf::open_megatron(source_path);
  sdk::Metadata recorded = source->listing().metadata;
  recorded.insert(recorded.end(), source->saved_args.begin(), source->saved_args.end());
  args = mhf::with_checkpoint_args(args, recorded);
  const std::vector<mhf::OutputTensor> plan = mhf::plan_hf(source->listing(), args);
  if (leader && isatty(STDERR_FILENO)) convert.progress = draw_progress;
  // A signal cancels the conversion; the cleanup waits for this guard, which outlives the
  // writer and the --force swap, so neither a temporary folder nor a half-swapped DST stays.
  const InterruptGrace grace(10);
  convert.is_cancelled = InterruptGrace::requested;
  // With --force the new folder is written beside DST, then swapped with it.
  const fs::path target = replace ? destination.parent_path() / ("." + destination.filename().string() +
                                                                 ".convert-" + std::to_string(getpid()))
                                  : destination;
  safetensors::Writer writer(target.string(), max_shard_bytes, {{"format", "pt"}}, nullptr);
  mhf::convert(*source, plan, writer, convert);
  mhf::finish(writer, convert);
  if (!leader) return 0;
  if (replace) {
    if (::renameat2(AT_FDCWD, target.c_str(), AT_FDCWD, destination.c_str(), RENAME_EXCHANGE) != 0) {
      const std::string why = std::strerror(errno);
      fs::remove_all(target);
      sdk::fail(DPT_INTERNAL, destination.string() + ": could not swap in the new folder: " + why);
    }
    fs::remove_all(target);  // now the old DST
  }
  std::printf("%s: %zu tensors written\n", destination.c_str(), plan.size());
  return 0;
}

}  // namespace dopant::cli
