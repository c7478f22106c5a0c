/* ABI test plugin library that claims ABI major 2: the core must refuse it, naming the file
 * and both versions. */
#include <string.h>

#include "minimal_optimizer.h"

static const dpt_optimizer_v1 wrong_major_table = {
    DPT_OPTIMIZER_V1_SIZE_1_1, minimal_create,       minimal_destroy,      minimal_add_param_group,
    minimal_step,              minimal_export_state, minimal_import_state, NULL};

static const void* wrong_major_get_extension(const char* id) {
  return strcmp(id, DPT_KIND_OPTIMIZER) == 0 ? (const void*)&wrong_major_table : NULL;
}

static const dpt_plugin_descriptor wrong_major_descriptor = {
    DPT_PLUGIN_DESCRIPTOR_SIZE_1_0, "test-wrong-major", DPT_KIND_OPTIMIZER, "1.0.0",
    "an optimizer from a library of ABI major 2", minimal_params, 1, wrong_major_get_extension};
static const dpt_plugin_descriptor* const wrong_major_plugins[] = {&wrong_major_descriptor};

static const dpt_library wrong_major_library = {
    .struct_size = DPT_LIBRARY_SIZE_1_0, .abi_major = 2, .abi_minor = 0,
    .id = "test-wrong-major-library", .version = "1.0.0", .plugins = wrong_major_plugins,
    .plugin_count = 1};

DPT_EXPORT const dpt_library* dpt_plugin_entry_v1(void) { return &wrong_major_library; }
