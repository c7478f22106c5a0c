// Recursive-descent JSON parsing into JsonValue.
#include "json_value.hpp"

#include <cstdlib>
#include <stdexcept>

namespace dopant::ab {
namespace {

constexpr int kMaxDepth = 64;

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  JsonValue document() {
    JsonValue value = parse_value(0);
    skip_space();
    if (pos_ != text_.size()) fail("trailing characters");
    return value;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("JSON: " + what + " at byte " + std::to_string(pos_));
  }

  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\t' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }

  bool consume(char c) {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  void expect(char c) {
    if (!consume(c)) fail(std::string("expected `") + c + "`");
  }

  bool consume_word(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  JsonValue parse_value(int depth) {
    if (depth > kMaxDepth) fail("nesting too deep");
    skip_space();
    if (pos_ >= text_.size()) fail("unexpected end");
    const char c = text_[pos_];
    if (c == '{') return parse_object(depth);
    if (c == '[') return parse_array(depth);
    if (c == '"') return JsonValue::make_string(parse_string());
    if (consume_word("true")) return JsonValue::make_boolean(true);
    if (consume_word("false")) return JsonValue::make_boolean(false);
    if (consume_word("null")) return JsonValue::make_null();
    return JsonValue::make_number(parse_number());
  }

  JsonValue parse_object(int depth) {
    expect('{');
    std::map<std::string, JsonValue> members;
    if (consume('}')) return JsonValue::make_object(std::move(members));
    do {
      skip_space();
      std::string key = parse_string();
      expect(':');
      members.insert_or_assign(std::move(key), parse_value(depth + 1));
    } while (consume(','));
    expect('}');
    return JsonValue::make_object(std::move(members));
  }

  JsonValue parse_array(int depth) {
    expect('[');
    std::vector<JsonValue> items;
    if (consume(']')) return JsonValue::make_array(std::move(items));
    do {
      items.push_back(parse_value(depth + 1));
    } while (consume(','));
    expect(']');
    return JsonValue::make_array(std::move(items));
  }

  double parse_number() {
    const size_t start = pos_;
    while (pos_ < text_.size() && std::string_view("+-0123456789.eE").find(text_[pos_]) != std::string_view::npos) ++pos_;
    if (pos_ == start) fail("unexpected character");
    const std::string digits(text_.substr(start, pos_ - start));
    char* end = nullptr;
    const double value = std::strtod(digits.c_str(), &end);
    if (end != digits.c_str() + digits.size()) fail("malformed number");
    return value;
  }

  void append_utf8(std::string& out, unsigned code) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xC0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xE0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    }
  }

  std::string parse_string() {
    if (pos_ >= text_.size() || text_[pos_] != '"') fail("expected a string");
    ++pos_;
    std::string out;
    while (true) {
      if (pos_ >= text_.size()) fail("unterminated string");
      const char c = text_[pos_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= text_.size()) fail("unterminated string");
      const char escape = text_[pos_++];
      switch (escape) {
        case '"': case '\\': case '/': out += escape; break;
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'u': {
          if (pos_ + 4 > text_.size()) fail("short \\u escape");
          const std::string hex(text_.substr(pos_, 4));
          char* end = nullptr;
          const unsigned long code = std::strtoul(hex.c_str(), &end, 16);
          if (end != hex.c_str() + 4) fail("malformed \\u escape");
          pos_ += 4;
          append_utf8(out, static_cast<unsigned>(code));
          break;
        }
        default: fail("unknown escape");
      }
    }
  }

  std::string_view text_;
  size_t pos_ = 0;
};

[[noreturn]] void wrong_type(const char* wanted) {
  throw std::runtime_error(std::string("JSON: expected ") + wanted);
}

}  // namespace

bool JsonValue::boolean() const {
  if (type_ != Type::boolean) wrong_type("true or false");
  return boolean_;
}
double JsonValue::number() const {
  if (type_ != Type::number) wrong_type("a number");
  return number_;
}
const std::string& JsonValue::string() const {
  if (type_ != Type::string) wrong_type("a string");
  return string_;
}
const std::vector<JsonValue>& JsonValue::array() const {
  if (type_ != Type::array) wrong_type("an array");
  return array_;
}
const std::map<std::string, JsonValue>& JsonValue::object() const {
  if (type_ != Type::object) wrong_type("an object");
  return object_;
}
const JsonValue& JsonValue::at(const std::string& key) const {
  const auto& members = object();
  const auto found = members.find(key);
  if (found == members.end()) throw std::runtime_error("JSON: missing member `" + key + "`");
  return found->second;
}
bool JsonValue::has(const std::string& key) const { return object().count(key) != 0; }

JsonValue JsonValue::make_boolean(bool value) {
  JsonValue v(Type::boolean);
  v.boolean_ = value;
  return v;
}
JsonValue JsonValue::make_number(double value) {
  JsonValue v(Type::number);
  v.number_ = value;
  return v;
}
JsonValue JsonValue::make_string(std::string value) {
  JsonValue v(Type::string);
  v.string_ = std::move(value);
  return v;
}
JsonValue JsonValue::make_array(std::vector<JsonValue> items) {
  JsonValue v(Type::array);
  v.array_ = std::move(items);
  return v;
}
JsonValue JsonValue::make_object(std::map<std::string, JsonValue> members) {
  JsonValue v(Type::object);
  v.object_ = std::move(members);
  return v;
}

JsonValue parse_json(std::string_view text) { return Parser(text).document(); }

}  // namespace dopant::ab
