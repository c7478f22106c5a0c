// The pickle writer (see writer.hpp): each call appends one opcode and its operands.
#include "dopant/pickle/writer.hpp"

#include "opcodes.hpp"

#include <dopant/sdk/errors.hpp>

#include <cstring>
#include <limits>

namespace dopant::pickle {

using namespace opcodes;  // NOLINT: the table of one-byte names this writer emits

Writer::Writer(int protocol) {
  sdk::require(protocol >= 2 && protocol <= 5, "pickle writer: protocol must be 2 to 5");
  op(kProto);
  out_.push_back(static_cast<char>(protocol));
}

Writer& Writer::op(uint8_t code) {
  out_.push_back(static_cast<char>(code));
  return *this;
}

Writer& Writer::little_endian(uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out_.push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
  return *this;
}

Writer& Writer::none() { return op(kNone); }
Writer& Writer::boolean(bool value) { return op(value ? kNewTrue : kNewFalse); }

Writer& Writer::integer(int64_t value) {
  if (value >= 0 && value <= 0xFF) return op(kBinInt1).little_endian(static_cast<uint64_t>(value), 1);
  if (value >= 0 && value <= 0xFFFF) return op(kBinInt2).little_endian(static_cast<uint64_t>(value), 2);
  if (value >= std::numeric_limits<int32_t>::min() && value <= std::numeric_limits<int32_t>::max()) {
    return op(kBinInt).little_endian(static_cast<uint64_t>(value), 4);  // two's complement
  }
  // LONG1: a byte count, then the two's complement bytes, least significant first; 8 bytes
  // hold any int64 (Python reads the top bit as the sign).
  op(kLong1);
  out_.push_back(8);
  return little_endian(static_cast<uint64_t>(value), 8);
}

Writer& Writer::floating(double value) {
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  op(kBinFloat);
  for (int i = 7; i >= 0; --i) out_.push_back(static_cast<char>((bits >> (8 * i)) & 0xFF));  // big-endian
  return *this;
}

Writer& Writer::string(std::string_view utf8) {
  sdk::require(utf8.size() <= std::numeric_limits<uint32_t>::max(), "pickle writer: string over 4 GiB");
  op(kBinUnicode).little_endian(utf8.size(), 4);
  out_.append(utf8);
  return *this;
}

Writer& Writer::global(std::string_view module, std::string_view name) {
  sdk::require(module.find('\n') == std::string_view::npos && name.find('\n') == std::string_view::npos,
               "pickle writer: a global's module or name holds a newline");
  op(kGlobal);
  out_.append(module).append("\n").append(name).append("\n");
  return *this;
}

Writer& Writer::mark() { return op(kMark); }
Writer& Writer::tuple() { return op(kTuple); }
Writer& Writer::empty_tuple() { return op(kEmptyTuple); }
Writer& Writer::empty_list() { return op(kEmptyList); }
Writer& Writer::empty_dict() { return op(kEmptyDict); }
Writer& Writer::appends() { return op(kAppends); }
Writer& Writer::set_items() { return op(kSetItems); }
Writer& Writer::reduce() { return op(kReduce); }
Writer& Writer::new_object() { return op(kNewObj); }
Writer& Writer::build() { return op(kBuild); }
Writer& Writer::persistent_id() { return op(kBinPersId); }

std::string Writer::finish() {
  op(kStop);
  return std::move(out_);
}

}  // namespace dopant::pickle
