// Names of parameter types, values written back as config text, and configs of defaults.
#include "params.hpp"

#include <array>
#include <charconv>

namespace dopant {
namespace {

// Largest unit first, so 268435456 prints as "256MiB" rather than "262144KiB".
struct SizeSuffix {
  uint64_t bytes;
  const char* name;
};
constexpr std::array<SizeSuffix, 10> kSuffixes{{
    {1ull << 50, "PiB"}, {1000000000000000ull, "PB"}, {1ull << 40, "TiB"},
    {1000000000000ull, "TB"}, {1ull << 30, "GiB"}, {1000000000ull, "GB"},
    {1ull << 20, "MiB"}, {1000000ull, "MB"}, {1ull << 10, "KiB"}, {1000ull, "KB"},
}};

std::string format_size(uint64_t bytes) {
  for (const auto& suffix : kSuffixes) {
    if (bytes != 0 && bytes % suffix.bytes == 0) return std::to_string(bytes / suffix.bytes) + suffix.name;
  }
  return std::to_string(bytes);
}

std::string format_real(double real) {
  std::array<char, 64> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), real,
                                    std::chars_format::general);
  return std::string(buffer.data(), result.ptr);
}

}  // namespace

const char* param_type_name(ParamType type) {
  switch (type) {
    case ParamType::Bool: return "bool";
    case ParamType::Int: return "int";
    case ParamType::Float: return "float";
    case ParamType::String: return "string";
    case ParamType::Size: return "size";
    case ParamType::Enum: return "enum";
  }
  return "unknown";
}

std::string format_value(const ParamValue& value) {
  switch (value.type) {
    case ParamType::Bool: return value.boolean ? "true" : "false";
    case ParamType::Int: return std::to_string(value.integer);
    case ParamType::Float: return format_real(value.real);
    case ParamType::Size: return format_size(value.size);
    case ParamType::String:
    case ParamType::Enum: return value.text;
  }
  return "";
}

dpt_config defaults_config(const std::string& owner, const std::vector<ParamSchema>& schemas) {
  dpt_config config;
  config.owner = owner;
  for (const auto& schema : schemas) config.values.emplace(schema.name, schema.default_value);
  return config;
}

}  // namespace dopant
