/* dopant ABI — base definitions shared by every other ABI header.
 *
 * Version macros, the export macro, the struct-size macro, the extension-chain record,
 * error codes, the opaque error type and the thread tags. C11; compiles as C++ too.
 *
 * Thread tags (used in the comment of every function in the ABI):
 *   [any-thread]       may be called from any thread, concurrently with any other call.
 *   [control-thread]   called from the thread that created the runtime; never concurrently
 *                      with another [control-thread] call of the same runtime.
 *   [instance-thread]  called on one instance by at most one thread at a time (the caller
 *                      serializes); different instances may run concurrently.
 */
#ifndef DOPANT_ABI_BASE_H
#define DOPANT_ABI_BASE_H

#include <stddef.h>
#include <stdint.h>

/* The ABI major is part of the entry symbol and of every kind id; the minor is one
 * increasing integer. See abi/CHANGELOG.md. */
#define DPT_ABI_MAJOR 1
#define DPT_ABI_MINOR 6

#ifdef __cplusplus
#define DPT_EXTERN_C extern "C"
#else
#define DPT_EXTERN_C
#endif

#if defined(_WIN32)
#define DPT_EXPORT DPT_EXTERN_C __declspec(dllexport)
#else
#define DPT_EXPORT DPT_EXTERN_C __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
#define DPT_STATIC_ASSERT(cond, msg) static_assert(cond, msg)
#else
#define DPT_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif

/* Size of a struct up to and including LAST_FIELD: the value a producer built against a
 * given minor writes into struct_size. */
#define DPT_STRUCT_SIZE(TYPE, LAST_FIELD) \
  (offsetof(TYPE, LAST_FIELD) + sizeof(((TYPE*)0)->LAST_FIELD))

/* True when a struct of the given size holds FIELD entirely (readers must check before
 * touching any field that was added after the first release of that struct). */
#define DPT_HAS_FIELD(PTR, TYPE, FIELD) \
  ((PTR)->struct_size >= DPT_STRUCT_SIZE(TYPE, FIELD))

/* Initializer macros, in two forms (as NCCL's NCCL_CONFIG_INITIALIZER, with a form for
 * static data too):
 *   DPT_<STRUCT>_INIT    a whole braced initializer for a struct a caller fills in at run
 *                        time: `dpt_step_args args = DPT_STEP_ARGS_INIT;` then set fields.
 *                        It sets struct_size to this header's size and every field to its
 *                        documented default.
 *   DPT_<STRUCT>_FIELDS  the leading designators of a struct an author writes as static
 *                        data, first in a designated initializer (C11 and C++20):
 *                        `static const dpt_library lib = {DPT_LIBRARY_FIELDS, .id = "x"};`
 * Each struct's macros sit next to it. */

/* Pins a released size on LP64 targets, where the numbers below were measured. */
#define DPT_PIN_SIZE_LP64(EXPR, BYTES) \
  DPT_STATIC_ASSERT(sizeof(void*) != 8 || (EXPR) == (BYTES), "ABI size changed: " #EXPR)

/* One record of an extension chain: structs that expect extension carry a `next` pointer
 * to a chain of these. `type` is a versioned string id ("dopant.xxx/1"); readers skip
 * records whose type they do not know. */
typedef struct dpt_extension {
  uint32_t struct_size;
  const char* type;
  const struct dpt_extension* next;
} dpt_extension;

/* The fixed set of error codes. Stored as int32_t in every struct and signature. */
typedef int32_t dpt_code;
enum {
  DPT_OK = 0,
  DPT_INVALID_ARGUMENT = 1,
  DPT_NOT_FOUND = 2,
  DPT_OUT_OF_MEMORY = 3,
  DPT_RESOURCE_EXHAUSTED = 4,
  DPT_UNAVAILABLE = 5,
  DPT_DEADLINE_EXCEEDED = 6,
  DPT_INTERNAL = 7,
  DPT_UNIMPLEMENTED = 8,
  DPT_PERMISSION_DENIED = 9,
  DPT_DATA_LOSS = 10,
  /* ---- added in minor 3 ---- */
  DPT_CANCELLED = 11,           /* the run was asked to stop (host is_cancelled)      */
  DPT_FAILED_PRECONDITION = 12, /* the call is valid, but not in the current state    */
  DPT_ALREADY_EXISTS = 13       /* what the call would create is already there        */
};
/* The largest code this header knows. */
#define DPT_CODE_LAST DPT_ALREADY_EXISTS

/* How a reader treats a code: a code it does not know (from a newer minor, or garbage)
 * reads as DPT_INTERNAL, so that a switch over the known codes always matches. */
static inline dpt_code dpt_code_known_or_internal(dpt_code code) {
  return code >= DPT_OK && code <= DPT_CODE_LAST ? code : (dpt_code)DPT_INTERNAL;
}

/* An error. Created only through dpt_host.error (so the core owns it) and freed by the
 * core; a plugin that receives one from the host (e.g. from alloc) either returns it to its
 * caller or releases it with dpt_host.error_free. Every fallible call returns dpt_error*,
 * NULL meaning success. */
typedef struct dpt_error dpt_error;

/* Opaque handles owned by the core. */
typedef struct dpt_config dpt_config; /* a plugin's validated parameters            */
typedef struct dpt_stream dpt_stream; /* NULL means the default (synchronous) stream */
typedef struct dpt_event dpt_event;

/* Opaque instance of any kind, owned by the plugin that created it. */
typedef struct dpt_instance dpt_instance;

#endif /* DOPANT_ABI_BASE_H */
