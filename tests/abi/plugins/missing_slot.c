/* ABI test plugin `test-missing-slot`: an optimizer table that leaves one required slot
 * NULL, built once per slot (MISSING_STEP or MISSING_EXPORT_STATE picks it): the loader must
 * refuse the library, naming the slot. */
#include <string.h>

#include "minimal_optimizer.h"
#include "test_plugins.h"

#if defined(MISSING_STEP)
#define TABLE_STEP NULL
#else
#define TABLE_STEP minimal_step
#endif
#if defined(MISSING_EXPORT_STATE)
#define TABLE_EXPORT_STATE NULL
#else
#define TABLE_EXPORT_STATE minimal_export_state
#endif

static const dpt_optimizer_v1 missing_slot_table = {
    DPT_OPTIMIZER_V1_SIZE_1_1, minimal_create, minimal_destroy,      minimal_add_param_group,
    TABLE_STEP,                TABLE_EXPORT_STATE, minimal_import_state, NULL};

static const void* missing_slot_get_extension(const char* id) {
  return strcmp(id, DPT_KIND_OPTIMIZER) == 0 ? (const void*)&missing_slot_table : NULL;
}

static const dpt_plugin_descriptor missing_slot_descriptor = {
    DPT_PLUGIN_DESCRIPTOR_SIZE_1_0, "test-missing-slot", DPT_KIND_OPTIMIZER, "1.0.0",
    "an optimizer with a NULL required slot", minimal_params, 1, missing_slot_get_extension};
static const dpt_plugin_descriptor* const missing_slot_plugins[] = {&missing_slot_descriptor};

static const dpt_library missing_slot_library = {DPT_LIBRARY_FIELDS, .id = "test-missing-slot",
                                                 .version = "1.0.0", .plugins = missing_slot_plugins,
                                                 .plugin_count = 1};

DPT_EXPORT const dpt_library* dpt_plugin_entry_v1(void) { return &missing_slot_library; }
