// A small JSON reader for the harness's inputs (the output of `dopant run --json`) and for
// checking its own JSON in tests: objects, arrays, strings, numbers, true/false/null.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace dopant::ab {

class JsonValue {
 public:
  enum class Type { null, boolean, number, string, array, object };

  Type type() const { return type_; }
  bool is(Type type) const { return type_ == type; }
  bool boolean() const;
  double number() const;
  const std::string& string() const;
  const std::vector<JsonValue>& array() const;
  const std::map<std::string, JsonValue>& object() const;
  // Member of an object; throws std::runtime_error naming the key when missing.
  const JsonValue& at(const std::string& key) const;
  bool has(const std::string& key) const;

  static JsonValue make_null() { return JsonValue(Type::null); }
  static JsonValue make_boolean(bool value);
  static JsonValue make_number(double value);
  static JsonValue make_string(std::string value);
  static JsonValue make_array(std::vector<JsonValue> items);
  static JsonValue make_object(std::map<std::string, JsonValue> members);

 private:
  explicit JsonValue(Type type) : type_(type) {}
  Type type_;
  bool boolean_ = false;
  double number_ = 0;
  std::string string_;
  std::vector<JsonValue> array_;
  std::map<std::string, JsonValue> object_;
};

// Parses a whole document; throws std::runtime_error with the byte offset of the problem.
JsonValue parse_json(std::string_view text);

}  // namespace dopant::ab
