// The suite's entries (see suite_entries.hpp). At scale 1 each measured entry takes well
// under a minute on two cores.
#include "suite_entries.hpp"

#include <cmath>
#include <stdexcept>

namespace dopant::suite {
namespace {

// AdamW with all state on the device against chunked offload of master weights and
// moments: the offload keeps device memory near params + grads + two chunks.
const char* const kOptimizerRun = R"(
[run]
workload = "optimizer-step"
repetitions = 5

[device]
kind = "cpu"

[workload]
params = {scale:16000000}
tensors = 8
dtype = "fp32"
steps = 2

[optimizer]
plugin = "adamw"

[variants.optimized.optimizer]
plugin = "adamw-chunked-offload"
chunk = "16MiB"
)";

// Megatron's all-gather dispatch against wide EP's all-to-all-v with load balancing on two
// ranks, top-2 of 16 Zipf-skewed experts, hidden 128: wideep sends a token only to the
// ranks that serve it, on a placement planned from observed load (hot experts replicated).
// The headline is the bytes that leave the ranks per token (exact, not a timing).
const char* const kParallelRun = R"(
[run]
workload = "moe-dispatch"
repetitions = 3

[device]
kind = "cpu"

[workload]
tokens_per_rank = {scale:1024}
hidden = 128
experts = 16
top_k = 2
zipf = 1.2
iterations = 3

[parallel]
plugin = "megatron"

[variants.optimized.parallel]
plugin = "wideep"

[variants.optimized.workload]
placement = "balanced"
)";

// A new isolated process per call (spawn) against a warm box with a shared buffer (pbox):
// the p50 of putting 1 MiB into a box and getting it back. No command runs in the boxes, so
// the row also runs in the sanitized build (where a command cannot start: its RLIMIT_AS
// leaves no room for the sanitizer's runtime between fork and exec).
const char* const kSandboxRun = R"(
[run]
workload = "sandbox-transfer"
repetitions = 5

[device]
kind = "cpu"

[workload]
round_trips = {scale:30}
large_round_trips = 0
execs = 0
concurrent_boxes = 0

[sandbox]
plugin = "spawn"

[variants.optimized.sandbox]
plugin = "pbox"
)";

// Routing replay of one Kimi-K2-shaped session (61 layers, top-8 of 384 experts), 8 turns:
// every row each turn as base64 int32 against the new rows only, packed at 9 bits per id.
const char* const kRouterRun = R"(
[run]
workload = "router-replay"
repetitions = 5

[device]
kind = "cpu"

[workload]
sessions = 1
turns = 8
new_tokens = {scale:256}
layers = 61
experts = 384
top_k = 8

[router]
plugin = "replay-full"
scoring = "sigmoid"

[variants.optimized.router]
plugin = "replay-delta"
scoring = "sigmoid"
)";

// Megatron torch_dist -> HF safetensors on a generated Kimi-K2-shaped MoE checkpoint of 16 MB
// (4 layers, 1 dense, 16 experts): gather holds every tensor at once, stream one task of
// 2 MiB; the headline is the conversion's own peak RSS (a forked child's ru_maxrss). The
// size does not scale: much smaller, the process's own memory would hide the difference.
const char* const kCheckpointRun = R"(
[run]
workload = "checkpoint-convert"
repetitions = 5

[device]
kind = "cpu"

[workload]
bytes = "16MB"
layers = 4
dense_layers = 1
hidden = 256
experts = 16
expert_parallel = 4
vocab = 1000

[checkpoint]
plugin = "gather"
task_size = "2MiB"

[variants.optimized.checkpoint]
plugin = "stream"
workers = 1
task_size = "2MiB"
)";

}  // namespace

const std::vector<SuiteEntry>& suite_entries() {
  static const std::vector<SuiteEntry> entries = {
      {"optimizer", "adamw", "adamw-chunked-offload", "peak_device_bytes", kOptimizerRun},
      {"router", "replay-full", "replay-delta", "bytes_per_turn", kRouterRun},
      {"sandbox", "spawn", "pbox", "roundtrip_1mib_p50", kSandboxRun},
      {"checkpoint", "gather", "stream", "peak_rss_bytes", kCheckpointRun},
      {"parallel", "megatron", "wideep", "bytes_per_token", kParallelRun, 2},
  };
  return entries;
}

std::string scaled_run_file(const std::string& text, double scale) {
  std::string out;
  size_t position = 0;
  for (;;) {
    const size_t start = text.find("{scale:", position);
    out += text.substr(position, start == std::string::npos ? std::string::npos : start - position);
    if (start == std::string::npos) return out;
    const size_t end = text.find('}', start);
    if (end == std::string::npos) throw std::invalid_argument("suite: unterminated {scale:N} placeholder");
    const double base = std::stod(text.substr(start + 7, end - start - 7));
    out += std::to_string(static_cast<uint64_t>(std::max(1.0, std::round(base * scale))));
    position = end + 1;
  }
}

}  // namespace dopant::suite
