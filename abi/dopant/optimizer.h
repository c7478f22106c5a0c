/* dopant ABI — kind "dopant.optimizer/1": optimizers that update parameters from gradients.
 *
 * Tensors are borrowed DLPack views. Lifetimes:
 *   - the DLTensor structs, their shape and strides arrays, the tensor names and the group
 *     name passed to add_param_group are valid only during that call: a plugin copies what
 *     it keeps (shapes, names);
 *   - the parameter memory they point to stays alive, at the same address, for the life of
 *     the instance, and so does the gradient memory unless the caller passes per-step
 *     gradients (dpt_step_args.grads), whose memory is read only during that step.
 * Parameters and gradients of one tensor have the same shape and dtype (fp32, bf16 or
 * fp16); memory is the run's device.
 */
#ifndef DOPANT_ABI_OPTIMIZER_H
#define DOPANT_ABI_OPTIMIZER_H

#include <dlpack/dlpack.h>
#include <math.h> /* NAN, for DPT_PARAM_GROUP_INIT */

#include "base.h"
#include "host.h"

#define DPT_KIND_OPTIMIZER "dopant.optimizer/1"

/* A group of tensors sharing hyper-parameters, as in torch.optim param_groups. A
 * hyper-parameter set to NaN takes the plugin's configured value (its parameter of the same
 * name: lr, beta1, beta2, eps, weight_decay); a plugin that has no such parameter ignores it. */
typedef struct dpt_param_group {
  uint32_t struct_size;
  const dpt_extension* next;
  const char* name;               /* the group's name, for errors and state keys    */
  double lr;
  double beta1;                   /* momentum for SGD-like optimizers               */
  double beta2;
  double eps;
  double weight_decay;
  uint32_t tensor_count;
  const char* const* tensor_names; /* `tensor_count` unique names: "layers.0.w"     */
  const DLTensor* params;          /* `tensor_count` parameters, updated in place    */
  const DLTensor* grads;           /* `tensor_count` gradients, read only            */
} dpt_param_group;
#define DPT_PARAM_GROUP_SIZE_1_0 DPT_STRUCT_SIZE(dpt_param_group, grads)
DPT_PIN_SIZE_LP64(DPT_PARAM_GROUP_SIZE_1_0, 96);
/* A group with no tensors whose hyper-parameters all take the plugin's configured values. */
#define DPT_PARAM_GROUP_INIT \
  {DPT_PARAM_GROUP_SIZE_1_0, NULL, NULL, NAN, NAN, NAN, NAN, NAN, 0, NULL, NULL, NULL}

/* The arguments of one step. */
typedef struct dpt_step_args {
  uint32_t struct_size;
  const dpt_extension* next;
  double lr_scale;                /* multiplies every group's lr (schedules)        */
  double grad_scale;              /* gradients are divided by it (loss scaling); 1  */
  /* ---- added in minor 3 ---- */
  /* Gradients of this step, for callers whose gradients move between steps (PyTorch's
   * default zero_grad(set_to_none=True) allocates them anew). 0 and NULL: every tensor
   * reads the gradient given to add_param_group. Otherwise `grad_count` is the number of
   * tensors of the instance and grads[i] the gradient of the i-th tensor, counting in
   * add_param_group order and within a group in tensor order; each has its parameter's
   * shape and dtype, and its memory is read only by this step (on a GPU, by the work the
   * step queues on its stream: keep it until that work completes; later steps without
   * `grads` read the gradients given to add_param_group again). Any other count is
   * DPT_INVALID_ARGUMENT. Plugins built against minor 2 or older ignore these fields:
   * check dpt_plugin_info.library_abi_minor before relying on them. */
  uint32_t grad_count;
  const DLTensor* grads;
} dpt_step_args;
#define DPT_STEP_ARGS_SIZE_1_0 DPT_STRUCT_SIZE(dpt_step_args, grad_scale)
#define DPT_STEP_ARGS_SIZE_1_3 DPT_STRUCT_SIZE(dpt_step_args, grads)
DPT_PIN_SIZE_LP64(DPT_STEP_ARGS_SIZE_1_0, 32);
DPT_PIN_SIZE_LP64(DPT_STEP_ARGS_SIZE_1_3, 48);
/* A plain step: scales of 1, the gradients given to add_param_group. */
#define DPT_STEP_ARGS_INIT {DPT_STEP_ARGS_SIZE_1_3, NULL, 1.0, 1.0, 0, NULL}

