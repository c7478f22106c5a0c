// A pickle writer for the files dopant makes in PyTorch's formats (a generated checkpoint's
// DCP `.metadata`, a torch.save archive's data.pkl): the caller drives the pickle machine
// one opcode at a time, as Python's pickler would, and gets the bytes. It writes only the
// opcodes the safe reader (pickle.hpp) reads, each in the form every protocol from 2 on
// accepts (GLOBAL rather than STACK_GLOBAL, BINUNICODE, no memo, no frames), so Python's
// own unpickler loads the result too.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace dopant::pickle {

class Writer {
 public:
  explicit Writer(int protocol);  // PROTO

  Writer& none();
  Writer& boolean(bool value);
  Writer& integer(int64_t value);  // the shortest of BININT1, BININT2, BININT, LONG1
  Writer& floating(double value);  // BINFLOAT
  Writer& string(std::string_view utf8);
  Writer& global(std::string_view module, std::string_view name);
  Writer& mark();
  Writer& tuple();  // the values since the mark
  Writer& empty_tuple();
  Writer& empty_list();
  Writer& empty_dict();
  Writer& appends();    // to the list below the mark, the values since it
  Writer& set_items();  // to the dict below the mark, the key, value pairs since it
  Writer& reduce();     // callable, argument tuple -> call
  Writer& new_object(); // class, argument tuple -> object (NEWOBJ)
  Writer& build();      // object, state -> object with state
  Writer& persistent_id();  // BINPERSID: the value on the stack becomes a persistent id

  // The pickle: everything written, then STOP. The writer is spent afterwards.
  std::string finish();

 private:
  Writer& op(uint8_t code);
  Writer& little_endian(uint64_t value, int bytes);
  std::string out_;
};

}  // namespace dopant::pickle
