/* ABI test plugin of a withdrawn draft kind: built against the checkpoint draft
 * ("dopant.checkpoint.draft/0") before the kind was promoted to "/1" in minor 6. A core
 * that no longer knows the draft must refuse it by name, not misread its table. */
#include <dopant/abi.h>

#include <string.h>

#include "minimal_optimizer.h"

#define WITHDRAWN_KIND "dopant.checkpoint.draft/0"

/* The draft's table as it was: the checkpoint slots of minor 6, under the draft's id. */
static const dpt_checkpoint_v1 draft_table = {
    DPT_CHECKPOINT_V1_FIELDS, .create = minimal_create, .destroy = minimal_destroy};

static const void* draft_get_extension(const char* id) {
  return strcmp(id, WITHDRAWN_KIND) == 0 ? (const void*)&draft_table : NULL;
}

static const dpt_plugin_descriptor draft_descriptor = {
    DPT_PLUGIN_DESCRIPTOR_FIELDS,     .id = "test-draft-withdrawn", .kind = WITHDRAWN_KIND,
    .version = "1.0.0",               .description = "a checkpoint plugin of the withdrawn draft",
    .get_extension = draft_get_extension};
static const dpt_plugin_descriptor* const draft_plugins[] = {&draft_descriptor};

static const dpt_library draft_library = {DPT_LIBRARY_FIELDS, .id = "test-draft-withdrawn",
                                          .version = "1.0.0", .plugins = draft_plugins,
                                          .plugin_count = 1};

DPT_EXPORT const dpt_library* dpt_plugin_entry_v1(void) { return &draft_library; }
