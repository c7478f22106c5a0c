/* ABI test plugin library whose init fails: the core must refuse the library with the
 * plugin's message and stay usable. */
#include <string.h>

#include "minimal_optimizer.h"
#include "test_plugins.h"

static const dpt_optimizer_v1 init_fails_table = {
    DPT_OPTIMIZER_V1_SIZE_1_1, minimal_create,       minimal_destroy,      minimal_add_param_group,
    minimal_step,              minimal_export_state, minimal_import_state, NULL};

static const void* init_fails_get_extension(const char* id) {
  return strcmp(id, DPT_KIND_OPTIMIZER) == 0 ? (const void*)&init_fails_table : NULL;
}

static dpt_error* init_fails_init(const dpt_host* host) {
  return host->error(host, DPT_UNAVAILABLE, INIT_FAILS_MESSAGE);
}

static const dpt_plugin_descriptor init_fails_descriptor = {
    DPT_PLUGIN_DESCRIPTOR_SIZE_1_0, "test-init-fails", DPT_KIND_OPTIMIZER, "1.0.0",
    "an optimizer whose library init fails", minimal_params, 1, init_fails_get_extension};
static const dpt_plugin_descriptor* const init_fails_plugins[] = {&init_fails_descriptor};

static const dpt_library init_fails_library = {
    DPT_LIBRARY_FIELDS,         .id = "test-init-fails-library", .version = "1.0.0",
    .init = init_fails_init,    .plugins = init_fails_plugins,   .plugin_count = 1};

DPT_EXPORT const dpt_library* dpt_plugin_entry_v1(void) { return &init_fails_library; }
