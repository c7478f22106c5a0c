// Typed parameter values and schemas: what plugins and workloads declare through
// dpt_param_decl, parsed once, and the concrete dpt_config that carries validated values.
#pragma once

#include <dopant/plugin.h>
#include <dopant/support/text.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dopant {

enum class ParamType { Bool = DPT_PARAM_BOOL, Int = DPT_PARAM_INT, Float = DPT_PARAM_FLOAT,
                       String = DPT_PARAM_STRING, Size = DPT_PARAM_SIZE, Enum = DPT_PARAM_ENUM };

// "bool", "int", "float", "string", "size", "enum".
const char* param_type_name(ParamType type);

// One value; only the member that matches `type` is meaningful (Enum uses `text`).
struct ParamValue {
  ParamType type = ParamType::String;
  bool boolean = false;
  int64_t integer = 0;
  double real = 0.0;
  uint64_t size = 0;
  std::string text;
};

// The value as config text: "true", "42", "0.0001", "256MiB", "fp32".
std::string format_value(const ParamValue& value);

struct ParamSchema {
  std::string name;
  ParamType type = ParamType::String;
  ParamValue default_value;
  std::optional<ParamValue> min;  // int, float, size
  std::optional<ParamValue> max;
  std::vector<std::string> choices;  // enum
  std::string unit;
  std::string doc;
};

// Parses the declarations of one plugin or workload. Throws Error(DPT_INVALID_ARGUMENT)
// naming `owner` and the parameter when a default, bound or choice list does not parse or
// the default lies outside its own bounds.
std::vector<ParamSchema> parse_param_decls(const dpt_param_decl* const* decls, uint32_t count,
                                           const std::string& owner);

// Parses config text into a value of `schema`'s type and checks range and choices.
// Returns nullopt and sets `error` ("expected size like \"256MiB\"", "must be <= 1").
std::optional<ParamValue> parse_value_text(const ParamSchema& schema, std::string_view text,
                                           std::string* error);

// Checks a value against the schema's bounds and choices; sets `error` and returns false.
bool check_value_bounds(const ParamSchema& schema, const ParamValue& value, std::string* error);


}  // namespace dopant

// Validated parameters of one plugin or workload instance; every declared name has a value.
struct dpt_config {
  std::string owner;  // plugin id or workload name, for messages
  std::map<std::string, dopant::ParamValue, std::less<>> values;
};

namespace dopant {
// A config holding every declared default.
dpt_config defaults_config(const std::string& owner, const std::vector<ParamSchema>& schemas);
}  // namespace dopant
