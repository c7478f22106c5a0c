/* Ids and messages of the ABI test plugins, shared by the plugins (C) and the tests (C++). */
#ifndef DOPANT_TESTS_TEST_PLUGINS_H
#define DOPANT_TESTS_TEST_PLUGINS_H

#define INIT_FAILS_MESSAGE "test-init-fails: the fake accelerator is not present"
#define STEP_FAILS_MESSAGE "test-step-fails: the step budget is spent"
#ifndef DUPLICATE_PLUGIN_ID
#define DUPLICATE_PLUGIN_ID "test-duplicate"
#endif

#include <stdint.h>

/* The lifecycle test library's counters, read through its extension "dopant.test.lifecycle/0"
 * (a lifecycle_probe). They live in the library, which stays loaded for the whole process, so
 * tests compare counts before and after. */
#define LIFECYCLE_PROBE_ID "dopant.test.lifecycle/0"
#define LIFECYCLE_PLUGIN_ID "test-lifecycle"
typedef struct lifecycle_counts {
  int32_t init_calls;
  int32_t deinit_calls;
  int32_t overlapping_calls; /* init or deinit entered while another one ran */
  int32_t live_instances;
  int32_t deinit_with_live_instances;
} lifecycle_counts;
typedef struct lifecycle_probe {
  uint32_t struct_size;
  void (*read)(lifecycle_counts* out);
} lifecycle_probe;

#endif
