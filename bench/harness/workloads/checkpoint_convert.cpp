// The checkpoint-convert workload. It generates a Kimi-K2-shaped Megatron torch_dist
// checkpoint (lib/megatron_synthetic) in a temporary folder under `work_dir`, once per
// process and shape (later repetitions of the same process reuse it; the folder is removed
// when the process ends), then per repetition:
//   - copies its files as `cp` does (copy_file_range, then fsync): the bound, since a
//     conversion reads and writes at least every tensor byte once;
//   - converts it to HF safetensors with the `[checkpoint]` slot's strategy plugin (one with
//     the dopant.checkpoint.convert/1 extension: gather, stream, or a third party's) in a
//     forked child, so that the peak resident memory is the conversion's own (wait4's
//     ru_maxrss), not the generator's;
// both from the page cache (the generator has just written the files).
// Metrics: convert_s, convert_bytes_per_s and copy_bytes_per_s (checkpoint file bytes /
// seconds), copy_fraction (convert / copy throughput), peak_rss_bytes (the child's),
// checkpoint_bytes.
#include "checkpoint_convert.hpp"

#include <dopant/checkpoint.h>
#include <dopant/megatron_synthetic/generator.hpp>
#include <dopant/sdk/errors.hpp>
#include <dopant/support/child_processes.hpp>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace dopant::workloads {
namespace {

namespace fs = std::filesystem;
namespace synth = dopant::megatron_synthetic;

const dpt_param_decl kBytesDecl = {DPT_PARAM_DECL_SIZE_1_0, "bytes", DPT_PARAM_SIZE, "64MiB", "1", nullptr,
                                   nullptr, 0, "B", "tensor bytes of the generated checkpoint (sets the expert width)"};
const dpt_param_decl kLayersDecl = {DPT_PARAM_DECL_SIZE_1_0, "layers", DPT_PARAM_INT, "6", "1", "1024",
                                    nullptr, 0, "", "transformer layers"};
const dpt_param_decl kDenseLayersDecl = {DPT_PARAM_DECL_SIZE_1_0, "dense_layers", DPT_PARAM_INT, "1", "0", "1024",
                                         nullptr, 0, "", "first layers with a dense MLP (Kimi-K2: 1)"};
const dpt_param_decl kHiddenDecl = {DPT_PARAM_DECL_SIZE_1_0, "hidden", DPT_PARAM_INT, "512", "16", "65536",
                                    nullptr, 0, "", "hidden size"};
const dpt_param_decl kExpertsDecl = {DPT_PARAM_DECL_SIZE_1_0, "experts", DPT_PARAM_INT, "64", "1", "4096",
                                     nullptr, 0, "", "routed experts per MoE layer"};
const dpt_param_decl kExpertParallelDecl = {DPT_PARAM_DECL_SIZE_1_0, "expert_parallel", DPT_PARAM_INT, "8", "1",
                                            "4096", nullptr, 0, "", "EP chunks (and .distcp files) of the experts"};
const dpt_param_decl kVocabDecl = {DPT_PARAM_DECL_SIZE_1_0, "vocab", DPT_PARAM_INT, "32000", "1", "10000000",
                                   nullptr, 0, "", "vocabulary (stored padded to 128 rows)"};
const dpt_param_decl kSeedDecl = {DPT_PARAM_DECL_SIZE_1_0, "seed", DPT_PARAM_INT, "0", "0", nullptr,
                                  nullptr, 0, "", "seed of the generated values"};
const dpt_param_decl kWorkDirDecl = {DPT_PARAM_DECL_SIZE_1_0, "work_dir", DPT_PARAM_STRING, "", nullptr, nullptr,
                                     nullptr, 0, nullptr,
                                     "folder for the generated checkpoint and the outputs; empty: the system's "
                                     "temporary folder"};
const dpt_param_decl* const kParamDecls[] = {&kBytesDecl,   &kLayersDecl,         &kDenseLayersDecl,
                                             &kHiddenDecl,  &kExpertsDecl,        &kExpertParallelDecl,
                                             &kVocabDecl,   &kSeedDecl,           &kWorkDirDecl};

using Clock = std::chrono::steady_clock;

struct Settings {
  std::string work_dir;
  synth::MoeShape shape;
};

Settings read_settings(const dpt_host* host, const dpt_config* params) {
  const auto integer = [&](const char* name) {
    int64_t value = 0;
    sdk::check(host, host->config_int(host, params, name, &value));
    return value;
  };
  const auto text = [&](const char* name) {
    const char* value = nullptr;
    sdk::check(host, host->config_string(host, params, name, &value));
    return std::string(value);
  };
  Settings s;
  s.work_dir = text("work_dir");
  sdk::check(host, host->config_size(host, params, "bytes", &s.shape.target_bytes));
  s.shape.layers = static_cast<uint32_t>(integer("layers"));
  s.shape.dense_layers = static_cast<uint32_t>(integer("dense_layers"));
  s.shape.hidden = static_cast<uint32_t>(integer("hidden"));
  s.shape.experts = static_cast<uint32_t>(integer("experts"));
  s.shape.expert_parallel = static_cast<uint32_t>(integer("expert_parallel"));
  s.shape.vocab = static_cast<uint32_t>(integer("vocab"));
  s.shape.seed = static_cast<uint64_t>(integer("seed"));
  try {
    synth::dims_of(s.shape);
  } catch (const std::invalid_argument& e) {
    sdk::fail(DPT_INVALID_ARGUMENT, e.what());
  }
  if (!s.work_dir.empty() && !fs::is_directory(s.work_dir)) {
    sdk::fail(DPT_INVALID_ARGUMENT, "work_dir `" + s.work_dir + "` is not a folder");
  }
  return s;
}

bool same_shape(const synth::MoeShape& a, const synth::MoeShape& b) {
  return a.layers == b.layers && a.dense_layers == b.dense_layers && a.hidden == b.hidden && a.experts == b.experts &&
         a.expert_parallel == b.expert_parallel && a.vocab == b.vocab && a.target_bytes == b.target_bytes &&
         a.seed == b.seed;
}

// The generated checkpoint of this process, kept for its later repetitions; its folder goes
// when the process ends (or is interrupted), or when a repetition asks for another shape.
struct Input {
  synth::MoeShape shape;
  std::string work_dir;
  std::unique_ptr<TemporaryFolder> folder;
  synth::Generated checkpoint;
  std::vector<fs::path> files;  // relative to the checkpoint's root
};

const Input& generated_input(const Settings& s) {
  static Input input;
  if (input.folder && same_shape(input.shape, s.shape) && input.work_dir == s.work_dir) return input;
  input.folder.reset();
  input.folder = s.work_dir.empty() ? std::make_unique<TemporaryFolder>("dopant-checkpoint-convert")
                                    : std::make_unique<TemporaryFolder>(s.work_dir, "dopant-checkpoint-convert");
  input.shape = s.shape;
  input.work_dir = s.work_dir;
  const fs::path root = fs::path(input.folder->path()) / "megatron";
  input.checkpoint = synth::generate(s.shape, root.string());
  input.files.clear();
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.is_regular_file()) input.files.push_back(fs::relative(entry.path(), root));
  }
  return input;
}

