// The safe pickle machine: the opcodes torch.save and DCP metadata use, an allow-list of
// globals, and an inert tree of nodes as the result (see pickle.hpp).
#include "dopant/pickle/pickle.hpp"

#include "opcodes.hpp"

#include <dopant/sdk/errors.hpp>
#include <dopant/support/text.hpp>

#include <cstring>
#include <map>

namespace dopant::pickle {
namespace {

using namespace opcodes;  // NOLINT: the table of one-byte names this machine reads

// Every class and function a pickle may name: module, then names.
struct Allowed {
  const char* module;
  std::vector<const char*> names;
};

const std::vector<Allowed>& allow_list() {
  static const std::vector<Allowed> list = {
      {"collections", {"OrderedDict"}},
      {"torch._utils", {"_rebuild_tensor_v2"}},
      {"torch",
       {"Size", "FloatStorage", "DoubleStorage", "HalfStorage", "BFloat16Storage", "LongStorage", "IntStorage",
        "ShortStorage", "CharStorage", "ByteStorage", "BoolStorage", "float64", "float32", "float16", "bfloat16",
        "int64", "int32", "int16", "int8", "uint8", "bool"}},
      {"torch.serialization", {"_get_layout"}},
      // builtins.getattr only reads an enum member; its arguments are checked at REDUCE.
      {"builtins", {"getattr"}},
      // Distributed checkpoint metadata, under its current and its PyTorch 1.13 names.
      {"torch.distributed.checkpoint.metadata",
       {"Metadata", "TensorStorageMetadata", "BytesStorageMetadata", "ChunkStorageMetadata", "MetadataIndex",
        "TensorProperties", "StorageMeta", "_MEM_FORMAT_ENCODING"}},
      {"torch.distributed._shard.checkpoint.metadata",
       {"Metadata", "TensorStorageMetadata", "BytesStorageMetadata", "ChunkStorageMetadata", "MetadataIndex"}},
      {"torch.distributed._shard.sharded_tensor.metadata", {"TensorProperties", "MEM_FORMAT_ENCODING"}},
      {"torch.distributed.checkpoint.filesystem", {"_StorageInfo"}},
      {"torch.distributed._shard.checkpoint.filesystem", {"_StorageInfo"}},
      // Megatron's legacy checkpoint (model_optim_rng.pt): its `args` and the numpy random
      // state in `rng_state` (an ndarray rebuilt from latin-1 text that _codecs.encode makes
      // bytes under protocol 2), all kept as inert nodes like every other value.
      {"argparse", {"Namespace"}},
      {"_codecs", {"encode"}},
      {"numpy", {"ndarray", "dtype"}},
      {"numpy.core.multiarray", {"_reconstruct"}},
      {"numpy._core.multiarray", {"_reconstruct"}},
  };
  return list;
}

bool allowed(std::string_view module, std::string_view name) {
  for (const Allowed& entry : allow_list()) {
    if (module != entry.module) continue;
    for (const char* allowed_name : entry.names) {
      if (name == allowed_name) return true;
    }
  }
  return false;
}

class Machine {
 public:
  Machine(std::string_view bytes, const std::string& source, std::deque<Node>& nodes)
      : in_(bytes), source_(source), nodes_(nodes) {}

  const Node* run() {
    while (true) {
      op_at_ = at_;
      const uint8_t op = byte();
      if (op == kStop) {
        if (stack_.size() != 1 || !marks_.empty()) bad("STOP with " + std::to_string(stack_.size()) + " values on the stack");
        return stack_.back();
      }
      step(op);
    }
  }

 private:
  [[noreturn]] void bad(const std::string& what, dpt_code code = DPT_DATA_LOSS) const {
    sdk::fail(code, source_ + ": byte " + std::to_string(op_at_) + ": " + what);
  }

