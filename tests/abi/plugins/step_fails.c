/* ABI test plugin `test-step-fails`: an optimizer whose step always returns an error, so
 * tests can check that the code and message reach the caller and the runtime keeps
 * working. */
#include <string.h>

#include "minimal_optimizer.h"
#include "test_plugins.h"

static dpt_error* step_fails_step(dpt_instance* instance, const dpt_step_args* args,
                                  dpt_stream* stream) {
  const dpt_host* host = minimal_host(instance);
  (void)args;
  (void)stream;
  return host->error(host, DPT_RESOURCE_EXHAUSTED, STEP_FAILS_MESSAGE);
}

static const dpt_optimizer_v1 step_fails_table = {
    DPT_OPTIMIZER_V1_SIZE_1_1, minimal_create,       minimal_destroy,      minimal_add_param_group,
    step_fails_step,           minimal_export_state, minimal_import_state, NULL};

static const void* step_fails_get_extension(const char* id) {
  return strcmp(id, DPT_KIND_OPTIMIZER) == 0 ? (const void*)&step_fails_table : NULL;
}

static const dpt_plugin_descriptor step_fails_descriptor = {
    DPT_PLUGIN_DESCRIPTOR_SIZE_1_0, "test-step-fails", DPT_KIND_OPTIMIZER, "1.0.0",
    "an optimizer whose step always fails", minimal_params, 1, step_fails_get_extension};
static const dpt_plugin_descriptor* const step_fails_plugins[] = {&step_fails_descriptor};

static const dpt_library step_fails_library = {
    DPT_LIBRARY_FIELDS, .id = "test-step-fails-library", .version = "1.0.0",
    .plugins = step_fails_plugins, .plugin_count = 1};

DPT_EXPORT const dpt_library* dpt_plugin_entry_v1(void) { return &step_fails_library; }