/* Memory the optimizer holds, by place. */
typedef struct dpt_optimizer_memory {
  uint32_t struct_size;
  uint64_t device_state_bytes;    /* optimizer state resident on the device          */
  uint64_t host_state_bytes;      /* optimizer state resident in (pinned) host memory */
  uint64_t device_staging_bytes;  /* device buffers used only during step           */
} dpt_optimizer_memory;
#define DPT_OPTIMIZER_MEMORY_SIZE_1_0 DPT_STRUCT_SIZE(dpt_optimizer_memory, device_staging_bytes)
DPT_PIN_SIZE_LP64(DPT_OPTIMIZER_MEMORY_SIZE_1_0, 32);
/* An output struct ready for the memory slot: its size set, every count zero. */
#define DPT_OPTIMIZER_MEMORY_INIT {DPT_OPTIMIZER_MEMORY_SIZE_1_0, 0, 0, 0}

/* Receives one state tensor during export. `state` is a PyTorch name: "step", "exp_avg",
 * "exp_avg_sq", "momentum_buffer" or "master" (fp32 master weights). The view is valid only
 * during the call and is host memory. */
typedef dpt_error* (*dpt_state_visitor)(void* context, const char* tensor_name,
                                        const char* state, const DLTensor* value);

/* Every slot is required, and the loader refuses a library whose table leaves one NULL,
 * except the slots marked Optional (NULL there: the plugin does not provide it). */
typedef struct dpt_optimizer_v1 {
  uint32_t struct_size;
  /* [control-thread] Creates an instance. `config` holds the plugin's validated
   * parameters; it is valid only during the call (read every value here). `host` stays
   * valid for the life of the instance. */
  dpt_error* (*create)(const dpt_host* host, const dpt_config* config, dpt_instance** out);
  /* [control-thread] Destroys an instance and frees all its state. NULL is accepted. */
  void (*destroy)(dpt_instance* instance);
  /* [instance-thread] Adds a group; state is allocated here. Tensor names must be unique
   * across groups. */
  dpt_error* (*add_param_group)(dpt_instance* instance, const dpt_param_group* group);
  /* [instance-thread] One update of every parameter, queued on `stream` (NULL: default). */
  dpt_error* (*step)(dpt_instance* instance, const dpt_step_args* args, dpt_stream* stream);
  /* [instance-thread] Calls `visitor` once per state tensor, in group then tensor order. */
  dpt_error* (*export_state)(dpt_instance* instance, dpt_state_visitor visitor, void* context);
  /* [instance-thread] Sets one state tensor (host memory, same names as export). */
  dpt_error* (*import_state)(dpt_instance* instance, const char* tensor_name, const char* state,
                             const DLTensor* value);
  /* ---- added in minor 1 ---- */
  /* [instance-thread] Optional. Memory the instance holds now. */
  dpt_error* (*memory)(dpt_instance* instance, dpt_optimizer_memory* out);
} dpt_optimizer_v1;
#define DPT_OPTIMIZER_V1_SIZE_1_0 DPT_STRUCT_SIZE(dpt_optimizer_v1, import_state)
#define DPT_OPTIMIZER_V1_SIZE_1_1 DPT_STRUCT_SIZE(dpt_optimizer_v1, memory)
DPT_PIN_SIZE_LP64(DPT_OPTIMIZER_V1_SIZE_1_0, 56);
DPT_PIN_SIZE_LP64(DPT_OPTIMIZER_V1_SIZE_1_1, 64);
/* Leading designators of a static dpt_optimizer_v1 (see base.h). */
#define DPT_OPTIMIZER_V1_FIELDS .struct_size = sizeof(dpt_optimizer_v1)

#endif /* DOPANT_ABI_OPTIMIZER_H */
