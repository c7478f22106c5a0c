// libFuzzer target for the safetensors header parser: the input is a whole file (u64
// length, JSON header, data). A refusal must be an sdk::Error naming the file; any other
// exception, a crash or a sanitizer report is a bug. A file that parses must tile its data
// section, and its header written back by header_text must parse again to the same tensors.
#include "dopant/safetensors/format.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

namespace safetensors = dopant::safetensors;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "safetensors_header_fuzzer: %s\n", what.c_str());
  std::abort();
}

bool same(const safetensors::Header& a, const safetensors::Header& b) {
  if (a.tensors.size() != b.tensors.size() || a.metadata != b.metadata) return false;
  for (size_t i = 0; i < a.tensors.size(); ++i) {
    const auto &x = a.tensors[i], &y = b.tensors[i];
    if (x.name != y.name || x.dtype != y.dtype || x.shape != y.shape || x.begin != y.begin || x.end != y.end) {
      return false;
    }
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  safetensors::Header header;
  try {
    header = safetensors::parse_file(bytes, "input");
  } catch (const dopant::sdk::Error& e) {
    if (std::string_view(e.what()).substr(0, 7) != "input: ") fail(std::string("message without the file: ") + e.what());
    return 0;
  }
  uint64_t at = 0;
  for (const auto& tensor : header.tensors) {
    if (tensor.begin != at) fail("accepted offsets that do not tile the data section");
    at = tensor.end;
  }
  if (at > size) fail("accepted offsets past the end of the input");
  const std::string text = safetensors::header_text(header);
  if ((safetensors::kPrefixBytes + text.size()) % 8 != 0) fail("header_text is not padded to 8 bytes");
  if (!same(header, safetensors::parse_header(text, at, "written"))) fail("header_text does not read back the same");
  return 0;
}
