/* dopant ABI — kind "dopant.checkpoint.draft/0": writing, reading and converting checkpoints.
 *
 * Formats are named by strings ("safetensors", "torch-dcp", "megatron-dist", "hf"); a
 * plugin reports what it cannot handle with DPT_UNIMPLEMENTED. Paths are UTF-8.
 *
 * DRAFT: this kind has no shipped plugin yet. Its id ends in ".draft/0", its sizes are not
 * pinned, and it may change in any way until it is promoted to "/1" (see docs/abi.md). The
 * core loads a plugin of a draft kind only when its table is exactly this header's size.
 */
#ifndef DOPANT_ABI_DRAFT_CHECKPOINT_H
#define DOPANT_ABI_DRAFT_CHECKPOINT_H

#include <dlpack/dlpack.h>

#include "../base.h"
#include "../host.h"

#define DPT_KIND_CHECKPOINT "dopant.checkpoint.draft/0"

typedef struct dpt_convert_request {
  uint32_t struct_size;
  const dpt_extension* next;
  const char* source_path;
  const char* source_format;
  const char* target_path;        /* written atomically: complete or absent         */
  const char* target_format;
} dpt_convert_request;
#define DPT_CONVERT_REQUEST_DRAFT_SIZE DPT_STRUCT_SIZE(dpt_convert_request, target_format)

/* Receives one tensor while reading. The view is valid only during the call. */
typedef dpt_error* (*dpt_tensor_visitor)(void* context, const char* name, const DLTensor* value);

/* Every slot is required, and the loader refuses a library whose table leaves one NULL,
 * except the slots marked Optional (NULL there: the plugin does not provide it). */
typedef struct dpt_checkpoint_draft {
  uint32_t struct_size;
  /* [control-thread] */
  dpt_error* (*create)(const dpt_host* host, const dpt_config* config, dpt_instance** out);
  /* [control-thread] NULL is accepted. */
  void (*destroy)(dpt_instance* instance);
  /* [instance-thread] Writes named host tensors to `path` in the plugin's format. */
  dpt_error* (*write)(dpt_instance* instance, const char* path, uint32_t count,
                      const char* const* names, const DLTensor* tensors);
  /* [instance-thread] Calls `visitor` for every tensor stored at `path`. */
  dpt_error* (*read)(dpt_instance* instance, const char* path, dpt_tensor_visitor visitor,
                     void* context);
  /* [instance-thread] Optional. Converts a checkpoint from one format to another. */
  dpt_error* (*convert)(dpt_instance* instance, const dpt_convert_request* request);
} dpt_checkpoint_draft;
#define DPT_CHECKPOINT_DRAFT_SIZE DPT_STRUCT_SIZE(dpt_checkpoint_draft, convert)

#endif /* DOPANT_ABI_DRAFT_CHECKPOINT_H */
