// Parameter values from config text ("1e-4", "256MiB", "true", "fp32") and their checks
// against a schema's range and choices.
#include <dopant/support/text.hpp>
#include "params.hpp"

#include <charconv>
#include <cmath>

namespace dopant {
namespace {

bool fail(std::string* error, std::string message) {
  if (error) *error = std::move(message);
  return false;
}

// Parses the whole of `text` with from_chars, which takes no '+' itself; false when
// anything is left over. One sign only: "+-5" is not a number.
template <typename Number>
bool parse_number(std::string_view text, Number* out) {
  if (!text.empty() && text.front() == '+') {
    text.remove_prefix(1);
    if (!text.empty() && text.front() == '-') return false;
  }
  if (text.empty()) return false;
  const auto result = std::from_chars(text.data(), text.data() + text.size(), *out);
  return result.ec == std::errc() && result.ptr == text.data() + text.size();
}

bool parse_into(const ParamSchema& schema, std::string_view text, ParamValue* value,
                std::string* error) {
  switch (schema.type) {
    case ParamType::Bool:
      if (text != "true" && text != "false") return fail(error, "expected true or false");
      value->boolean = text == "true";
      return true;
    case ParamType::Int:
      if (!parse_number(text, &value->integer)) return fail(error, "expected a 64-bit integer");
      return true;
    case ParamType::Float:
      if (!parse_number(text, &value->real) || !std::isfinite(value->real)) {
        return fail(error, "expected a finite number like 1e-4");
      }
      return true;
    case ParamType::Size: {
      const auto size = parse_size(text, error);
      if (!size) return false;
      value->size = *size;
      return true;
    }
    case ParamType::String:
    case ParamType::Enum:
      value->text = std::string(text);
      return true;
  }
  return fail(error, "unknown parameter type");
}

// -1, 0, 1 as a is below, equal to, above b; both of the schema's numeric type.
int compare(const ParamValue& a, const ParamValue& b) {
  switch (a.type) {
    case ParamType::Int: return a.integer < b.integer ? -1 : a.integer > b.integer ? 1 : 0;
    case ParamType::Float: return a.real < b.real ? -1 : a.real > b.real ? 1 : 0;
    case ParamType::Size: return a.size < b.size ? -1 : a.size > b.size ? 1 : 0;
    default: return 0;
  }
}

}  // namespace

std::optional<ParamValue> parse_value_text(const ParamSchema& schema, std::string_view text,
                                           std::string* error) {
  ParamValue value;
  value.type = schema.type;
  if (!parse_into(schema, text, &value, error)) return std::nullopt;
  if (!check_value_bounds(schema, value, error)) return std::nullopt;
  return value;
}

bool check_value_bounds(const ParamSchema& schema, const ParamValue& value, std::string* error) {
  if (value.type != schema.type) {
    return fail(error, std::string("expected ") + param_type_name(schema.type) + ", got " +
                           param_type_name(value.type));
  }
  if (schema.type == ParamType::Enum) {
    for (const auto& choice : schema.choices) {
      if (choice == value.text) return true;
    }
    return fail(error, "must be one of " + quoted_list(schema.choices) + ", got " +
                           quote_name(value.text) + did_you_mean_suffix(value.text, schema.choices));
  }
  if (schema.min && compare(value, *schema.min) < 0) {
    return fail(error, "must be >= " + format_value(*schema.min) + ", got " + format_value(value));
  }
  if (schema.max && compare(value, *schema.max) > 0) {
    return fail(error, "must be <= " + format_value(*schema.max) + ", got " + format_value(value));
  }
  return true;
}

}  // namespace dopant
