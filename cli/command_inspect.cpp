// `dopant inspect CHECKPOINT`: lists what a checkpoint holds, in any format a loaded
// checkpoint plugin reads: per tensor its name, dtype, global shape and stored chunks (where
// each sits in the tensor; its file, byte offset and length), then the free-form metadata.
// Each checkpoint plugin is asked to open the path in load order; the first that can lists
// it. When none can, every plugin's reason is printed.
#include "commands.hpp"

#include <dopant/checkpoint.h>
#include <dopant/sdk/tensors.hpp>
#include <dopant/support/text.hpp>

#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace dopant::cli {
namespace {

std::string extents(const int64_t* values, int32_t count) {
  std::string text = "[";
  for (int32_t i = 0; i < count; ++i) text += (i > 0 ? ", " : "") + std::to_string(values[i]);
  return text + "]";
}

void print_listing(const std::string& path, const char* plugin, const dpt_checkpoint_list_args& list) {
  std::printf("%s: %llu tensors (read by `%s`)\n", one_line(path).c_str(),
              static_cast<unsigned long long>(list.tensor_count), plugin);
  for (uint64_t t = 0; t < list.tensor_count; ++t) {
    const dpt_checkpoint_tensor& tensor = *list.tensors[t];
    std::printf("%s  %s  %s  %llu chunk%s\n", one_line(tensor.name).c_str(), sdk::dtype_name(tensor.dtype).c_str(),
                extents(tensor.shape, tensor.ndim).c_str(), static_cast<unsigned long long>(tensor.chunk_count),
                tensor.chunk_count == 1 ? "" : "s");
    for (uint64_t c = 0; c < tensor.chunk_count; ++c) {
      const dpt_checkpoint_chunk& chunk = *tensor.chunks[c];
      // offsets + sizes, in elements; then file @ byte offset + byte length
      std::printf("  %s + %s  %s @ %llu + %llu bytes\n", extents(chunk.offsets, tensor.ndim).c_str(),
                  extents(chunk.sizes, tensor.ndim).c_str(), one_line(chunk.file).c_str(),
                  static_cast<unsigned long long>(chunk.byte_offset), static_cast<unsigned long long>(chunk.byte_length));
    }
  }
  for (uint64_t m = 0; m < list.metadata_count; ++m) {
    std::printf("metadata %s = %s\n", one_line(list.metadata_keys[m]).c_str(), one_line(list.metadata_values[m]).c_str());
  }
}

}  // namespace

int command_inspect(const Options& options) {
  if (options.words.size() != 2) throw std::invalid_argument("usage: dopant inspect CHECKPOINT");
  const std::string& path = options.words[1];
  Runtime runtime(options);
  std::vector<std::string> reasons;
  for (uint32_t i = 0; i < dpt_runtime_plugin_count(runtime.get()); ++i) {
    const dpt_plugin_descriptor* descriptor = dpt_runtime_plugin(runtime.get(), i)->descriptor;
    if (std::strcmp(descriptor->kind, DPT_KIND_CHECKPOINT) != 0) continue;
    dpt_plugin_instance* created = nullptr;
    throw_if_error(dpt_plugin_instance_create(runtime.get(), descriptor->id, nullptr, &created), descriptor->id);
    const std::unique_ptr<dpt_plugin_instance, void (*)(dpt_plugin_instance*)> instance(created,
                                                                                      dpt_plugin_instance_destroy);
    const auto& table = *static_cast<const dpt_checkpoint_v1*>(dpt_plugin_instance_table(created));
    dpt_instance* handle = dpt_plugin_instance_handle(created);
    dpt_checkpoint_open_args open{DPT_CHECKPOINT_OPEN_ARGS_SIZE_1_6, nullptr, path.c_str(), nullptr};
    if (dpt_error* error = table.reader_open(handle, &open)) {
      if (dpt_error_get_code(error) == DPT_UNIMPLEMENTED) {  // a conversion strategy: it reads nothing
        dpt_error_destroy(error);
        continue;
      }
      reasons.push_back(std::string(descriptor->id) + ": " + one_line(dpt_error_get_message(error)));
      dpt_error_destroy(error);
      continue;
    }
    dpt_checkpoint_list_args list{DPT_CHECKPOINT_LIST_ARGS_SIZE_1_6, nullptr, open.reader, 0, nullptr, 0,
                                  nullptr, nullptr};
    dpt_error* listed = table.reader_list(handle, &list);
    if (listed == nullptr) print_listing(path, descriptor->id, list);
    table.reader_close(handle, open.reader);
    throw_if_error(listed, descriptor->id);
    return 0;
  }
  std::string message = one_line(path) + ": no checkpoint plugin reads it";
  for (const std::string& reason : reasons) message += "\n  " + reason;
  throw std::runtime_error(message);
}

}  // namespace dopant::cli
