/* dopant ABI — the plugin library entry, plugin descriptors and parameter schemas.
 *
 * A plugin library exports exactly one symbol, dpt_plugin_entry_v1, which returns a static
 * description of the library and of every plugin in it. All of it is static const data of
 * the library: the core never frees any of it, and libraries are never unloaded.
 */
#ifndef DOPANT_ABI_PLUGIN_H
#define DOPANT_ABI_PLUGIN_H

#include "base.h"
#include "host.h"

/* Parameter types a plugin may declare. */
typedef int32_t dpt_param_type;
enum {
  DPT_PARAM_BOOL = 0,   /* true / false                                        */
  DPT_PARAM_INT = 1,    /* 64-bit signed integer                               */
  DPT_PARAM_FLOAT = 2,  /* double                                              */
  DPT_PARAM_STRING = 3, /* UTF-8 text                                          */
  DPT_PARAM_SIZE = 4,   /* unsigned count with units: "256MiB", "1.5G", 4096    */
  DPT_PARAM_ENUM = 5    /* one of `choices`                                    */
};

/* One declared parameter. Default and bounds are written as config text ("1e-4", "256MiB",
 * "true", "fp32") and parsed by the core when the library loads: a declaration that does
 * not parse refuses the plugin with a message naming it. */
typedef struct dpt_param_decl {
  uint32_t struct_size;
  const char* name;               /* snake_case                                  */
  dpt_param_type type;
  const char* default_value;      /* required                                    */
  const char* min_value;          /* NULL: unbounded (int, float, size)          */
  const char* max_value;          /* NULL: unbounded (int, float, size)          */
  const char* const* choices;     /* enum only: `choice_count` strings           */
  uint32_t choice_count;
  const char* unit;               /* "B", "s", "" ...; NULL: none                */
  const char* doc;                /* one line                                    */
} dpt_param_decl;
#define DPT_PARAM_DECL_SIZE_1_0 DPT_STRUCT_SIZE(dpt_param_decl, doc)
DPT_PIN_SIZE_LP64(DPT_PARAM_DECL_SIZE_1_0, 80);
/* Leading designators of a static dpt_param_decl (see base.h). */
#define DPT_PARAM_DECL_FIELDS .struct_size = sizeof(dpt_param_decl)

/* One plugin: an implementation of one kind. */
typedef struct dpt_plugin_descriptor {
  uint32_t struct_size;
  const char* id;                 /* unique across all loaded libraries: "adamw" */
  const char* kind;               /* versioned kind id: "dopant.optimizer/1"      */
  const char* version;            /* the plugin's own version: "1.2.0"            */
  const char* description;        /* one line                                    */
  const dpt_param_decl* const* params; /* `param_count` pointers                  */
  uint32_t param_count;
  /* [any-thread] Returns the static table for a versioned capability id, or NULL. The
   * kind's own table is found with the kind id: get_extension("dopant.optimizer/1"). */
  const void* (*get_extension)(const char* id);
} dpt_plugin_descriptor;
#define DPT_PLUGIN_DESCRIPTOR_SIZE_1_0 DPT_STRUCT_SIZE(dpt_plugin_descriptor, get_extension)
DPT_PIN_SIZE_LP64(DPT_PLUGIN_DESCRIPTOR_SIZE_1_0, 64);
/* Leading designators of a static dpt_plugin_descriptor (see base.h). */
#define DPT_PLUGIN_DESCRIPTOR_FIELDS .struct_size = sizeof(dpt_plugin_descriptor)

/* The library. Plugins are listed by pointer so that a descriptor can grow without
 * changing the stride of an array.
 *
 * Lifecycle (libraries built against minor 3 or later): the library is loaded once per
 * process and shared by every runtime that finds it. `init` runs when the first runtime
 * loads it and `deinit` after the last of those runtimes is destroyed; the core serializes
 * both per library, so they never run concurrently with each other or with themselves, and
 * a library is initialized again if another runtime loads it after its deinit. Libraries of
 * minors 0 to 2 keep their old contract: `init` once per runtime that loads them (so it must
 * be idempotent), no `deinit`. */
typedef struct dpt_library {
  uint32_t struct_size;
  uint32_t abi_major;             /* DPT_ABI_MAJOR the library was built against */
  uint32_t abi_minor;             /* DPT_ABI_MINOR the library was built against */
  const char* id;                 /* "dopant-optimizers"                          */
  const char* version;
  /* [control-thread] Optional (NULL: nothing to do). Called before any create, as above.
   * `host` is valid only during the call: instances get their own in `create`. An error
   * refuses the whole library for the runtime that was loading it. */
  dpt_error* (*init)(const dpt_host* host);
  const dpt_plugin_descriptor* const* plugins; /* `plugin_count` pointers          */
  uint32_t plugin_count;
  /* ---- added in minor 3 ---- */
  /* [control-thread] Optional (NULL: nothing to do). Undoes `init`, after every instance
   * of the library's plugins in every runtime is destroyed. `host` (that of the runtime
   * being destroyed) is valid only during the call. Not called when `init` failed. */
  void (*deinit)(const dpt_host* host);
} dpt_library;
#define DPT_LIBRARY_SIZE_1_0 DPT_STRUCT_SIZE(dpt_library, plugin_count)
#define DPT_LIBRARY_SIZE_1_3 DPT_STRUCT_SIZE(dpt_library, deinit)
DPT_PIN_SIZE_LP64(DPT_LIBRARY_SIZE_1_0, 52);
DPT_PIN_SIZE_LP64(DPT_LIBRARY_SIZE_1_3, 64);
/* Leading designators of the static dpt_library (see base.h): size and ABI version. */
#define DPT_LIBRARY_FIELDS \
  .struct_size = sizeof(dpt_library), .abi_major = DPT_ABI_MAJOR, .abi_minor = DPT_ABI_MINOR

/* The one exported symbol. Its name carries the ABI major. [control-thread] */
#define DPT_PLUGIN_ENTRY_SYMBOL "dpt_plugin_entry_v1"
typedef const dpt_library* (*dpt_plugin_entry_fn)(void);
DPT_EXPORT const dpt_library* dpt_plugin_entry_v1(void);

#endif /* DOPANT_ABI_PLUGIN_H */
