/* ABI test plugin of a draft kind whose table is larger than this core's draft: a draft
 * loads only at its exact size, so the core must refuse it. */
#include <dopant/abi.h>
#include <dopant/draft/checkpoint.h>

#include <string.h>

#include "minimal_optimizer.h"

/* A checkpoint table built against a (hypothetical) later draft with one more slot. */
typedef struct later_checkpoint_draft {
  dpt_checkpoint_draft known;
  void (*added_later)(void);
} later_checkpoint_draft;

static const later_checkpoint_draft later_table = {
    {.struct_size = sizeof(later_checkpoint_draft), .create = minimal_create, .destroy = minimal_destroy}, NULL};

static const void* draft_get_extension(const char* id) {
  return strcmp(id, DPT_KIND_CHECKPOINT) == 0 ? (const void*)&later_table : NULL;
}

static const dpt_plugin_descriptor draft_descriptor = {
    DPT_PLUGIN_DESCRIPTOR_FIELDS,     .id = "test-draft-wrong-size", .kind = DPT_KIND_CHECKPOINT,
    .version = "1.0.0",               .description = "a checkpoint plugin of another draft",
    .get_extension = draft_get_extension};
static const dpt_plugin_descriptor* const draft_plugins[] = {&draft_descriptor};

static const dpt_library draft_library = {DPT_LIBRARY_FIELDS, .id = "test-draft-wrong-size",
                                          .version = "1.0.0", .plugins = draft_plugins,
                                          .plugin_count = 1};

DPT_EXPORT const dpt_library* dpt_plugin_entry_v1(void) { return &draft_library; }
