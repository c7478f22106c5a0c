/* ABI test plugin `test-duplicate`, built into two libraries (DUPLICATE_LIBRARY_ID names
 * each): the second library loaded must be refused, naming the id and both files. */
#include <string.h>

#include "minimal_optimizer.h"
#include "test_plugins.h"

static const dpt_optimizer_v1 duplicate_table = {
    DPT_OPTIMIZER_V1_SIZE_1_1, minimal_create,       minimal_destroy,      minimal_add_param_group,
    minimal_step,              minimal_export_state, minimal_import_state, NULL};

static const void* duplicate_get_extension(const char* id) {
  return strcmp(id, DPT_KIND_OPTIMIZER) == 0 ? (const void*)&duplicate_table : NULL;
}

static const dpt_plugin_descriptor duplicate_descriptor = {
    DPT_PLUGIN_DESCRIPTOR_SIZE_1_0, DUPLICATE_PLUGIN_ID, DPT_KIND_OPTIMIZER, "1.0.0",
    "an optimizer whose id two libraries declare", minimal_params, 1, duplicate_get_extension};
static const dpt_plugin_descriptor* const duplicate_plugins[] = {&duplicate_descriptor};

static const dpt_library duplicate_library = {DPT_LIBRARY_FIELDS, .id = DUPLICATE_LIBRARY_ID,
                                              .version = "1.0.0", .plugins = duplicate_plugins,
                                              .plugin_count = 1};

DPT_EXPORT const dpt_library* dpt_plugin_entry_v1(void) { return &duplicate_library; }
