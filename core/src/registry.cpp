// Registry: version checks, struct widening and registration of plugin libraries.
#include "registry.hpp"

#include "error.hpp"
#include "loader.hpp"
#include "widen.hpp"

#include <dopant/support/text.hpp>

#include <cstring>
#include <filesystem>

namespace dopant {
namespace {

std::string version_text(uint32_t major, uint32_t minor) {
  return std::to_string(major) + "." + std::to_string(minor);
}

std::string canonical_path(const std::string& path) {
  std::error_code ignored;
  auto canonical = std::filesystem::weakly_canonical(path, ignored);
  return canonical.empty() ? path : canonical.string();
}

bool non_empty(const char* text) { return text != nullptr && *text != '\0'; }

// Names are printed in tables and messages: a control character (what one_line escapes)
// would break them or reorder what follows.
void refuse_control_characters(const char* text, const std::string& what) {
  if (text != nullptr && one_line(text) != text) {
    throw Error(DPT_INVALID_ARGUMENT, what + " " + quote_name(text) + " holds a control character");
  }
}

void refuse_control_characters_in_params(const dpt_plugin_descriptor& descriptor, const std::string& where) {
  for (uint32_t i = 0; descriptor.params != nullptr && i < descriptor.param_count; ++i) {
    const dpt_param_decl* param = descriptor.params[i];
    if (param == nullptr) continue;  // parse_param_decls refuses it with its own message
    refuse_control_characters(param->name, where + ": parameter name");
    if (DPT_HAS_FIELD(param, dpt_param_decl, unit)) refuse_control_characters(param->unit, where + ": unit");
    for (uint32_t k = 0; param->choices != nullptr && k < param->choice_count; ++k) {
      refuse_control_characters(param->choices[k], where + ": enum choice");
    }
  }
}

}  // namespace

Registry::~Registry() {
  for (auto library = libraries_.rbegin(); library != libraries_.rend(); ++library) {
    if (library->paired) release_library(library->raw, *as<dpt_library>(library->widened), library->host.get());
  }
}

const PluginEntry* Registry::find(std::string_view id) const {
  for (const auto& plugin : plugins_) {
    if (id == plugin->descriptor->id) return plugin.get();
  }
  return nullptr;
}

std::unique_ptr<PluginEntry> Registry::check_plugin(const dpt_plugin_descriptor* raw, const std::string& path,
                                                    const dpt_library& library) const {
  if (raw == nullptr) throw Error(DPT_INVALID_ARGUMENT, path + ": NULL plugin descriptor");
  if (raw->struct_size < DPT_PLUGIN_DESCRIPTOR_SIZE_1_0) {
    throw Error(DPT_INVALID_ARGUMENT, path + ": plugin descriptor struct_size " + std::to_string(raw->struct_size) +
                                          " is smaller than the smallest released size " +
                                          std::to_string(DPT_PLUGIN_DESCRIPTOR_SIZE_1_0));
  }
  auto entry = std::make_unique<PluginEntry>();
  entry->descriptor_storage = widen_struct(raw, sizeof(dpt_plugin_descriptor));
  entry->descriptor = as<dpt_plugin_descriptor>(entry->descriptor_storage);
  const dpt_plugin_descriptor& descriptor = *entry->descriptor;
  if (!non_empty(descriptor.id)) throw Error(DPT_INVALID_ARGUMENT, path + ": a plugin has no id");
  refuse_control_characters(descriptor.id, path + ": plugin id");
  const std::string id = descriptor.id;
  const std::string where = path + ": plugin `" + id + "`";
  if (!non_empty(descriptor.kind)) throw Error(DPT_INVALID_ARGUMENT, where + " names no kind");
  refuse_control_characters(descriptor.kind, where + ": kind");
  refuse_control_characters_in_params(descriptor, where);
  entry->kind = find_kind(descriptor.kind);
  if (entry->kind == nullptr) {
    throw Error(DPT_UNIMPLEMENTED, where + " has kind `" + descriptor.kind + "`, which this dopant (ABI " +
                                       version_text(DPT_ABI_MAJOR, DPT_ABI_MINOR) + ") does not know");
  }
  if (descriptor.get_extension == nullptr) throw Error(DPT_INVALID_ARGUMENT, where + " has no get_extension");
  const void* table = descriptor.get_extension(descriptor.kind);
  if (table == nullptr) {
    throw Error(DPT_INVALID_ARGUMENT, where + " returns no table for its own kind `" + descriptor.kind + "`");
  }
  uint32_t table_size = 0;
  std::memcpy(&table_size, table, sizeof table_size);
  if (const std::string problem = table_size_problem(*entry->kind, table_size); !problem.empty()) {
    throw Error(DPT_INVALID_ARGUMENT, where + ": " + problem);
  }
  entry->table_storage = widen_struct(table, entry->kind->table_size);
  entry->table = entry->table_storage.get();
  if (const char* slot = missing_required_slot(*entry->kind, entry->table)) {
    throw Error(DPT_INVALID_ARGUMENT, where + ": " + entry->kind->slot + " table has no `" + slot + "`");
  }
  entry->schema.id = id;
  entry->schema.kind = descriptor.kind;
  try {
    entry->schema.params = parse_param_decls(descriptor.params, descriptor.param_count, id);
  } catch (const Error& e) {  // one problem a line: each names the library file too
    std::string lines = path + ": " + e.what();
    for (size_t at = lines.find('\n'); at != std::string::npos; at = lines.find('\n', at + 1)) {
      lines.insert(at + 1, path + ": ");
    }
    throw Error(e.code(), lines);
  }
  entry->defaults = defaults_config(id, entry->schema.params);
  entry->library_path = path;
  entry->library_id = non_empty(library.id) ? library.id : path;
  entry->library_abi_minor = library.abi_minor;
  return entry;
}

void Registry::load_library(const std::string& given_path) {
  const std::string path = canonical_path(given_path);
  if (loaded_paths_.count(path) != 0) return;

  const dpt_plugin_entry_fn entry_point = open_plugin_library(path);
  const dpt_library* raw = entry_point();
  if (raw == nullptr) throw Error(DPT_INVALID_ARGUMENT, path + ": dpt_plugin_entry_v1 returned NULL");
  if (raw->struct_size < 3 * sizeof(uint32_t)) {
    throw Error(DPT_INVALID_ARGUMENT, path + ": library struct_size " + std::to_string(raw->struct_size) +
                                          " is too small to hold a version");
  }
  if (raw->abi_major != DPT_ABI_MAJOR) {
    throw Error(DPT_UNIMPLEMENTED, path + ": built for dopant ABI " + version_text(raw->abi_major, raw->abi_minor) +
                                       ", but this dopant speaks ABI " +
                                       version_text(DPT_ABI_MAJOR, DPT_ABI_MINOR) + " (majors must match)");
  }
  if (raw->struct_size < DPT_LIBRARY_SIZE_1_0) {
    throw Error(DPT_INVALID_ARGUMENT, path + ": library struct_size " + std::to_string(raw->struct_size) +
                                          " is smaller than the smallest released size " +
                                          std::to_string(DPT_LIBRARY_SIZE_1_0));
  }
  LoadedLibrary loaded;
  loaded.raw = raw;
  loaded.widened = widen_struct(raw, sizeof(dpt_library));
  const dpt_library& library = *as<dpt_library>(loaded.widened);
  if (library.plugin_count != 0 && library.plugins == nullptr) {
    throw Error(DPT_INVALID_ARGUMENT, path + ": plugin_count is " + std::to_string(library.plugin_count) +
                                          " but the plugin list is NULL");
  }

  std::vector<std::unique_ptr<PluginEntry>> checked;
  for (uint32_t i = 0; i < library.plugin_count; ++i) {
    auto entry = check_plugin(library.plugins[i], path, library);
    const std::string id = entry->descriptor->id;
    if (const PluginEntry* existing = find(id)) {
      throw Error(DPT_INVALID_ARGUMENT, path + ": duplicate plugin id `" + id + "`, already loaded from " +
                                            existing->library_path);
    }
    for (const auto& sibling : checked) {
      if (id == sibling->descriptor->id) throw Error(DPT_INVALID_ARGUMENT, path + ": plugin id `" + id + "` listed twice");
    }
    checked.push_back(std::move(entry));
  }

  loaded.host_context = std::make_unique<HostContext>(HostContext{&services_, non_empty(library.id) ? library.id : path});
  loaded.host = std::make_unique<dpt_host>(make_host_table(loaded.host_context.get()));
  // Libraries of minors 0 to 2 were promised one (idempotent) init per runtime, no deinit.
  loaded.paired = library.abi_minor >= 3;
  if (loaded.paired) {
    hold_library(raw, library, loaded.host.get(), path);
  } else if (library.init != nullptr) {
    throw_if_error(library.init(loaded.host.get()), path + ": init failed");
  }

  for (auto& entry : checked) {
    entry->host_context = std::make_unique<HostContext>(HostContext{&services_, entry->descriptor->id});
    entry->host = make_host_table(entry->host_context.get());
    entry->info.struct_size = sizeof entry->info;
    entry->info.descriptor = entry->descriptor;
    entry->info.library_path = entry->library_path.c_str();
    entry->info.library_id = entry->library_id.c_str();
    entry->info.library_abi_minor = entry->library_abi_minor;
    plugins_.push_back(std::move(entry));
  }
  libraries_.push_back(std::move(loaded));
  loaded_paths_.insert(path);
}

}  // namespace dopant
