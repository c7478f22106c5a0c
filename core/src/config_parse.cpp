// parse_run_config: the TOML run file validated against the catalog of plugin and workload
// schemas. Builds the base configuration, then each variant over a copy of the base, and
// reports every problem found with its position. The file is read and parsed the shared
// way (dopant/support/toml_input.hpp), as every command reads its TOML.
#include "config.hpp"
#include "config_tables.hpp"
#include "config_values.hpp"
#include "error.hpp"
#include <dopant/support/text.hpp>

#include <algorithm>
#include <set>

namespace dopant {
namespace {

constexpr std::string_view kBaseName = "base";

const std::string* kind_of_slot(std::string_view slot) {
  for (const auto& [name, kind] : slot_kinds()) {
    if (name == slot) return &kind;
  }
  return nullptr;
}

// The tables that both the base and a variant may set: device, workload and every slot.
bool is_section(std::string_view name) {
  return name == "device" || name == "workload" || kind_of_slot(name) != nullptr;
}

std::vector<std::string> section_names() {
  std::vector<std::string> names = {"device", "workload"};
  for (const auto& entry : slot_kinds()) names.push_back(entry.first);
  return names;
}

std::string table_label(const std::string& path) { return quote_name("[" + path + "]"); }

class RunParser {
 public:
  RunParser(const toml::table& root, const SchemaCatalog& catalog, Diagnostics& diagnostics)
      : root_(root), catalog_(catalog), diagnostics_(diagnostics) {}

  RunConfig parse() {
    RunConfig config;
    parse_run_table(config);
    config.variants.push_back(parse_base());
    check_required_slots();
    parse_variants(config.variants);
    return config;
  }

 private:
  // The table held by `node`, or nullptr after reporting what it holds instead.
  const toml::table* table_or_report(const toml::node& node, const std::string& path) {
    if (const auto* table = node.as_table()) return table;
    diagnostics_.add(position_of(node.source()),
                     table_label(path) + " must be a table, got " + toml_type_name(node));
    return nullptr;
  }

  void parse_run_table(RunConfig& config) {
    const toml::node* node = root_.get("run");
    if (!node) {
      diagnostics_.add({}, "missing table `[run]` naming the workload");
      return;
    }
    const toml::table* table = table_or_report(*node, "run");
    if (!table) return;
    dpt_config run = defaults_config("[run]", run_table_schemas());
    apply_table(*table, run_table_schemas(), {"key", "in `[run]`"}, {}, run, diagnostics_);
    config.repetitions = static_cast<uint32_t>(run.values.at("repetitions").integer);
    config.comm = run.values.at("comm").text;

    const toml::node* workload = table->get("workload");
    if (!workload) {
      diagnostics_.add(position_of(table->source()), "missing key `workload` in `[run]`");
      return;
    }
    if (!workload->is_string()) return;  // reported by apply_table
    config.workload = run.values.at("workload").text;
    workload_pos_ = position_of(workload->source());
    workload_ = catalog_.find_workload(config.workload);
    if (!workload_) {
      diagnostics_.add(workload_pos_, "unknown workload " + quote_name(config.workload) +
                                          did_you_mean_suffix(config.workload, catalog_.workload_names()));
    }
  }

  VariantConfig parse_base() {
    VariantConfig base;
    base.name = kBaseName;
    base_device_ = defaults_config("[device]", device_table_schemas());
    if (workload_) base.workload_params = defaults_config(workload_->name, workload_->params);
    for (auto&& [key, node] : root_) {
      const std::string name(key.str());
      if (name == "run" || name == "variants") continue;
      if (!is_section(name)) {
        std::vector<std::string> known = section_names();
        known.insert(known.begin(), {"run", "variants"});
        diagnostics_.add(position_of_key(key, node),
                         "unknown table " + quote_name(name) + did_you_mean_suffix(name, known));
        continue;
      }
      const toml::table* table = table_or_report(node, name);
      if (!table) continue;
      apply_section(name, name, *table, position_of_key(key, node), base, base_device_, nullptr);
    }
    base.device = device_from_config(base_device_);
    return base;
  }

