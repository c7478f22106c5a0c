// A Megatron checkpoint's saved pickle and args (see saved_args.hpp).
#include "dopant/megatron_legacy/saved_args.hpp"

#include <dopant/sdk/errors.hpp>

#include <algorithm>
#include <cstdio>

namespace dopant::megatron_legacy {
namespace {

using pickle::Node;
using Kind = Node::Kind;

constexpr uint64_t kMaxPickleBytes = 1ull << 30;  // a checkpoint file's data.pkl

}  // namespace

std::string scalar_text(const Node& node) {
  switch (node.kind) {
    case Kind::none: return "None";
    case Kind::boolean: return node.boolean ? "True" : "False";
    case Kind::integer: return std::to_string(node.integer);
    case Kind::floating: {
      char text[32];
      std::snprintf(text, sizeof text, "%.17g", node.floating);
      return text;
    }
    case Kind::string: return node.text;
    default: return "";
  }
}

std::pair<std::string, std::string> torch_save_pickle(const checkpoint_io::InputFile& input,
                                                      const std::map<std::string, dcp::ArchiveEntry>& entries) {
  const auto entry = std::find_if(entries.begin(), entries.end(), [](const auto& e) {
    return e.first.size() >= 9 && e.first.compare(e.first.size() - 9, 9, "/data.pkl") == 0;
  });
  if (entry == entries.end()) {
    sdk::fail(DPT_DATA_LOSS, input.path() + ": no data.pkl in its archive (not a torch.save file?)");
  }
  if (entry->second.length > kMaxPickleBytes) sdk::fail(DPT_DATA_LOSS, input.path() + ": data.pkl over 1 GiB");
  std::string bytes(entry->second.length, '\0');
  input.read(bytes.data(), bytes.size(), entry->second.offset);
  return {entry->first, std::move(bytes)};
}

void append_saved_args(const Node& args, sdk::Metadata& out) {
  for (size_t i = 0; args.state != nullptr && i + 1 < args.state->items.size(); i += 2) {
    const Node& name = *args.state->items[i];
    const Node& value = *args.state->items[i + 1];
    if (name.kind == Kind::string && (value.kind == Kind::none || value.kind == Kind::boolean ||
                                      value.kind == Kind::integer || value.kind == Kind::floating ||
                                      value.kind == Kind::string)) {
      out.emplace_back("args." + name.text, scalar_text(value));
    }
  }
}

sdk::Metadata read_saved_args(const std::string& path) {
  const checkpoint_io::InputFile input(path);
  const auto [name, bytes] = torch_save_pickle(input, dcp::archive_entries(input, 0, input.size()));
  const pickle::Document document = pickle::read(bytes, path);
  const Node& root = document.root();
  const Node* args = root.kind == Kind::dict ? root.find("args") : nullptr;
  if (args == nullptr || args->kind != Kind::object || args->qualified_name() != "argparse.Namespace") {
    sdk::fail(DPT_DATA_LOSS, path + ": no `args` (an argparse.Namespace) in its pickle");
  }
  sdk::Metadata out;
  append_saved_args(*args, out);
  return out;
}

}  // namespace dopant::megatron_legacy
