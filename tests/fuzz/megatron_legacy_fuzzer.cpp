// libFuzzer target for the Megatron legacy reader beyond the pickle machine: the input is one
// rank file (mp_rank_00/model_optim_rng.pt), so the fuzzer reaches the walk of what the pickle
// builds: the args and the layout they declare, nested state dicts shared through the memo,
// tensor records, and the merge. A refusal must be an sdk::Error naming a path inside the
// checkpoint; any other exception, a crash, a hang or a sanitizer report is a bug. Every
// chunk listed must lie inside its file.
#include "dopant/megatron_legacy/reader.hpp"

#include <dopant/sdk/errors.hpp>

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "megatron_legacy_fuzzer: %s\n", what.c_str());
  std::abort();
}

// The checkpoint folder of this process: made for each input and removed after it (libFuzzer
// may end the process without running exit handlers).
const fs::path& checkpoint() {
  static const fs::path folder = fs::temp_directory_path() / ("dopant-fuzz-legacy-" + std::to_string(getpid()));
  return folder;
}

void check(const uint8_t* data, size_t size) {
  const fs::path file = checkpoint() / "mp_rank_00" / "model_optim_rng.pt";
  fs::create_directories(file.parent_path());
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (!out) fail("write failed");
  }
  try {
    const dopant::megatron_legacy::Reader reader(checkpoint().string());
    for (const auto& tensor : reader.listing().tensors) {
      for (const auto& chunk : tensor.chunks) {
        if (chunk.file != file.string() || chunk.byte_offset > size || chunk.byte_length > size - chunk.byte_offset) {
          fail("tensor `" + tensor.name + "` has a chunk outside its file");
        }
      }
    }
  } catch (const dopant::sdk::Error& e) {
    if (std::string(e.what()).rfind(checkpoint().string(), 0) != 0) {
      fail(std::string("message without the checkpoint's path: ") + e.what());
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  check(data, size);
  std::error_code ignored;
  fs::remove_all(checkpoint(), ignored);
  return 0;
}