  // ---- input, all little-endian except BINFLOAT ----
  std::string_view take(uint64_t count) {
    if (count > in_.size() - at_) bad("truncated: needs " + std::to_string(count) + " more bytes");
    const std::string_view part = in_.substr(at_, count);
    at_ += count;
    return part;
  }
  uint8_t byte() { return static_cast<uint8_t>(take(1)[0]); }
  uint64_t unsigned_le(int bytes) {
    const std::string_view part = take(static_cast<uint64_t>(bytes));
    uint64_t value = 0;
    for (int i = bytes - 1; i >= 0; --i) value = (value << 8) | static_cast<uint8_t>(part[i]);
    return value;
  }
  std::string line() {  // GLOBAL's operands: text up to a newline
    const size_t end = in_.find('\n', at_);
    if (end == std::string_view::npos) bad("truncated: GLOBAL without its newline");
    std::string text(in_.substr(at_, end - at_));
    at_ = end + 1;
    return text;
  }

  // ---- nodes and the stack ----
  Node* make(Node::Kind kind) {
    nodes_.emplace_back();
    nodes_.back().kind = kind;
    return &nodes_.back();
  }
  void push(const Node* node) { stack_.push_back(node); }
  const Node* pop() {
    if (stack_.size() <= floor()) bad("stack underflow");
    const Node* node = stack_.back();
    stack_.pop_back();
    return node;
  }
  size_t floor() const { return marks_.empty() ? 0 : marks_.back(); }
  std::vector<const Node*> pop_to_mark() {
    if (marks_.empty()) bad("no MARK to pop to");
    std::vector<const Node*> items(stack_.begin() + static_cast<std::ptrdiff_t>(marks_.back()), stack_.end());
    stack_.resize(marks_.back());
    marks_.pop_back();
    return items;
  }
  // The node below the top, which APPEND/SETITEM/BUILD change: pickles build values
  // in place, so these are the one place a node is modified after it was made.
  Node* target(Node::Kind kind, const char* what) {
    if (stack_.size() <= floor()) bad(std::string(what) + " on an empty stack");
    const Node* node = stack_.back();
    if (node->kind != kind) bad(std::string(what) + " on a value that is not a " + (kind == Node::Kind::list ? "list" : "dict"));
    return const_cast<Node*>(node);
  }

  const Node* tuple(std::vector<const Node*> items) {
    Node* node = make(Node::Kind::tuple);
    node->items = std::move(items);
    return node;
  }

  const Node* global(const std::string& module, const std::string& name) {
    if (!allowed(module, name)) {
      bad("global " + quote_name(module + "." + name) + " is not on the allow-list; nothing was executed",
          DPT_PERMISSION_DENIED);
    }
    Node* node = make(Node::Kind::global);
    node->text = module;
    node->name = name;
    return node;
  }

  void reduce() {
    const Node* args = pop();
    const Node* callable = pop();
    if (callable->kind != Node::Kind::global) bad("REDUCE of a value that is not an allow-listed global");
    if (args->kind != Node::Kind::tuple) bad("REDUCE with arguments that are not a tuple");
    const std::string called = callable->qualified_name();
    if (called == "collections.OrderedDict") {  // an empty dict that SETITEMS fills
      if (!args->items.empty()) bad("collections.OrderedDict called with arguments");
      push(make(Node::Kind::dict));
      return;
    }
    if (called == "builtins.getattr") {  // an enum member: getattr(allow-listed class, "NAME")
      if (args->items.size() != 2 || args->items[0]->kind != Node::Kind::global ||
          args->items[1]->kind != Node::Kind::string) {
        bad("builtins.getattr is allowed only on an allow-listed class and a name");
      }
    }
    Node* node = make(Node::Kind::call);
    node->items = {callable, args};
    push(node);
  }

  void memo_put(uint64_t index) {
    if (stack_.size() <= floor()) bad("memo store from an empty stack");
    memo_[index] = stack_.back();
  }
  void memo_get(uint64_t index) {
    const auto found = memo_.find(index);
    if (found == memo_.end()) bad("memo index " + std::to_string(index) + " was never stored");
    push(found->second);
  }

