/* ABI test plugin `test-older-minor`: described as if built against ABI 1.0. The library
 * reports minor 0 and the optimizer table's struct_size is DPT_OPTIMIZER_V1_SIZE_1_0, so it
 * ends before the `memory` slot of minor 1. The bytes past that size hold a poison function
 * instead of NULL: a core that reads beyond struct_size exposes it (and calling it aborts),
 * while a core that widens correctly shows the slot as NULL. */
#include <stdlib.h>
#include <string.h>

#include "minimal_optimizer.h"

static dpt_error* poison_memory(dpt_instance* instance, dpt_optimizer_memory* out) {
  (void)instance;
  (void)out;
  abort();
}

static const dpt_optimizer_v1 older_table = {
    DPT_OPTIMIZER_V1_SIZE_1_0, minimal_create,       minimal_destroy,      minimal_add_param_group,
    minimal_step,              minimal_export_state, minimal_import_state, poison_memory};

static const void* older_get_extension(const char* id) {
  return strcmp(id, DPT_KIND_OPTIMIZER) == 0 ? (const void*)&older_table : NULL;
}

static const dpt_plugin_descriptor older_descriptor = {
    DPT_PLUGIN_DESCRIPTOR_SIZE_1_0, "test-older-minor", DPT_KIND_OPTIMIZER, "1.0.0",
    "an optimizer built against ABI 1.0", minimal_params, 1, older_get_extension};
static const dpt_plugin_descriptor* const older_plugins[] = {&older_descriptor};

static const dpt_library older_library = {
    .struct_size = DPT_LIBRARY_SIZE_1_0, .abi_major = 1, .abi_minor = 0,
    .id = "test-older-minor-library", .version = "1.0.0", .plugins = older_plugins,
    .plugin_count = 1};

DPT_EXPORT const dpt_library* dpt_plugin_entry_v1(void) { return &older_library; }