[[noreturn]] void io_failure(const fs::path& path, const char* what) {
  sdk::fail(DPT_INTERNAL, path.string() + ": " + what + " failed: " + std::strerror(errno));
}

// The bound: every file copied the way `cp` (coreutils 9) copies on one filesystem, with
// copy_file_range (the bytes stay in the kernel), then fsync'ed, as the safetensors writer
// fsyncs its shards.
void plain_copy(const fs::path& from, const fs::path& to, const std::vector<fs::path>& files) {
  for (const fs::path& file : files) {
    fs::create_directories((to / file).parent_path());
    const int in = ::open((from / file).c_str(), O_RDONLY | O_CLOEXEC);
    if (in < 0) io_failure(from / file, "open");
    const int out = ::open((to / file).c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (out < 0) io_failure(to / file, "create");
    for (ssize_t got; (got = ::copy_file_range(in, nullptr, out, nullptr, 1u << 30, 0)) != 0;) {
      if (got < 0) io_failure(to / file, "copy_file_range");
    }
    if (::fsync(out) != 0) io_failure(to / file, "fsync");
    ::close(in);
    ::close(out);
  }
}

// The `[checkpoint]` slot of a variant: the strategy plugin and its parameters.
struct Strategy {
  const char* plugin;
  const dpt_config* params;
};

// One conversion by the strategy plugin (created here, so in the child), Kimi-K2 mapping.
void convert_checkpoint(dpt_runtime* runtime, const Strategy& strategy, const std::string& source,
                        const std::string& destination) {
  dpt_plugin_instance* raw = nullptr;
  sdk::check(dpt_runtime_host(runtime), dpt_plugin_instance_create(runtime, strategy.plugin, strategy.params, &raw));
  const std::unique_ptr<dpt_plugin_instance, decltype(&dpt_plugin_instance_destroy)> instance(
      raw, &dpt_plugin_instance_destroy);
  const dpt_plugin_descriptor* descriptor = dpt_plugin_instance_info(raw)->descriptor;
  const auto* table = std::strcmp(descriptor->kind, DPT_KIND_CHECKPOINT) == 0
                          ? static_cast<const dpt_checkpoint_convert_v1*>(descriptor->get_extension(DPT_EXT_CHECKPOINT_CONVERT))
                          : nullptr;
  if (table == nullptr) {
    sdk::fail(DPT_INVALID_ARGUMENT, std::string("[checkpoint] plugin `") + strategy.plugin +
                                        "` is not a conversion strategy (no " DPT_EXT_CHECKPOINT_CONVERT " extension)");
  }
  dpt_checkpoint_convert_args args = DPT_CHECKPOINT_CONVERT_ARGS_INIT;
  args.source = source.c_str();
  args.destination = destination.c_str();
  args.from = "megatron";
  args.to = "hf";
  args.model = "kimi-k2";
  sdk::check(dpt_runtime_host(runtime), table->convert(dpt_plugin_instance_handle(raw), &args));
}

struct ChildRun {
  double seconds = 0;
  double peak_rss_bytes = 0;
};

// Runs the conversion in a forked child: its wall time and its own peak resident memory.
// A failure in the child comes back as its message.
ChildRun convert_in_child(dpt_runtime* runtime, const Strategy& strategy, const std::string& source,
                          const std::string& destination) {
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) sdk::fail(DPT_INTERNAL, std::string("pipe failed: ") + std::strerror(errno));
  const Clock::time_point start = Clock::now();
  const pid_t child = ::fork();
  if (child < 0) sdk::fail(DPT_INTERNAL, std::string("fork failed: ") + std::strerror(errno));
  if (child == 0) {
    ::close(pipe_fds[0]);
    std::string message;
    try {
      convert_checkpoint(runtime, strategy, source, destination);
    } catch (const std::exception& e) {
      message = e.what();
    }
    if (!message.empty()) (void)!::write(pipe_fds[1], message.data(), message.size());
    ::_exit(message.empty() ? 0 : 1);
  }
  ::close(pipe_fds[1]);
  std::string message;
  char buffer[4096];
  for (ssize_t got; (got = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;) message.append(buffer, static_cast<size_t>(got));
  ::close(pipe_fds[0]);
  int status = 0;
  struct rusage usage {};
  while (::wait4(child, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  ChildRun run;
  run.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  run.peak_rss_bytes = static_cast<double>(usage.ru_maxrss) * 1024;  // Linux: KiB
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    sdk::fail(DPT_INTERNAL, std::string("the ") + strategy.plugin + " conversion failed: " +
                                (message.empty() ? "its process ended with status " + std::to_string(status) : message));
  }
  return run;
}

void run(dpt_runtime* runtime, const dpt_run_config* config, uint32_t variant) {
  const dpt_host* host = dpt_runtime_host(runtime);
  const Settings s = read_settings(host, dpt_run_config_workload_params(config, variant));
  const Strategy strategy{dpt_run_config_slot_plugin(config, variant, "checkpoint"),
                          dpt_run_config_slot_params(config, variant, "checkpoint")};
  if (strategy.plugin == nullptr) sdk::fail(DPT_INVALID_ARGUMENT, "needs a [checkpoint] plugin (a conversion strategy)");
  const Input& input = generated_input(s);
  const fs::path scratch = fs::path(input.folder->path());
  const fs::path source = scratch / "megatron", copy = scratch / "copy", converted = scratch / "hf";
  fs::remove_all(copy);
  fs::remove_all(converted);
  const double bytes = static_cast<double>(input.checkpoint.file_bytes);

  const Clock::time_point copy_start = Clock::now();
  plain_copy(source, copy, input.files);
  const double copy_s = std::chrono::duration<double>(Clock::now() - copy_start).count();
  fs::remove_all(copy);

  const ChildRun conversion = convert_in_child(runtime, strategy, source.string(), converted.string());
  fs::remove_all(converted);

  host->metric(host, "convert_s", conversion.seconds, "s", DPT_BETTER_LOWER);
  host->metric(host, "convert_bytes_per_s", bytes / conversion.seconds, "B/s", DPT_BETTER_HIGHER);
  host->metric(host, "copy_bytes_per_s", bytes / copy_s, "B/s", DPT_BETTER_HIGHER);
  host->metric(host, "copy_fraction", copy_s / conversion.seconds, "", DPT_BETTER_HIGHER);
  host->metric(host, "peak_rss_bytes", conversion.peak_rss_bytes, "B", DPT_BETTER_LOWER);
  host->metric(host, "checkpoint_bytes", bytes, "B", DPT_BETTER_LOWER);
}

}  // namespace

const dpt_workload_decl checkpoint_convert_decl = {
    DPT_WORKLOAD_DECL_SIZE_1_0,
    "checkpoint-convert",
    "Megatron torch_dist -> HF safetensors on a generated Kimi-K2-shaped checkpoint: time, throughput, peak RSS, "
    "and a plain copy as the bound",
    kParamDecls,
    static_cast<uint32_t>(std::size(kParamDecls)),
    nullptr,
    0};

dpt_error* run_checkpoint_convert(dpt_runtime* runtime, const dpt_run_config* config, uint32_t variant) {
  return sdk::guard(dpt_runtime_host(runtime), [&] { run(runtime, config, variant); });
}

}  // namespace dopant::workloads
