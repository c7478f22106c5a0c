// libFuzzer target for the safe pickle reader. A refusal must be an sdk::Error naming the
// source and byte; any other exception, a crash or a sanitizer report is a bug. An accepted
// pickle's tree is walked (depth-bounded, since the memo may share nodes): every call and
// object must be made from an allow-listed global, and a call's arguments must be a tuple.
#include "dopant/pickle/pickle.hpp"

#include <dopant/sdk/errors.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

namespace pickle = dopant::pickle;
using Kind = pickle::Node::Kind;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "pickle_fuzzer: %s\n", what.c_str());
  std::abort();
}

void walk(const pickle::Node& node, int depth, uint64_t& budget) {
  if (depth > 32 || budget == 0) return;
  --budget;
  if (node.kind == Kind::call || node.kind == Kind::object) {
    if (node.items.size() != 2 || node.items[0]->kind != Kind::global) fail("a call or object not made from a global");
    if (node.items[1]->kind != Kind::tuple) fail("a call or object whose arguments are not a tuple");
  }
  if (node.kind == Kind::dict && node.items.size() % 2 != 0) fail("a dict with a key and no value");
  for (const pickle::Node* item : node.items) walk(*item, depth + 1, budget);
  if (node.state != nullptr) walk(*node.state, depth + 1, budget);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const pickle::Document document = pickle::read(std::string_view(reinterpret_cast<const char*>(data), size), "input");
    uint64_t budget = 100000;
    walk(document.root(), 0, budget);
  } catch (const dopant::sdk::Error& e) {
    if (std::string_view(e.what()).substr(0, 12) != "input: byte ") fail(std::string("message without the byte: ") + e.what());
  }
  return 0;
}
