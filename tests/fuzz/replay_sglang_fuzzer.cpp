// libFuzzer target for the sglang replay decoder. The first three bytes pick layers (1-4),
// top_k (1-8) and the expert count (1, 2, 7, 256, 384, 2^16, 2^31); the rest is the base64
// text. A payload it accepts must hold whole rows of ids below the expert count and
// re-encode to the very same text (the encoding is canonical); one it refuses must say why.
#include <dopant/replay_codec/codecs.hpp>
#include <dopant/sdk/errors.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace {

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "replay_sglang_fuzzer: %s\n", what.c_str());
  std::abort();
}

constexpr uint32_t kExperts[] = {1, 2, 7, 256, 384, 65536, dopant::replay_codec::kMaxExperts};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  const uint32_t layers = 1 + data[0] % 4, top_k = 1 + data[1] % 8;
  const uint32_t experts = kExperts[data[2] % (sizeof kExperts / sizeof kExperts[0])];
  const std::string_view text(reinterpret_cast<const char*>(data) + 3, size - 3);
  std::vector<int32_t> ids;
  try {
    ids = dopant::replay_codec::decode_sglang(text, layers, top_k, experts);
  } catch (const dopant::sdk::Error& e) {
    if (std::string_view(e.what()).empty()) fail("refused without a message");
    return 0;
  }
  if (ids.size() % (layers * top_k) != 0) fail("accepted a partial row");
  for (int32_t id : ids) {
    if (id < 0 || static_cast<uint32_t>(id) >= experts) fail("accepted id " + std::to_string(id));
  }
  if (dopant::replay_codec::encode_sglang(ids) != text) fail("accepted text that does not re-encode to itself");
  return 0;
}
