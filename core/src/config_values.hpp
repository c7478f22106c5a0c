// Typed parameter values read from TOML nodes, and whole tables of parameters validated
// against their schemas: names, types, ranges and choices.
#pragma once

#include "params.hpp"

#include <dopant/support/toml_input.hpp>

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace dopant {

// How messages name a table's entries: noun "parameter", subject "for plugin `adamw`".
struct TableSubject {
  std::string noun;
  std::string subject;
};

// Converts `node` to a value of `schema`'s type and checks its bounds; sets `error` on failure.
std::optional<ParamValue> value_from_node(const ParamSchema& schema, const toml::node& node,
                                          std::string* error);

// Writes every key of `table` except those in `skip` into `config`, reporting unknown names
// (with a suggestion), wrong types and out-of-range values to `diagnostics`.
void apply_table(const toml::table& table, const std::vector<ParamSchema>& schemas,
                 const TableSubject& subject, std::initializer_list<std::string_view> skip,
                 dpt_config& config, Diagnostics& diagnostics);

}  // namespace dopant
