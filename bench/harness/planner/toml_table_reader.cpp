// Strict TOML table reading for plan files: declared keys only, typed values, located errors.
#include "toml_table_reader.hpp"

#include <dopant/support/text.hpp>
#include "plan_error.hpp"

#include <algorithm>

namespace dopant::planner {
namespace {

const char* type_name(toml::node_type type) {
  switch (type) {
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a float";
    case toml::node_type::boolean:
      return "a boolean";
    default:
      return "a date or time";
  }
}

}  // namespace

TextPosition position_of(const toml::source_region& region) {
  if (region.begin.line == 0) return {};
  return {region.begin.line, std::max<uint32_t>(region.begin.column, 1)};
}

TableReader::TableReader(const toml::table& table, std::string section, std::vector<std::string> allowed,
                         PlanInput& input)
    : table_(table), section_(std::move(section)), input_(input) {
  for (const auto& [key, node] : table_) {
    if (std::find(allowed.begin(), allowed.end(), key.str()) != allowed.end()) continue;
    fail_at(input_.source, position_of(key.source()),
            "unknown key " + quote_name(dotted(key.str())) + did_you_mean_suffix(key.str(), allowed));
  }
}

std::string TableReader::dotted(std::string_view key) const {
  return section_.empty() ? std::string(key) : section_ + "." + std::string(key);
}

TextPosition TableReader::position(std::string_view key) const {
  const auto found = table_.find(key);
  if (found != table_.end()) return position_of(found->first.source());
  return position_of(table_.source());
}

bool TableReader::has(std::string_view key) const { return table_.contains(key); }

void TableReader::fail(std::string_view key, std::string_view message) const {
  fail_at(input_.source, position(key), quote_name(dotted(key)) + " " + std::string(message));
}

const toml::node* TableReader::value(std::string_view key) {
  input_.positions.insert_or_assign(dotted(key), position(key));
  return table_.get(key);
}

uint64_t TableReader::count(std::string_view key, uint64_t minimum) {
  const toml::node* node = value(key);
  if (node == nullptr) {
    fail_at(input_.source, position(key), "missing key " + quote_name(dotted(key)));
  }
  const auto* integer = node->as_integer();
  if (integer == nullptr) fail(key, std::string("must be an integer, not ") + type_name(node->type()));
  if (integer->get() < 0 || static_cast<uint64_t>(integer->get()) < minimum) {
    fail(key, "must be at least " + std::to_string(minimum) + ", got " + std::to_string(integer->get()));
  }
  return static_cast<uint64_t>(integer->get());
}

uint64_t TableReader::count_or(std::string_view key, uint64_t fallback, uint64_t minimum) {
  if (!has(key)) {
    value(key);  // records where the default applies
    return fallback;
  }
  return count(key, minimum);
}

bool TableReader::flag_or(std::string_view key, bool fallback) {
  const toml::node* node = value(key);
  if (node == nullptr) return fallback;
  const auto* flag = node->as_boolean();
  if (flag == nullptr) fail(key, std::string("must be a boolean, not ") + type_name(node->type()));
  return flag->get();
}

std::string TableReader::text_or(std::string_view key, std::string fallback) {
  const toml::node* node = value(key);
  if (node == nullptr) return fallback;
  const auto* text = node->as_string();
  if (text == nullptr) fail(key, std::string("must be a string, not ") + type_name(node->type()));
  return text->get();
}

std::string TableReader::choice(std::string_view key, const std::vector<std::string>& choices,
                                std::string fallback) {
  if (!has(key) && fallback.empty()) {
    fail_at(input_.source, position(key), "missing key " + quote_name(dotted(key)));
  }
  std::string text = text_or(key, fallback);
  if (std::find(choices.begin(), choices.end(), text) == choices.end()) {
    fail(key, "must be one of " + quoted_list(choices) + ", got " + quote_name(text) +
                  did_you_mean_suffix(text, choices));
  }
  return text;
}

std::optional<uint64_t> TableReader::size(std::string_view key) {
  const toml::node* node = value(key);
  if (node == nullptr) return std::nullopt;
  if (const auto* integer = node->as_integer()) {
    if (integer->get() < 1) fail(key, "must be at least 1 byte, got " + std::to_string(integer->get()));
    return static_cast<uint64_t>(integer->get());
  }
  const auto* text = node->as_string();
  if (text == nullptr) {
    fail(key, std::string("must be a size like \"256MiB\", not ") + type_name(node->type()));
  }
  std::string error;
  const auto bytes = parse_size(text->get(), &error);
  if (!bytes) fail(key, "is not a size: " + error);
  if (*bytes == 0) fail(key, "must be at least 1 byte");
  return bytes;
}

const toml::table* TableReader::subtable(std::string_view key) {
  const toml::node* node = value(key);
  if (node == nullptr) return nullptr;
  const auto* table = node->as_table();
  if (table == nullptr) fail(key, std::string("must be a table, not ") + type_name(node->type()));
  return table;
}

void TableReader::forbid(std::string_view key, std::string_view reason) {
  if (has(key)) fail(key, "does not apply: " + std::string(reason));
}

}  // namespace dopant::planner
