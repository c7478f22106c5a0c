/* ABI test plugin `test-junk`: a library broken in one way, built once per defect
 * (JUNK_DEFECT picks it; 0 is the correct control). The loader must refuse each broken
 * build with a message naming what is wrong, and load nothing from it:
 *   1 the entry returns NULL                 2 the library's struct_size is 1.0's minus 1
 *   3 the descriptor's struct_size is 1.0's minus 1
 *   4 the kind table's struct_size is 1.0's minus 1
 *   5 a NULL descriptor in the plugin list   6 get_extension returns no table
 *   7 a NULL id                              8 a NULL kind
 *   9 a kind no dopant knows                10 the same id twice in one library
 *  11 a parameter of type 77                12 a default that does not parse
 *  13 the library's struct_size (8) cannot even hold its version
 * One byte below each released size shows the guards compare with that size exactly. */
#include <string.h>

#include "minimal_optimizer.h"
#include "test_plugins.h"

#ifndef JUNK_DEFECT
#error "define JUNK_DEFECT (0 to 13)"
#endif

static const dpt_optimizer_v1 junk_table = {
    JUNK_DEFECT == 4 ? DPT_OPTIMIZER_V1_SIZE_1_0 - 1 : DPT_OPTIMIZER_V1_SIZE_1_1, minimal_create, minimal_destroy,
    minimal_add_param_group, minimal_step, minimal_export_state, minimal_import_state, NULL};

static const void* junk_get_extension(const char* id) {
  if (JUNK_DEFECT == 6) return NULL;
  return strcmp(id, DPT_KIND_OPTIMIZER) == 0 ? (const void*)&junk_table : NULL;
}

static const dpt_param_decl junk_param = {
    DPT_PARAM_DECL_SIZE_1_0, "lr", JUNK_DEFECT == 11 ? (dpt_param_type)77 : DPT_PARAM_FLOAT,
    JUNK_DEFECT == 12 ? "fast" : "0.1", NULL, NULL, NULL, 0, "", "learning rate"};
static const dpt_param_decl* const junk_params[] = {&junk_param};

static const dpt_plugin_descriptor junk_descriptor = {
    JUNK_DEFECT == 3 ? DPT_PLUGIN_DESCRIPTOR_SIZE_1_0 - 1 : DPT_PLUGIN_DESCRIPTOR_SIZE_1_0,
    JUNK_DEFECT == 7 ? NULL : "test-junk",
    JUNK_DEFECT == 8 ? NULL : JUNK_DEFECT == 9 ? "dopant.teleporter/1" : DPT_KIND_OPTIMIZER,
    "1.0.0", "an optimizer library broken in one way", junk_params, 1, junk_get_extension};
static const dpt_plugin_descriptor* const junk_plugins[] = {
    JUNK_DEFECT == 5 ? NULL : &junk_descriptor, &junk_descriptor};

static const dpt_library junk_library = {
    JUNK_DEFECT == 2 ? DPT_LIBRARY_SIZE_1_0 - 1 : JUNK_DEFECT == 13 ? 8 : DPT_LIBRARY_SIZE_1_3, DPT_ABI_MAJOR, DPT_ABI_MINOR, "test-junk", "1.0.0",
    NULL, junk_plugins, JUNK_DEFECT == 10 ? 2 : 1, NULL};

DPT_EXPORT const dpt_library* dpt_plugin_entry_v1(void) { return JUNK_DEFECT == 1 ? NULL : &junk_library; }
