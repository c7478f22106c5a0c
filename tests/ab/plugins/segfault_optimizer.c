/* A/B test plugin `test-segfault`: an optimizer whose step kills its process with SIGSEGV, the
 * way a plugin with a wild pointer would. `dopant ab` must report the variant that uses it as
 * crashed, with the signal and the repetition, and still write every report. The default
 * action is restored first, so a sanitizer's handler (in the sanitized build) does not turn
 * the signal into an exit code. C11. */
#include <signal.h>
#include <string.h>

#include "../../abi/plugins/minimal_optimizer.h"

static dpt_error* segfault_step(dpt_instance* instance, const dpt_step_args* args, dpt_stream* stream) {
  (void)instance;
  (void)args;
  (void)stream;
  signal(SIGSEGV, SIG_DFL);
  raise(SIGSEGV);
  return NULL; /* not reached */
}

static const dpt_optimizer_v1 segfault_table = {
    DPT_OPTIMIZER_V1_SIZE_1_1, minimal_create,       minimal_destroy,      minimal_add_param_group,
    segfault_step,             minimal_export_state, minimal_import_state, NULL};

static const void* segfault_get_extension(const char* id) {
  return strcmp(id, DPT_KIND_OPTIMIZER) == 0 ? (const void*)&segfault_table : NULL;
}

static const dpt_plugin_descriptor segfault_descriptor = {
    DPT_PLUGIN_DESCRIPTOR_SIZE_1_0, "test-segfault", DPT_KIND_OPTIMIZER, "1.0.0",
    "an optimizer whose step dies of SIGSEGV", minimal_params, 1, segfault_get_extension};
static const dpt_plugin_descriptor* const segfault_plugins[] = {&segfault_descriptor};

static const dpt_library segfault_library = {
    DPT_LIBRARY_FIELDS, .id = "test-segfault-library", .version = "1.0.0",
    .plugins = segfault_plugins, .plugin_count = 1};

DPT_EXPORT const dpt_library* dpt_plugin_entry_v1(void) { return &segfault_library; }
