/* dopant ABI — kind "dopant.sandbox.draft/0": isolated execution of tool calls.
 *
 * A call runs a command in isolation with a payload on standard input and returns its exit
 * status and outputs. Output buffers belong to the instance until release_result. After a
 * failed execute (an error returned) the result holds no buffers: the plugin leaves its
 * output pointers NULL and the caller does not call release_result.
 *
 * DRAFT: this kind has no shipped plugin yet. Its id ends in ".draft/0", its sizes are not
 * pinned, and it may change in any way until it is promoted to "/1" (see docs/abi.md). The
 * core loads a plugin of a draft kind only when its table is exactly this header's size.
 */
#ifndef DOPANT_ABI_DRAFT_SANDBOX_H
#define DOPANT_ABI_DRAFT_SANDBOX_H

#include "../base.h"
#include "../host.h"

#define DPT_KIND_SANDBOX "dopant.sandbox.draft/0"

typedef struct dpt_sandbox_request {
  uint32_t struct_size;
  const dpt_extension* next;
  const char* const* argv;        /* NULL-terminated; argv[0] is the program        */
  const void* input;              /* payload for standard input, may be NULL         */
  uint64_t input_bytes;
  uint64_t timeout_ms;            /* 0: the plugin's configured default             */
} dpt_sandbox_request;
#define DPT_SANDBOX_REQUEST_DRAFT_SIZE DPT_STRUCT_SIZE(dpt_sandbox_request, timeout_ms)

typedef struct dpt_sandbox_result {
  uint32_t struct_size;
  int32_t exit_code;              /* -1 when killed by a signal                     */
  int32_t signal;                 /* 0 unless killed                                */
  const void* output;             /* standard output, owned by the instance         */
  uint64_t output_bytes;
  const void* error_output;       /* standard error, owned by the instance          */
  uint64_t error_output_bytes;
  uint64_t wall_ns;               /* time from request to result                    */
} dpt_sandbox_result;
#define DPT_SANDBOX_RESULT_DRAFT_SIZE DPT_STRUCT_SIZE(dpt_sandbox_result, wall_ns)

/* Every slot is required, and the loader refuses a library whose table leaves one NULL,
 * except the slots marked Optional (NULL there: the plugin does not provide it). */
typedef struct dpt_sandbox_draft {
  uint32_t struct_size;
  /* [control-thread] */
  dpt_error* (*create)(const dpt_host* host, const dpt_config* config, dpt_instance** out);
  /* [control-thread] NULL is accepted. */
  void (*destroy)(dpt_instance* instance);
  /* [any-thread] Runs one call. A timeout returns DPT_DEADLINE_EXCEEDED. */
  dpt_error* (*execute)(dpt_instance* instance, const dpt_sandbox_request* request,
                        dpt_sandbox_result* out);
  /* [any-thread] Frees the buffers of a result from execute. */
  void (*release_result)(dpt_instance* instance, dpt_sandbox_result* result);
} dpt_sandbox_draft;
#define DPT_SANDBOX_DRAFT_SIZE DPT_STRUCT_SIZE(dpt_sandbox_draft, release_result)

#endif /* DOPANT_ABI_DRAFT_SANDBOX_H */
