// The plugin search path and the listing of plugin files (see search_path.hpp).
#include "search_path.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

namespace dopant {
namespace {

void append_list(const char* list, std::vector<std::string>& out) {
  if (list == nullptr) return;
  std::string text = list;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t colon = text.find(':', start);
    const std::string item = text.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    if (!item.empty()) out.push_back(item);
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
}

// The folder holding the binary this function was linked into (libdopant.so normally).
std::string own_library_folder() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&own_library_folder), &info) == 0 || info.dli_fname == nullptr) return {};
  std::error_code ignored;
  auto path = std::filesystem::canonical(info.dli_fname, ignored);
  return ignored ? std::string{} : path.parent_path().string();
}

}  // namespace

std::vector<SearchFolder> plugin_search_path(const char* extra, bool skip_defaults) {
  std::vector<std::string> named;
  append_list(extra, named);
  std::string own;
  if (!skip_defaults) {
    append_list(std::getenv("DOPANT_PLUGIN_PATH"), named);
    own = own_library_folder();
  }
  std::vector<SearchFolder> unique;
  auto add = [&unique](const std::string& path, bool is_named) {
    auto same = [&path](const SearchFolder& folder) { return folder.path == path; };
    if (std::find_if(unique.begin(), unique.end(), same) == unique.end()) unique.push_back({path, is_named});
  };
  for (const std::string& folder : named) add(folder, true);
  if (!own.empty()) add(own + "/dopant/plugins", false);
  return unique;
}

std::vector<std::string> plugin_files_in(const std::string& folder, std::string* problem) {
  std::vector<std::string> files;
  std::error_code error;
  if (!std::filesystem::is_directory(folder, error)) {
    *problem = folder + ": plugin folder " + (std::filesystem::exists(folder, error) ? "is not a folder" : "does not exist");
    return files;
  }
  for (const auto& item : std::filesystem::directory_iterator(folder, error)) {
    if (item.is_regular_file(error) && item.path().extension() == ".so") files.push_back(item.path().string());
  }
  if (error) *problem = folder + ": cannot read plugin folder: " + error.message();
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace dopant
