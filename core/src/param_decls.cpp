// Parameter declarations (dpt_param_decl, config text for defaults and bounds) parsed into
// ParamSchema once, when a plugin or workload is registered. Reads only the fields that the
// declaration's struct_size covers.
#include "error.hpp"
#include <dopant/support/text.hpp>
#include "params.hpp"

#include <set>

namespace dopant {
namespace {

// The key that names the plugin in a slot table; a parameter of that name could not be set.
constexpr std::string_view kReservedName = "plugin";

bool is_bare_key(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

bool is_known_type(dpt_param_type type) {
  return type >= DPT_PARAM_BOOL && type <= DPT_PARAM_ENUM;
}

bool is_ranged(ParamType type) {
  return type == ParamType::Int || type == ParamType::Float || type == ParamType::Size;
}

// Collects the problems of one owner's declarations, one line each.
class DeclProblems {
 public:
  explicit DeclProblems(const std::string& owner) : owner_(quote_name(owner)) {}
  void add(const std::string& parameter, const std::string& text) {
    if (!lines_.empty()) lines_ += '\n';
    lines_ += "parameter " + quote_name(parameter) + " of " + owner_ + ": " + text;
  }
  void add_general(const std::string& text) {
    if (!lines_.empty()) lines_ += '\n';
    lines_ += owner_ + ": " + text;
  }
  void throw_if_any() const {
    if (!lines_.empty()) throw Error(DPT_INVALID_ARGUMENT, lines_);
  }

 private:
  std::string owner_;
  std::string lines_;
};

std::optional<ParamValue> parse_bound(const ParamSchema& schema, const char* text,
                                      const char* which, DeclProblems& problems) {
  if (!text) return std::nullopt;
  if (!is_ranged(schema.type)) {
    problems.add(schema.name, std::string(which) + " bound given for a " +
                                  param_type_name(schema.type) + " parameter");
    return std::nullopt;
  }
  ParamSchema unbounded = schema;
  unbounded.min.reset();
  unbounded.max.reset();
  std::string error;
  auto value = parse_value_text(unbounded, text, &error);
  if (!value) problems.add(schema.name, std::string(which) + " bound " + quote_name(text) + ": " + error);
  return value;
}

// False when the choices make the declaration unusable (an enum without any).
bool parse_choices(const dpt_param_decl& decl, bool present, ParamSchema& schema,
                   DeclProblems& problems) {
  const uint32_t count = present && decl.choices ? decl.choice_count : 0;
  if (schema.type != ParamType::Enum) {
    if (count > 0) problems.add(schema.name, "choices given for a non-enum parameter");
    return true;
  }
  if (count == 0) {
    problems.add(schema.name, "enum parameter declares no choices");
    return false;
  }
  std::set<std::string, std::less<>> seen;
  for (uint32_t i = 0; i < count; ++i) {
    const char* choice = decl.choices[i];
    if (!choice || !*choice) {
      problems.add(schema.name, "choice " + std::to_string(i) + " is empty");
    } else if (!seen.insert(choice).second) {
      problems.add(schema.name, "choice " + quote_name(choice) + " is listed twice");
    } else {
      schema.choices.emplace_back(choice);
    }
  }
  return true;
}

std::optional<ParamSchema> parse_decl(const dpt_param_decl& decl, std::size_t index,
                                      DeclProblems& problems) {
  const std::string label = "#" + std::to_string(index);
  if (!DPT_HAS_FIELD(&decl, dpt_param_decl, default_value)) {
    problems.add(label, "struct_size " + std::to_string(decl.struct_size) +
                            " is too small to hold name, type and default_value");
    return std::nullopt;
  }
  if (!decl.name || !is_bare_key(decl.name)) {
    problems.add(decl.name ? std::string(decl.name) : label,
                 "name must be non-empty and use only letters, digits, `_` and `-`");
    return std::nullopt;
  }
  ParamSchema schema;
  schema.name = decl.name;
  if (schema.name == kReservedName) {
    problems.add(schema.name, "the name is reserved for the slot's plugin id");
    return std::nullopt;
  }
  if (!is_known_type(decl.type)) {
    problems.add(schema.name, "unknown type " + std::to_string(decl.type));
    return std::nullopt;
  }
  schema.type = static_cast<ParamType>(decl.type);

  const char* min_text = DPT_HAS_FIELD(&decl, dpt_param_decl, min_value) ? decl.min_value : nullptr;
  const char* max_text = DPT_HAS_FIELD(&decl, dpt_param_decl, max_value) ? decl.max_value : nullptr;
  schema.min = parse_bound(schema, min_text, "min", problems);
  schema.max = parse_bound(schema, max_text, "max", problems);
  if (schema.min && schema.max) {
    ParamSchema upper_only = schema;
    upper_only.min.reset();
    if (!check_value_bounds(upper_only, *schema.min, nullptr)) {
      problems.add(schema.name, "min " + format_value(*schema.min) + " is above max " +
                                    format_value(*schema.max));
    }
  }
  if (!parse_choices(decl, DPT_HAS_FIELD(&decl, dpt_param_decl, choice_count), schema, problems)) {
    return std::nullopt;
  }
  if (DPT_HAS_FIELD(&decl, dpt_param_decl, unit) && decl.unit) schema.unit = decl.unit;
  if (DPT_HAS_FIELD(&decl, dpt_param_decl, doc) && decl.doc) schema.doc = decl.doc;

  if (!decl.default_value) {
    problems.add(schema.name, "default_value is missing");
    return std::nullopt;
  }
  std::string error;
  auto default_value = parse_value_text(schema, decl.default_value, &error);
  if (!default_value) {
    problems.add(schema.name, "default " + quote_name(decl.default_value) + ": " + error);
    return std::nullopt;
  }
  schema.default_value = std::move(*default_value);
  return schema;
}

}  // namespace

std::vector<ParamSchema> parse_param_decls(const dpt_param_decl* const* decls, uint32_t count,
                                           const std::string& owner) {
  DeclProblems problems(owner);
  if (count > 0 && !decls) {
    problems.add_general(std::to_string(count) + " parameters declared but the list is NULL");
    problems.throw_if_any();
  }
  std::vector<ParamSchema> schemas;
  std::set<std::string, std::less<>> names;
  for (uint32_t i = 0; i < count; ++i) {
    if (!decls[i]) {
      problems.add("#" + std::to_string(i), "declaration is NULL");
      continue;
    }
    auto schema = parse_decl(*decls[i], i, problems);
    if (!schema) continue;
    if (!names.insert(schema->name).second) {
      problems.add(schema->name, "declared twice");
      continue;
    }
    schemas.push_back(std::move(*schema));
  }
  problems.throw_if_any();
  return schemas;
}

}  // namespace dopant