  // Applies one [device], [workload] or slot table to `variant`. `base_slots` is null for the
  // base configuration; for a variant it names the slots that the base file sets.
  void apply_section(const std::string& name, const std::string& path, const toml::table& table,
                     SourcePos pos, VariantConfig& variant, dpt_config& device,
                     const std::set<std::string>* base_slots) {
    if (name == "device") {
      apply_table(table, device_table_schemas(), {"key", "in " + table_label(path)}, {}, device,
                  diagnostics_);
      return;
    }
    if (name == "workload") {
      if (workload_) {
        apply_table(table, workload_->params,
                    {"parameter", "for workload " + quote_name(workload_->name)}, {},
                    variant.workload_params, diagnostics_);
      }
      return;
    }
    const SlotConfig* base_slot = nullptr;
    if (base_slots) {
      if (!base_slots->count(name)) {
        diagnostics_.add(pos, "variant " + quote_name(variant.name) + " overrides slot " +
                                  quote_name(name) + ", which the base configuration does not set");
        return;
      }
      const auto found = variant.slots.find(name);
      if (found == variant.slots.end()) return;  // the base slot itself was invalid: reported
      base_slot = &found->second;
    } else {
      base_slots_in_file_.insert(name);
    }
    if (auto slot = parse_slot(name, path, table, pos, base_slot)) variant.slots[name] = std::move(*slot);
  }

  std::vector<std::string> plugin_candidates(const std::string& kind) const {
    std::vector<std::string> same_kind;
    std::vector<std::string> other_kinds;
    for (auto& id : catalog_.plugin_ids()) {
      const PluginSchema* plugin = catalog_.find_plugin(id);
      (plugin && plugin->kind == kind ? same_kind : other_kinds).push_back(id);
    }
    same_kind.insert(same_kind.end(), other_kinds.begin(), other_kinds.end());
    return same_kind;
  }

  // A slot table: `plugin` names the plugin (kept from `base` when omitted), the other keys
  // are its parameters. Starts from the base's values when the plugin stays the same.
  std::optional<SlotConfig> parse_slot(const std::string& slot, const std::string& path,
                                       const toml::table& table, SourcePos pos,
                                       const SlotConfig* base) {
    const std::string& kind = *kind_of_slot(slot);
    std::string plugin_id;
    SourcePos plugin_pos = pos;
    if (const toml::node* node = table.get("plugin")) {
      plugin_pos = position_of(node->source());
      const auto* text = node->as_string();
      if (!text) {
        diagnostics_.add(plugin_pos, "key `plugin` in " + table_label(path) +
                                         " must be a string naming a plugin, got " + toml_type_name(*node));
        return std::nullopt;
      }
      plugin_id = text->get();
    } else if (base) {
      plugin_id = base->plugin;
    } else {
      diagnostics_.add(pos, "missing key `plugin` in " + table_label(path) + ": name the " +
                                quote_name(kind) + " plugin for this slot");
      return std::nullopt;
    }
    const PluginSchema* plugin = catalog_.find_plugin(plugin_id);
    if (!plugin) {
      diagnostics_.add(plugin_pos, "unknown plugin " + quote_name(plugin_id) + " for slot " +
                                       quote_name(slot) +
                                       did_you_mean_suffix(plugin_id, plugin_candidates(kind)));
      return std::nullopt;
    }
    if (plugin->kind != kind) {
      diagnostics_.add(plugin_pos, "plugin " + quote_name(plugin->id) + " is of kind " +
                                       quote_name(plugin->kind) + ", but slot " + quote_name(slot) +
                                       " needs " + quote_name(kind));
      return std::nullopt;
    }
    SlotConfig result;
    result.plugin = plugin->id;
    result.params = base && base->plugin == plugin->id ? base->params
                                                       : defaults_config(plugin->id, plugin->params);
    apply_table(table, plugin->params, {"parameter", "for plugin " + quote_name(plugin->id)},
                {"plugin"}, result.params, diagnostics_);
    return result;
  }

  void check_required_slots() {
    if (!workload_) return;
    for (const auto& slot : workload_->slots) {
      if (base_slots_in_file_.count(slot)) continue;
      diagnostics_.add(workload_pos_, "workload " + quote_name(workload_->name) + " needs slot " +
                                          quote_name(slot) + ": add a " + table_label(slot) +
                                          " table with `plugin = \"...\"`");
    }
  }

