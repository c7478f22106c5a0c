// Strict recursive-descent JSON parsing into JsonValue (RFC 8259).
#include "dopant/support/json_value.hpp"

#include "dopant/support/text.hpp"

#include <cstdlib>
#include <stdexcept>

namespace dopant {
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
    return parse_number();
  }

  JsonValue parse_object(int depth) {
    expect('{');
    std::map<std::string, JsonValue> members;
    if (consume('}')) return JsonValue::make_object(std::move(members));
    do {
      skip_space();
      const size_t key_at = pos_;
      std::string key = parse_string();
      expect(':');
      JsonValue value = parse_value(depth + 1);
      if (!members.emplace(key, std::move(value)).second) {
        pos_ = key_at;
        fail("duplicate key " + quote_name(key));
      }
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

  // number = [ "-" ] int [ frac ] [ exp ]; int = "0" / digit1-9 *digit
  JsonValue parse_number() {
    const size_t start = pos_;
    const auto digits = [&] {
      const size_t first = pos_;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
      return pos_ - first;
    };
    if (pos_ < text_.size() && text_[pos_] == '-') ++pos_;
    const size_t int_at = pos_;
    const size_t int_digits = digits();
    if (int_digits == 0) fail(pos_ == start ? "unexpected character" : "malformed number");
    if (int_digits > 1 && text_[int_at] == '0') fail("malformed number (leading zero)");
    if (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      if (digits() == 0) fail("malformed number");
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      if (digits() == 0) fail("malformed number");
    }
    std::string written(text_.substr(start, pos_ - start));
    const double value = std::strtod(written.c_str(), nullptr);
    return JsonValue::make_number(value, std::move(written));
  }

  static void append_utf8(std::string& out, unsigned code) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xC0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xE0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    }
  }

  // The four hex digits of a \u escape, the "\u" already consumed.
  unsigned parse_hex4() {
    if (pos_ + 4 > text_.size()) fail("short \\u escape");
    unsigned code = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = text_[pos_++];
      const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
      if (digit < 0) fail("malformed \\u escape");
      code = code * 16 + static_cast<unsigned>(digit);
    }
    return code;
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
          unsigned code = parse_hex4();
          if (code >= 0xDC00 && code <= 0xDFFF) fail("unpaired surrogate in \\u escape");
          if (code >= 0xD800 && code <= 0xDBFF) {  // a high surrogate: a low one must follow
            if (text_.substr(pos_, 2) != "\\u") fail("unpaired surrogate in \\u escape");
            pos_ += 2;
            const unsigned low = parse_hex4();
            if (low < 0xDC00 || low > 0xDFFF) fail("unpaired surrogate in \\u escape");
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
          }
          append_utf8(out, code);
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
uint64_t JsonValue::unsigned_integer() const {
  if (type_ != Type::number) wrong_type("a number");
  if (string_.empty() || string_.find_first_not_of("0123456789") != std::string::npos) {
    wrong_type("an integer of digits alone");
  }
  uint64_t value = 0;
  for (const char c : string_) {
    if (__builtin_mul_overflow(value, 10u, &value) || __builtin_add_overflow(value, static_cast<unsigned>(c - '0'), &value)) {
      wrong_type("an integer under 2^64");
    }
  }
  return value;
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
JsonValue JsonValue::make_number(double value, std::string text) {
  JsonValue v(Type::number);
  v.number_ = value;
  v.string_ = std::move(text);
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

}  // namespace dopant
