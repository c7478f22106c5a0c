// libFuzzer target for the reader of torch.save's zip archives (the items of a DCP .distcp
// file): the input is one archive. A refusal must be an sdk::Error naming the file; any
// other exception, a crash or a sanitizer report is a bug. Every entry accepted must lie
// inside the archive.
#include "dopant/dcp/torch_archive.hpp"

#include <dopant/sdk/errors.hpp>

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "torch_archive_fuzzer: %s\n", what.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The archive as a file: an anonymous memory file, opened again by its /proc path.
  const int fd = memfd_create("archive", MFD_CLOEXEC);
  if (fd < 0) fail("memfd_create failed");
  if (size > 0 && write(fd, data, size) != static_cast<ssize_t>(size)) fail("write failed");
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  try {
    const dopant::checkpoint_io::InputFile file(path);
    for (const auto& [name, entry] : dopant::dcp::archive_entries(file, 0, size)) {
      if (entry.offset > size || entry.length > size - entry.offset) fail("entry `" + name + "` lies outside the archive");
    }
  } catch (const dopant::sdk::Error& e) {
    if (std::string(e.what()).rfind(path + ": ", 0) != 0) fail(std::string("message without the file: ") + e.what());
  }
  close(fd);
  return 0;
}
