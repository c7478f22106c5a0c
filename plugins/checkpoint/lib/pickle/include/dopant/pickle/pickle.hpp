// A safe reader of Python pickles, for the files PyTorch writes: `torch.save` (protocol 2,
// the data.pkl of its zip) and a distributed checkpoint's `.metadata` (protocol 4). It runs
// the pickle machine over the opcodes those use and builds an inert tree of values; nothing
// is ever executed. A class or function is resolved only through an allow-list of module +
// name (torch's tensor rebuild and storages, torch.Size and dtypes, collections.OrderedDict,
// DCP's metadata classes under both their current and PyTorch 1.13 module names, and what
// Megatron's legacy checkpoints add: argparse.Namespace, numpy's random state); any other
// (`os.system`, `builtins.eval`) is refused where it is named. Memory stays proportional to
// the input: each opcode adds at most one node.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

namespace dopant::pickle {

struct Node {
  enum class Kind {
    none,
    boolean,
    integer,        // up to 64 bits signed
    floating,       // BINFLOAT
    string,         // UTF-8 text in `text`
    bytes,          // raw bytes in `text`
    tuple,          // items
    list,           // items
    dict,           // items: key, value, key, value, ... in insertion order
    global,         // an allow-listed class or function: `text` module, `name` name
    call,           // REDUCE: items[0] the global called, items[1] its argument tuple
    object,         // NEWOBJ: items[0] the class, items[1] its argument tuple; `state` from BUILD
    persistent_id,  // BINPERSID: items[0] the id (torch.save: a tuple naming a storage)
  };
  Kind kind = Kind::none;
  bool boolean = false;
  int64_t integer = 0;
  double floating = 0;
  std::string text;
  std::string name;
  std::vector<const Node*> items;
  const Node* state = nullptr;  // BUILD's argument, for objects, calls (numpy's) and dicts (an OrderedDict's attributes)

  // "module.name" of a global, or of the global a call or object is made from; "" otherwise.
  std::string qualified_name() const;
  // The value of key `key` (a string) in a dict, or nullptr.
  const Node* find(std::string_view key) const;
};

// The values of one pickle; nodes may be shared (the memo), so walk with a depth bound.
class Document {
 public:
  const Node& root() const { return *root_; }

 private:
  friend Document read(std::string_view bytes, const std::string& source);
  std::deque<Node> nodes_;
  const Node* root_ = nullptr;
};

// Reads one pickle. Refusals are sdk::Error naming `source` and the byte offset:
// DPT_PERMISSION_DENIED for a global not on the allow-list, DPT_DATA_LOSS for anything
// else malformed (unknown opcode, truncated input, stack misuse, bad memo index).
Document read(std::string_view bytes, const std::string& source);

}  // namespace dopant::pickle
