/* ABI test plugin library that counts its lifecycle: init and deinit calls, calls that
 * overlapped (the core must serialize them per library), live instances, and deinit calls
 * made while instances were still alive. The tests read the counts through the extension
 * LIFECYCLE_PROBE_ID. */
#define _POSIX_C_SOURCE 199309L

#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "minimal_optimizer.h"
#include "test_plugins.h"

static atomic_int init_calls, deinit_calls, running_calls, overlapping_calls;
static atomic_int live_instances, deinit_with_live_instances;

/* Marks a lifecycle call as running, for long enough that an unserialized second call on
 * another thread would be seen. */
static void enter_lifecycle_call(void) {
  const struct timespec pause = {0, 200000}; /* 0.2 ms */
  if (atomic_fetch_add(&running_calls, 1) != 0) atomic_fetch_add(&overlapping_calls, 1);
  nanosleep(&pause, NULL);
}
static void leave_lifecycle_call(void) { atomic_fetch_sub(&running_calls, 1); }

static dpt_error* lifecycle_init(const dpt_host* host) {
  (void)host;
  enter_lifecycle_call();
  atomic_fetch_add(&init_calls, 1);
  leave_lifecycle_call();
  return NULL;
}

static void lifecycle_deinit(const dpt_host* host) {
  (void)host;
  enter_lifecycle_call();
  if (atomic_load(&live_instances) != 0) atomic_fetch_add(&deinit_with_live_instances, 1);
  atomic_fetch_add(&deinit_calls, 1);
  leave_lifecycle_call();
}

static dpt_error* lifecycle_create(const dpt_host* host, const dpt_config* config,
                                   dpt_instance** out) {
  dpt_error* error = minimal_create(host, config, out);
  if (error == NULL) atomic_fetch_add(&live_instances, 1);
  return error;
}

static void lifecycle_destroy(dpt_instance* instance) {
  if (instance != NULL) atomic_fetch_sub(&live_instances, 1);
  minimal_destroy(instance);
}

static void lifecycle_read(lifecycle_counts* out) {
  out->init_calls = atomic_load(&init_calls);
  out->deinit_calls = atomic_load(&deinit_calls);
  out->overlapping_calls = atomic_load(&overlapping_calls);
  out->live_instances = atomic_load(&live_instances);
  out->deinit_with_live_instances = atomic_load(&deinit_with_live_instances);
}

static const lifecycle_probe probe = {sizeof(lifecycle_probe), lifecycle_read};

static const dpt_optimizer_v1 lifecycle_table = {DPT_OPTIMIZER_V1_FIELDS,
                                                 .create = lifecycle_create,
                                                 .destroy = lifecycle_destroy,
                                                 .add_param_group = minimal_add_param_group,
                                                 .step = minimal_step,
                                                 .export_state = minimal_export_state,
                                                 .import_state = minimal_import_state};

static const void* lifecycle_get_extension(const char* id) {
  if (strcmp(id, DPT_KIND_OPTIMIZER) == 0) return &lifecycle_table;
  if (strcmp(id, LIFECYCLE_PROBE_ID) == 0) return &probe;
  return NULL;
}

static const dpt_plugin_descriptor lifecycle_descriptor = {
    DPT_PLUGIN_DESCRIPTOR_FIELDS,
    .id = LIFECYCLE_PLUGIN_ID,
    .kind = DPT_KIND_OPTIMIZER,
    .version = "1.0.0",
    .description = "an optimizer whose library counts its init and deinit",
    .params = minimal_params,
    .param_count = 1,
    .get_extension = lifecycle_get_extension};
static const dpt_plugin_descriptor* const lifecycle_plugins[] = {&lifecycle_descriptor};

static const dpt_library lifecycle_library = {DPT_LIBRARY_FIELDS,
                                              .id = "test-lifecycle-library",
                                              .version = "1.0.0",
                                              .init = lifecycle_init,
                                              .plugins = lifecycle_plugins,
                                              .plugin_count = 1,
                                              .deinit = lifecycle_deinit};

DPT_EXPORT const dpt_library* dpt_plugin_entry_v1(void) { return &lifecycle_library; }
