// Finding and opening a Megatron checkpoint's layout (see source.hpp).
#include "dopant/megatron_hf/source.hpp"

#include <dopant/dcp/reader.hpp>
#include <dopant/megatron_legacy/reader.hpp>
#include <dopant/megatron_legacy/saved_args.hpp>
#include <dopant/sdk/errors.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace dopant::megatron_hf {
namespace {

namespace fs = std::filesystem;

// The iteration folder a root names in latest_checkpointed_iteration.txt: iter_%07d, or
// `release` for a converted release checkpoint.
fs::path iteration_folder(const fs::path& root) {
  const fs::path tracker = root / "latest_checkpointed_iteration.txt";
  std::ifstream in(tracker);
  std::string text;
  in >> text;
  if (text == "release") return root / "release";
  if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos) {
    sdk::fail(DPT_DATA_LOSS, tracker.string() + ": expected an iteration number or `release`, found `" + text + "`");
  }
  char name[32];
  std::snprintf(name, sizeof name, "iter_%07lu", std::stoul(text));
  return root / name;
}

}  // namespace

std::unique_ptr<ChunkSource> open_megatron(const std::string& path) {
  fs::path folder = path;
  if (!fs::is_directory(folder)) sdk::fail(DPT_NOT_FOUND, path + ": not a folder");
  if (fs::exists(folder / "latest_checkpointed_iteration.txt")) folder = iteration_folder(folder);
  if (fs::exists(folder / ".metadata")) {
    auto source = std::make_unique<ReaderSource<dcp::Reader>>(folder.string());
    if (fs::exists(folder / "common.pt")) source->saved_args = megatron_legacy::read_saved_args((folder / "common.pt").string());
    return source;
  }
  if (megatron_legacy::looks_like_legacy_checkpoint(folder.string())) {
    return std::make_unique<ReaderSource<megatron_legacy::Reader>>(folder.string());
  }
  sdk::fail(DPT_NOT_FOUND, folder.string() + ": neither a torch_dist checkpoint (.metadata), a legacy one "
                                             "(mp_rank_*), nor a Megatron root (latest_checkpointed_iteration.txt)");
}

}  // namespace dopant::megatron_hf
