// `dopant plugins list [--json]` and `dopant plugins describe NAME`.
#include "commands.hpp"

#include <dopant/support/json_text.hpp>
#include <dopant/support/text.hpp>

#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace dopant::cli {
namespace {

const char* type_name(dpt_param_type type) {
  const char* names[] = {"bool", "int", "float", "string", "size", "enum"};
  return type >= 0 && type <= DPT_PARAM_ENUM ? names[type] : "?";
}

std::string text_or(const char* text, const char* fallback) { return text != nullptr && *text ? text : fallback; }

// Plugin-provided text for the terminal: control characters escaped, so it stays one line.
std::string shown(const char* text, const char* fallback = "") { return one_line(text_or(text, fallback)); }

std::string range_of(const dpt_param_decl& param) {
  if (param.type == DPT_PARAM_ENUM) {
    std::string choices;
    for (uint32_t i = 0; i < param.choice_count; ++i) choices += (i ? "|" : "") + shown(param.choices[i]);
    return choices;
  }
  if (param.min_value == nullptr && param.max_value == nullptr) return "";
  return "[" + shown(param.min_value, "-inf") + ", " + shown(param.max_value, "inf") + "]";
}

int list_plugins(dpt_runtime* runtime, bool json) {
  const uint32_t count = dpt_runtime_plugin_count(runtime);
  if (json) {
    std::printf("[");
    for (uint32_t i = 0; i < count; ++i) {
      const dpt_plugin_info* info = dpt_runtime_plugin(runtime, i);
      const dpt_plugin_descriptor* d = info->descriptor;
      std::printf("%s\n  {\"id\": %s, \"kind\": %s, \"version\": %s, \"description\": %s, \"library\": %s}",
                  i ? "," : "", json_string(d->id).c_str(), json_string(d->kind).c_str(),
                  json_string(text_or(d->version, "")).c_str(), json_string(text_or(d->description, "")).c_str(),
                  json_string(info->library_path).c_str());
    }
    std::printf("%s]\n", count ? "\n" : "");
    return 0;
  }
  if (count == 0) {
    std::printf("no plugins found (search path: --plugin-path, DOPANT_PLUGIN_PATH, the install dir)\n");
    return 0;
  }
  std::printf("%-26s %-22s %-9s %s\n", "PLUGIN", "KIND", "VERSION", "DESCRIPTION");
  for (uint32_t i = 0; i < count; ++i) {
    const dpt_plugin_descriptor* d = dpt_runtime_plugin(runtime, i)->descriptor;
    std::printf("%-26s %-22s %-9s %s\n", shown(d->id).c_str(), shown(d->kind).c_str(), shown(d->version, "-").c_str(),
                shown(d->description).c_str());
  }
  return 0;
}

int describe_plugin(dpt_runtime* runtime, const std::string& id) {
  const dpt_plugin_info* info = dpt_runtime_find_plugin(runtime, id.c_str());
  if (info == nullptr) {
    std::vector<std::string> loaded;
    for (uint32_t i = 0; i < dpt_runtime_plugin_count(runtime); ++i) {
      loaded.emplace_back(dpt_runtime_plugin(runtime, i)->descriptor->id);
    }
    throw std::invalid_argument("no plugin " + quote_name(id) + " is loaded" + did_you_mean_suffix(id, loaded) +
                                " (see `dopant plugins list`)");
  }
  const dpt_plugin_descriptor* d = info->descriptor;
  std::printf("%s %s — %s\n", shown(d->id).c_str(), shown(d->version).c_str(), shown(d->description).c_str());
  std::printf("  kind:    %s\n  library: %s (%s, ABI %u.%u)\n", shown(d->kind).c_str(), shown(info->library_path).c_str(),
              shown(info->library_id).c_str(), DPT_ABI_MAJOR, info->library_abi_minor);
  if (d->param_count == 0) {
    std::printf("  parameters: none\n");
    return 0;
  }
  std::printf("  parameters:\n");
  std::printf("    %-16s %-7s %-12s %-20s %-6s %s\n", "NAME", "TYPE", "DEFAULT", "RANGE", "UNIT", "DOC");
  for (uint32_t i = 0; i < d->param_count; ++i) {
    const dpt_param_decl& p = *d->params[i];
    const bool has_unit = DPT_HAS_FIELD(&p, dpt_param_decl, unit);
    const bool has_doc = DPT_HAS_FIELD(&p, dpt_param_decl, doc);
    std::printf("    %-16s %-7s %-12s %-20s %-6s %s\n", shown(p.name).c_str(), type_name(p.type),
                shown(p.default_value).c_str(), range_of(p).c_str(), has_unit ? shown(p.unit).c_str() : "",
                has_doc ? shown(p.doc).c_str() : "");
  }
  return 0;
}

}  // namespace

int command_plugins(const Options& options) {
  std::vector<std::string> words(options.words.begin() + 1, options.words.end());
  const bool json = take_flag(words, "--json");
  if (words.empty() || words[0] == "list") {
    if (words.size() > 1) throw std::invalid_argument("plugins list: unexpected argument `" + words[1] + "`");
    Runtime runtime(options);
    return list_plugins(runtime.get(), json);
  }
  if (words[0] == "describe") {
    if (words.size() != 2) throw std::invalid_argument("usage: dopant plugins describe NAME");
    Runtime runtime(options);
    return describe_plugin(runtime.get(), words[1]);
  }
  throw std::invalid_argument("plugins: unknown subcommand `" + words[0] + "` (list, describe)");
}

}  // namespace dopant::cli
