/* The stateless fp32 optimizer shared by the ABI test plugins (see minimal_optimizer.h). */
#include "minimal_optimizer.h"

#include <stdlib.h>
#include <string.h>

static const dpt_param_decl lr_decl = {DPT_PARAM_DECL_SIZE_1_0, "lr", DPT_PARAM_FLOAT, "0.5", "0",
                                       NULL, NULL, 0, "", "learning rate"};
const dpt_param_decl* const minimal_params[1] = {&lr_decl};

typedef struct minimal_tensor {
  float* param;
  const float* grad;
  uint64_t numel;
} minimal_tensor;

struct dpt_instance {
  const dpt_host* host;
  double lr;
  minimal_tensor* tensors;
  uint32_t tensor_count;
};

dpt_error* minimal_create(const dpt_host* host, const dpt_config* config, dpt_instance** out) {
  double lr = 0.0;
  dpt_error* error = host->config_float(host, config, "lr", &lr);
  dpt_instance* self;
  if (error != NULL) return error;
  self = (dpt_instance*)calloc(1, sizeof *self);
  if (self == NULL) return host->error(host, DPT_OUT_OF_MEMORY, "minimal optimizer: no memory");
  self->host = host;
  self->lr = lr;
  *out = self;
  return NULL;
}

void minimal_destroy(dpt_instance* self) {
  if (self == NULL) return;
  free(self->tensors);
  free(self);
}

dpt_error* minimal_add_param_group(dpt_instance* self, const dpt_param_group* group) {
  minimal_tensor* tensors;
  uint32_t i;
  tensors = (minimal_tensor*)realloc(
      self->tensors, ((size_t)self->tensor_count + group->tensor_count + 1) * sizeof *tensors);
  if (tensors == NULL) return self->host->error(self->host, DPT_OUT_OF_MEMORY, "no memory");
  self->tensors = tensors;
  for (i = 0; i < group->tensor_count; ++i) {
    const DLTensor* param = &group->params[i];
    uint64_t numel = 1;
    int32_t axis;
    if (param->dtype.code != kDLFloat || param->dtype.bits != 32)
      return self->host->error(self->host, DPT_INVALID_ARGUMENT, "minimal optimizer: fp32 only");
    for (axis = 0; axis < param->ndim; ++axis) numel *= (uint64_t)param->shape[axis];
    tensors[self->tensor_count].param = (float*)((char*)param->data + param->byte_offset);
    tensors[self->tensor_count].grad =
        (const float*)((const char*)group->grads[i].data + group->grads[i].byte_offset);
    tensors[self->tensor_count].numel = numel;
    ++self->tensor_count;
  }
  return NULL;
}

dpt_error* minimal_step(dpt_instance* self, const dpt_step_args* args, dpt_stream* stream) {
  const float lr = (float)(self->lr * (args != NULL ? args->lr_scale : 1.0));
  uint32_t t;
  uint64_t i;
  (void)stream;
  for (t = 0; t < self->tensor_count; ++t)
    for (i = 0; i < self->tensors[t].numel; ++i)
      self->tensors[t].param[i] -= lr * self->tensors[t].grad[i];
  return NULL;
}

dpt_error* minimal_export_state(dpt_instance* self, dpt_state_visitor visitor, void* context) {
  (void)self;
  (void)visitor;
  (void)context;
  return NULL; /* stateless */
}

dpt_error* minimal_import_state(dpt_instance* self, const char* tensor_name, const char* state,
                                const DLTensor* value) {
  (void)tensor_name;
  (void)state;
  (void)value;
  return self->host->error(self->host, DPT_NOT_FOUND, "minimal optimizer: it has no state");
}

const dpt_host* minimal_host(const dpt_instance* self) { return self->host; }
