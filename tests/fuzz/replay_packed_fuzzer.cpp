// libFuzzer target for the packed replay decoder, with a bound of 2^20 ids per payload. A
// payload it accepts must hold ids below its expert count and re-encode to the very same
// bytes (the encoding is canonical); one it refuses must say why.
#include <dopant/replay_codec/codecs.hpp>
#include <dopant/sdk/errors.hpp>

#include <cstdint>
#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace {

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "replay_packed_fuzzer: %s\n", what.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  dopant::replay_codec::RoutingRows rows;
  try {
    rows = dopant::replay_codec::decode_packed({data, size}, uint64_t{1} << 20);
  } catch (const dopant::sdk::Error& e) {
    if (std::string_view(e.what()).empty()) fail("refused without a message");
    return 0;
  }
  for (int32_t id : rows.ids) {
    if (id < 0 || static_cast<uint32_t>(id) >= rows.experts) fail("accepted id " + std::to_string(id));
  }
  const std::vector<uint8_t> again = dopant::replay_codec::encode_packed(rows);
  if (again.size() != size || !std::equal(again.begin(), again.end(), data)) {
    fail("accepted bytes that do not re-encode to themselves");
  }
  return 0;
}
