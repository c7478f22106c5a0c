// Reading JSON: one strict reader for every JSON input dopant takes (the output of
// `dopant run --json` read by the A/B harness, safetensors headers and indexes, the tests'
// checks of dopant's own JSON). RFC 8259 to the letter: a duplicate key in an object, a
// malformed number, an unpaired surrogate escape, a control character in a string and
// trailing text are errors; nesting is bounded (64 levels), so hostile input cannot
// exhaust the stack.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace dopant {

class JsonValue {
 public:
  enum class Type { null, boolean, number, string, array, object };

  JsonValue() = default;  // null

  Type type() const { return type_; }
  bool is(Type type) const { return type_ == type; }
  bool boolean() const;
  double number() const;
  // The number as an exact unsigned integer: throws std::runtime_error unless it was
  // written as digits alone (no sign, fraction or exponent) and fits 64 bits.
  uint64_t unsigned_integer() const;
  const std::string& string() const;
  const std::vector<JsonValue>& array() const;
  const std::map<std::string, JsonValue>& object() const;
  // Member of an object; throws std::runtime_error naming the key when missing.
  const JsonValue& at(const std::string& key) const;
  bool has(const std::string& key) const;

  static JsonValue make_null() { return JsonValue(Type::null); }
  static JsonValue make_boolean(bool value);
  static JsonValue make_number(double value, std::string text = {});
  static JsonValue make_string(std::string value);
  static JsonValue make_array(std::vector<JsonValue> items);
  static JsonValue make_object(std::map<std::string, JsonValue> members);

 private:
  explicit JsonValue(Type type) : type_(type) {}
  Type type_ = Type::null;
  bool boolean_ = false;
  double number_ = 0;
  std::string string_;  // a string's value, or a number's text as written
  std::vector<JsonValue> array_;
  std::map<std::string, JsonValue> object_;
};

// Parses a whole document; throws std::runtime_error "JSON: WHAT at byte N".
JsonValue parse_json(std::string_view text);

}  // namespace dopant