  void step(uint8_t op) {
    switch (op) {
      case kProto: {
        const uint8_t version = byte();
        if (version > 5) bad("pickle protocol " + std::to_string(version) + " is newer than 5");
        break;
      }
      case kFrame: {
        const uint64_t length = unsigned_le(8);
        if (length > in_.size() - at_) bad("truncated: FRAME of " + std::to_string(length) + " bytes runs past the end");
        break;
      }
      case kMark: marks_.push_back(stack_.size()); break;
      case kPop: pop(); break;
      case kPopMark: pop_to_mark(); break;
      case kDup: {
        const Node* top = pop();
        push(top);
        push(top);
        break;
      }
      case kNone: push(make(Node::Kind::none)); break;
      case kNewTrue:
      case kNewFalse: {
        Node* node = make(Node::Kind::boolean);
        node->boolean = op == kNewTrue;
        push(node);
        break;
      }
      case kBinInt: integer(static_cast<int32_t>(unsigned_le(4))); break;
      case kBinInt1: integer(byte()); break;
      case kBinInt2: integer(static_cast<int64_t>(unsigned_le(2))); break;
      case kLong1:
      case kLong4: {
        const uint64_t length = op == kLong1 ? byte() : unsigned_le(4);
        if (length > 8) bad("integer of " + std::to_string(length) + " bytes is wider than 64 bits");
        if (length == 0) {
          integer(0);
          break;
        }
        uint64_t value = unsigned_le(static_cast<int>(length));
        if (length < 8 && (value >> (8 * length - 1)) != 0) value |= ~uint64_t{0} << (8 * length);  // sign-extend
        integer(static_cast<int64_t>(value));
        break;
      }
      case kBinFloat: {
        const std::string_view part = take(8);  // big-endian IEEE 754 double
        uint64_t bits = 0;
        for (const char c : part) bits = (bits << 8) | static_cast<uint8_t>(c);
        Node* node = make(Node::Kind::floating);
        std::memcpy(&node->floating, &bits, sizeof bits);
        push(node);
        break;
      }
      case kShortBinUnicode: text(Node::Kind::string, byte()); break;
      case kBinUnicode: text(Node::Kind::string, unsigned_le(4)); break;
      case kBinUnicode8: text(Node::Kind::string, unsigned_le(8)); break;
      case kShortBinBytes: text(Node::Kind::bytes, byte()); break;
      case kBinBytes: text(Node::Kind::bytes, unsigned_le(4)); break;
      case kBinBytes8: text(Node::Kind::bytes, unsigned_le(8)); break;
      case kEmptyTuple: push(tuple({})); break;
      case kTuple: push(tuple(pop_to_mark())); break;
      case kTuple1:
      case kTuple2:
      case kTuple3: {
        std::vector<const Node*> items(static_cast<size_t>(op - kTuple1 + 1));
        for (size_t i = items.size(); i-- > 0;) items[i] = pop();
        push(tuple(std::move(items)));
        break;
      }
      case kEmptyList: push(make(Node::Kind::list)); break;
      case kList: {
        Node* node = make(Node::Kind::list);
        node->items = pop_to_mark();
        push(node);
        break;
      }
      case kEmptyDict: push(make(Node::Kind::dict)); break;
      case kDict: {
        std::vector<const Node*> items = pop_to_mark();
        if (items.size() % 2 != 0) bad("DICT with a key and no value");
        Node* node = make(Node::Kind::dict);
        node->items = std::move(items);
        push(node);
        break;
      }
      case kAppend: {
        const Node* value = pop();
        target(Node::Kind::list, "APPEND")->items.push_back(value);
        break;
      }
      case kAppends: {
        std::vector<const Node*> values = pop_to_mark();
        Node* list = target(Node::Kind::list, "APPENDS");
        list->items.insert(list->items.end(), values.begin(), values.end());
        break;
      }
      case kSetItem: {
        const Node* value = pop();
        const Node* key = pop();
        Node* dict = target(Node::Kind::dict, "SETITEM");
        dict->items.push_back(key);
        dict->items.push_back(value);
        break;
      }
      case kSetItems: {
        std::vector<const Node*> pairs = pop_to_mark();
        if (pairs.size() % 2 != 0) bad("SETITEMS with a key and no value");
        Node* dict = target(Node::Kind::dict, "SETITEMS");
        dict->items.insert(dict->items.end(), pairs.begin(), pairs.end());
        break;
      }
      case kBinPut: memo_put(byte()); break;
      case kLongBinPut: memo_put(unsigned_le(4)); break;
      case kMemoize: memo_put(memo_.size()); break;
      case kBinGet: memo_get(byte()); break;
      case kLongBinGet: memo_get(unsigned_le(4)); break;
      case kGlobal: {
        const std::string module = line();
        const std::string name = line();
        push(global(module, name));
        break;
      }
      case kStackGlobal: {
        const Node* name = pop();
        const Node* module = pop();
        if (module->kind != Node::Kind::string || name->kind != Node::Kind::string) bad("STACK_GLOBAL of non-strings");
        push(global(module->text, name->text));
        break;
      }
      case kReduce: reduce(); break;
      case kNewObj: {
        const Node* args = pop();
        const Node* cls = pop();
        if (cls->kind != Node::Kind::global) bad("NEWOBJ of a value that is not an allow-listed class");
        if (args->kind != Node::Kind::tuple) bad("NEWOBJ with arguments that are not a tuple");
        Node* node = make(Node::Kind::object);
        node->items = {cls, args};
        push(node);
        break;
      }
      case kBuild: {
        const Node* state = pop();
        if (stack_.size() <= floor()) bad("BUILD on an empty stack");
        const Node* node = stack_.back();
        // numpy's arrays and dtypes are REDUCE results that BUILD then fills: calls take a state too.
        if (node->kind != Node::Kind::object && node->kind != Node::Kind::dict && node->kind != Node::Kind::call) {
          bad("BUILD on a value that is not an object");
        }
        const_cast<Node*>(node)->state = state;
        break;
      }
      case kBinPersId: {
        Node* node = make(Node::Kind::persistent_id);
        node->items = {pop()};
        push(node);
        break;
      }
      default: {
        static const char* const kHex = "0123456789abcdef";
        bad(std::string("opcode 0x") + kHex[op >> 4] + kHex[op & 15] + " is not one this reader accepts");
      }
    }
  }

  void integer(int64_t value) {
    Node* node = make(Node::Kind::integer);
    node->integer = value;
    push(node);
  }
  void text(Node::Kind kind, uint64_t length) {
    Node* node = make(kind);
    node->text = std::string(take(length));
    push(node);
  }

  std::string_view in_;
  const std::string& source_;
  std::deque<Node>& nodes_;
  size_t at_ = 0, op_at_ = 0;
  std::vector<const Node*> stack_;
  std::vector<size_t> marks_;
  std::map<uint64_t, const Node*> memo_;
};

}  // namespace

std::string Node::qualified_name() const {
  switch (kind) {
    case Kind::global: return text + "." + name;
    case Kind::call:
    case Kind::object: return items[0]->qualified_name();
    default: return "";
  }
}

const Node* Node::find(std::string_view key) const {
  if (kind != Kind::dict) return nullptr;
  for (size_t i = 0; i + 1 < items.size(); i += 2) {
    if (items[i]->kind == Kind::string && items[i]->text == key) return items[i + 1];
  }
  return nullptr;
}

Document read(std::string_view bytes, const std::string& source) {
  Document document;
  document.root_ = Machine(bytes, source, document.nodes_).run();
  return document;
}

}  // namespace dopant::pickle