  void parse_variants(std::vector<VariantConfig>& variants) {
    const toml::node* node = root_.get("variants");
    if (!node) return;
    const toml::table* table = table_or_report(*node, "variants");
    if (!table) return;
    std::vector<std::pair<const toml::key*, const toml::node*>> entries;
    for (auto&& [key, value] : *table) entries.emplace_back(&key, &value);
    std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
      const SourcePos pa = position_of_key(*a.first, *a.second);
      const SourcePos pb = position_of_key(*b.first, *b.second);
      return pa.line != pb.line ? pa.line < pb.line : pa.column < pb.column;
    });
    for (const auto& [key, value] : entries) {
      const std::string name(key->str());
      const SourcePos pos = position_of_key(*key, *value);
      if (name.empty() || name == kBaseName) {
        diagnostics_.add(pos, "variant name " + quote_name(name) + " is reserved or empty");
        continue;
      }
      if (one_line(name) != name) {  // a name is printed in tables and reports: one plain line
        diagnostics_.add(pos, "variant name " + quote_name(name) + " holds a control character");
        continue;
      }
      const toml::table* body = table_or_report(*value, "variants." + name);
      if (!body) continue;
      variants.push_back(parse_variant(name, *body, variants.front()));
    }
  }

  VariantConfig parse_variant(const std::string& name, const toml::table& body,
                              const VariantConfig& base) {
    VariantConfig variant = base;
    variant.name = name;
    dpt_config device = base_device_;
    for (auto&& [key, node] : body) {
      const std::string section(key.str());
      const std::string path = "variants." + name + "." + section;
      if (!is_section(section)) {
        diagnostics_.add(position_of_key(key, node), "unknown table " + quote_name(section) +
                                                         " in variant " + quote_name(name) +
                                                         did_you_mean_suffix(section, section_names()));
        continue;
      }
      const toml::table* table = table_or_report(node, path);
      if (!table) continue;
      apply_section(section, path, *table, position_of_key(key, node), variant, device,
                    &base_slots_in_file_);
    }
    variant.device = device_from_config(device);
    return variant;
  }

  const toml::table& root_;
  const SchemaCatalog& catalog_;
  Diagnostics& diagnostics_;
  const WorkloadSchema* workload_ = nullptr;
  SourcePos workload_pos_;
  dpt_config base_device_;
  std::set<std::string> base_slots_in_file_;
};

// Throws Error(DPT_INVALID_ARGUMENT) with every problem, one per line; no-op when none.
void throw_if_any(const Diagnostics& diagnostics) {
  if (!diagnostics.empty()) throw Error(DPT_INVALID_ARGUMENT, diagnostics.report());
}

// The TOML document of `text`, or every problem thrown.
toml::table parse_toml(std::string_view text, Diagnostics& diagnostics) {
  std::optional<toml::table> root = parse_toml_text(text, diagnostics);
  throw_if_any(diagnostics);
  return std::move(*root);
}

}  // namespace

RunConfig parse_run_config(std::string_view text, const std::string& source,
                           const SchemaCatalog& catalog) {
  Diagnostics diagnostics(source);
  const toml::table root = parse_toml(text, diagnostics);
  RunConfig config = RunParser(root, catalog, diagnostics).parse();
  config.source = source;
  throw_if_any(diagnostics);
  return config;
}

dpt_config parse_plugin_params(std::string_view text, const std::string& source,
                              const PluginSchema& plugin) {
  Diagnostics diagnostics(source);
  const toml::table root = parse_toml(text, diagnostics);
  dpt_config params = defaults_config(plugin.id, plugin.params);
  apply_table(root, plugin.params, {"parameter", "for plugin " + quote_name(plugin.id)}, {}, params,
              diagnostics);
  throw_if_any(diagnostics);
  return params;
}

RunConfig load_run_config(const std::string& path, const SchemaCatalog& catalog) {
  InputFile file = read_input_file(path);
  switch (file.problem) {
    case InputFile::Problem::None: break;
    case InputFile::Problem::NotFound: throw Error(DPT_NOT_FOUND, file.message);
    case InputFile::Problem::PermissionDenied: throw Error(DPT_PERMISSION_DENIED, file.message);
    case InputFile::Problem::Unreadable: throw Error(DPT_INVALID_ARGUMENT, file.message);
    case InputFile::Problem::TooLarge: throw Error(DPT_INVALID_ARGUMENT, file.message);
  }
  return parse_run_config(file.text, path, catalog);
}

}  // namespace dopant
