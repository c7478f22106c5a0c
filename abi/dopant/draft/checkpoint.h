/* dopant ABI — kind "dopant.checkpoint/1": writing, reading and converting checkpoints.
 *
 * Formats are named by strings ("safetensors", "torch-dcp", "megatron-dist", "hf"); a
 * plugin reports what it cannot handle with DPT_UNIMPLEMENTED. Paths are UTF-8.
 */
#ifndef DOPANT_ABI_CHECKPOINT_H
#define DOPANT_ABI_CHECKPOINT_H

#include <dlpack/dlpack.h>

#include "base.h"
#include "host.h"

#define DPT_KIND_CHECKPOINT "dopant.checkpoint/1"

typedef struct dpt_convert_request {
  uint32_t struct_size;
  const dpt_extension* next;
  const char* source_path;
  const char* source_format;
  const char* target_path;        /* written atomically: complete or absent         */
  const char* target_format;
} dpt_convert_request;
#define DPT_CONVERT_REQUEST_SIZE_1_0 DPT_STRUCT_SIZE(dpt_convert_request, target_format)
DPT_PIN_SIZE_LP64(DPT_CONVERT_REQUEST_SIZE_1_0, 48);

/* Receives one tensor while reading. The view is valid only during the call. */
typedef dpt_error* (*dpt_tensor_visitor)(void* context, const char* name, const DLTensor* value);

typedef struct dpt_checkpoint_v1 {
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
} dpt_checkpoint_v1;
#define DPT_CHECKPOINT_V1_SIZE_1_0 DPT_STRUCT_SIZE(dpt_checkpoint_v1, convert)
DPT_PIN_SIZE_LP64(DPT_CHECKPOINT_V1_SIZE_1_0, 48);

#endif /* DOPANT_ABI_CHECKPOINT_H */
