/* ABI test plugin whose id holds ESC and a newline: the loader must refuse it, since the
 * id would be printed raw in tables and messages. */
#include <string.h>

#include "minimal_optimizer.h"

static const dpt_optimizer_v1 control_char_table = {
    DPT_OPTIMIZER_V1_SIZE_1_1, minimal_create,       minimal_destroy,      minimal_add_param_group,
    minimal_step,              minimal_export_state, minimal_import_state, NULL};

static const void* control_char_get_extension(const char* id) {
  return strcmp(id, DPT_KIND_OPTIMIZER) == 0 ? (const void*)&control_char_table : NULL;
}

static const dpt_plugin_descriptor control_char_descriptor = {
    DPT_PLUGIN_DESCRIPTOR_SIZE_1_0, "test-\x1b[2J\nid", DPT_KIND_OPTIMIZER, "1.0.0",
    "an optimizer whose id holds control characters", minimal_params, 1, control_char_get_extension};
static const dpt_plugin_descriptor* const control_char_plugins[] = {&control_char_descriptor};

static const dpt_library control_char_library = {DPT_LIBRARY_FIELDS, .id = "test-control-char-name",
                                                 .version = "1.0.0", .plugins = control_char_plugins,
                                                 .plugin_count = 1};

DPT_EXPORT const dpt_library* dpt_plugin_entry_v1(void) { return &control_char_library; }
