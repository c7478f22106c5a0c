// Parameter values from TOML nodes and validation of parameter tables against schemas.
#include "config_values.hpp"

#include <dopant/support/text.hpp>

#include <algorithm>
#include <cmath>

namespace dopant {
namespace {

bool fail(std::string* error, std::string message) {
  if (error) *error = std::move(message);
  return false;
}

std::string expected_message(const ParamSchema& schema, const toml::node& node) {
  std::string expected = param_type_name(schema.type);
  if (schema.type == ParamType::Size) expected = "size (integer or string like \"256MiB\")";
  if (schema.type == ParamType::Enum) expected = "one of " + quoted_list(schema.choices);
  return "expected " + expected + ", got " + toml_type_name(node);
}

bool read_node(const ParamSchema& schema, const toml::node& node, ParamValue* value,
               std::string* error) {
  switch (schema.type) {
    case ParamType::Bool:
      if (const auto* boolean = node.as_boolean()) {
        value->boolean = boolean->get();
        return true;
      }
      break;
    case ParamType::Int:
      if (const auto* integer = node.as_integer()) {
        value->integer = integer->get();
        return true;
      }
      break;
    case ParamType::Float:
      if (const auto* real = node.as_floating_point()) {
        if (!std::isfinite(real->get())) return fail(error, "expected a finite number");
        value->real = real->get();
        return true;
      }
      if (const auto* integer = node.as_integer()) {
        value->real = static_cast<double>(integer->get());
        return true;
      }
      break;
    case ParamType::Size:
      if (!node.is_integer() && !node.is_string()) break;
      if (const auto size = size_from_node(node, error)) {
        value->size = *size;
        return true;
      }
      return false;
    case ParamType::String:
    case ParamType::Enum:
      if (const auto* text = node.as_string()) {
        value->text = text->get();
        return true;
      }
      break;
  }
  return fail(error, expected_message(schema, node));
}

std::vector<std::string> schema_names(const std::vector<ParamSchema>& schemas) {
  std::vector<std::string> names;
  for (const auto& schema : schemas) names.push_back(schema.name);
  return names;
}

const ParamSchema* find_schema(const std::vector<ParamSchema>& schemas, std::string_view name) {
  for (const auto& schema : schemas) {
    if (schema.name == name) return &schema;
  }
  return nullptr;
}

}  // namespace

std::optional<ParamValue> value_from_node(const ParamSchema& schema, const toml::node& node,
                                          std::string* error) {
  ParamValue value;
  value.type = schema.type;
  if (!read_node(schema, node, &value, error)) return std::nullopt;
  if (!check_value_bounds(schema, value, error)) return std::nullopt;
  return value;
}

void apply_table(const toml::table& table, const std::vector<ParamSchema>& schemas,
                 const TableSubject& subject, std::initializer_list<std::string_view> skip,
                 dpt_config& config, Diagnostics& diagnostics) {
  for (auto&& [key, node] : table) {
    const std::string_view name = key.str();
    if (std::find(skip.begin(), skip.end(), name) != skip.end()) continue;
    const ParamSchema* schema = find_schema(schemas, name);
    if (!schema) {
      diagnostics.add(position_of_key(key, node),
                      "unknown " + subject.noun + " " + quote_name(name) + " " + subject.subject +
                          did_you_mean_suffix(name, schema_names(schemas)));
      continue;
    }
    std::string error;
    auto value = value_from_node(*schema, node, &error);
    if (!value) {
      diagnostics.add(position_of(node.source()),
                      subject.noun + " " + quote_name(name) + " " + subject.subject + ": " + error);
      continue;
    }
    config.values.insert_or_assign(schema->name, std::move(*value));
  }
}

}  // namespace dopant
