/* c-sgd — SGD with momentum as a plugin written in plain C11, with no SDK and no C++.
 *
 * It shows what the ABI asks of a plugin author: one exported entry symbol, static const
 * tables, errors made only through the host, state memory from host->alloc and the update
 * spread over host->parallel_for. The update follows torch.optim.SGD:
 *   g' = g / grad_scale + weight_decay * p
 *   momentum != 0: buf = g' on the first step, else momentum * buf + (1 - dampening) * g'
 *                  g' = nesterov ? g' + momentum * buf : buf
 *   p -= lr * lr_scale * g'
 * Tensors are fp32, contiguous, in the memory of a CPU device. Gradients may move between
 * steps (dpt_step_args.grads). Static data uses the ABI's initializer macros with
 * designated initializers, so every field is named where it is set.
 */
#include <dopant/abi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SGD_PARALLEL_GRAIN 16384u /* elements per parallel_for chunk at least */
#define SGD_MESSAGE_BYTES 512u

/* ------------------------------------------------------------------ declared parameters */

static const dpt_param_decl lr_decl = {
    DPT_PARAM_DECL_FIELDS, .name = "lr", .type = DPT_PARAM_FLOAT, .default_value = "1e-3",
    .min_value = "0", .unit = "", .doc = "learning rate (> 0)"};
static const dpt_param_decl momentum_decl = {
    DPT_PARAM_DECL_FIELDS, .name = "momentum", .type = DPT_PARAM_FLOAT, .default_value = "0.0",
    .min_value = "0", .max_value = "1", .unit = "",
    .doc = "momentum factor; 0 disables the momentum buffer"};
static const dpt_param_decl dampening_decl = {
    DPT_PARAM_DECL_FIELDS, .name = "dampening", .type = DPT_PARAM_FLOAT, .default_value = "0.0",
    .min_value = "0", .max_value = "1", .unit = "",
    .doc = "dampening of the gradient added to the momentum buffer"};
static const dpt_param_decl weight_decay_decl = {
    DPT_PARAM_DECL_FIELDS, .name = "weight_decay", .type = DPT_PARAM_FLOAT, .default_value = "0.0",
    .min_value = "0", .unit = "", .doc = "L2 penalty added to the gradient"};
static const dpt_param_decl nesterov_decl = {
    DPT_PARAM_DECL_FIELDS, .name = "nesterov", .type = DPT_PARAM_BOOL, .default_value = "false",
    .doc = "Nesterov momentum (needs momentum > 0 and dampening 0)"};

static const dpt_param_decl* const sgd_params[] = {&lr_decl, &momentum_decl, &dampening_decl,
                                                   &weight_decay_decl, &nesterov_decl};

/* ------------------------------------------------------------------ instance state */

typedef struct sgd_hyper {
  double lr;
  double momentum;
  double dampening;
  double weight_decay;
  int32_t nesterov;
} sgd_hyper;

typedef struct sgd_tensor {
  char* name;
  float* param;             /* [numel] fp32, borrowed from the caller            */
  const float* grad;        /* [numel] fp32, borrowed from the caller            */
  float* momentum_buffer;   /* [numel] fp32, device memory from host->alloc; NULL
                               until the group's momentum or an import needs it */
  int32_t buffer_ready;     /* 0 until the first step (or an import) fills it    */
  uint64_t numel;
  int32_t ndim;
  int64_t* shape;           /* [ndim], for export                                */
  int64_t* strides;         /* [ndim] contiguous, for export                     */
  uint32_t group;
} sgd_tensor;

struct dpt_instance {
  const dpt_host* host;
  sgd_hyper config;         /* the plugin's configured parameters                */
  sgd_hyper* groups;        /* [group_count] resolved hyper-parameters           */
  uint32_t group_count;
  sgd_tensor* tensors;      /* [tensor_count], in group then tensor order        */
  uint32_t tensor_count;
};

/* ------------------------------------------------------------------ helpers */

static dpt_error* sgd_fail(const dpt_host* host, dpt_code code, const char* format,
                           const char* a, const char* b) {
  char message[SGD_MESSAGE_BYTES];
  snprintf(message, sizeof message, format, a, b);
  return host->error(host, code, message);
}

static char* sgd_copy_text(const char* text) {
  size_t bytes = strlen(text) + 1;
  char* copy = (char*)malloc(bytes);
  if (copy != NULL) memcpy(copy, text, bytes);
  return copy;
}

static int sgd_is_nan(double value) { return value != value; }

static dpt_error* sgd_check_hyper(const dpt_host* host, const sgd_hyper* hyper,
                                  const char* where) {
  if (!(hyper->lr > 0.0))
    return sgd_fail(host, DPT_INVALID_ARGUMENT, "c-sgd: %s: lr must be > 0", where, NULL);
  if (!(hyper->momentum >= 0.0 && hyper->momentum <= 1.0))
    return sgd_fail(host, DPT_INVALID_ARGUMENT, "c-sgd: %s: momentum must be in [0, 1]", where,
                    NULL);
  if (!(hyper->weight_decay >= 0.0))
    return sgd_fail(host, DPT_INVALID_ARGUMENT, "c-sgd: %s: weight_decay must be >= 0", where,
                    NULL);
  if (hyper->nesterov && (hyper->momentum <= 0.0 || hyper->dampening != 0.0))
    return sgd_fail(host, DPT_INVALID_ARGUMENT,
                    "c-sgd: %s: nesterov needs momentum > 0 and dampening 0", where, NULL);
  return NULL;
}

/* Element count of an fp32, contiguous CPU tensor, or an error naming it. */
static dpt_error* sgd_check_tensor(const dpt_host* host, const DLTensor* tensor,
                                   const char* name, const char* role, uint64_t* numel) {
  uint64_t count = 1;
  int64_t expected_stride = 1;
  int32_t axis;
  if (tensor->dtype.code != kDLFloat || tensor->dtype.bits != 32 || tensor->dtype.lanes != 1)
    return sgd_fail(host, DPT_INVALID_ARGUMENT,
                    "c-sgd: %s `%s` is not fp32 (only fp32 is supported)", role, name);
  if (tensor->device.device_type != kDLCPU)
    return sgd_fail(host, DPT_INVALID_ARGUMENT, "c-sgd: %s `%s` is not in CPU memory", role, name);
  if (tensor->ndim < 0 || (tensor->ndim > 0 && (tensor->shape == NULL || tensor->strides == NULL)))
    return sgd_fail(host, DPT_INVALID_ARGUMENT, "c-sgd: %s `%s` has no shape or strides", role,
                    name);
  for (axis = tensor->ndim - 1; axis >= 0; --axis) {
    if (tensor->shape[axis] < 0)
      return sgd_fail(host, DPT_INVALID_ARGUMENT, "c-sgd: %s `%s` has a negative extent", role,
                      name);
    if (tensor->shape[axis] > 1 && tensor->strides[axis] != expected_stride)
      return sgd_fail(host, DPT_INVALID_ARGUMENT, "c-sgd: %s `%s` is not contiguous", role, name);
    /* Its fp32 bytes (count * 4, the momentum buffer's size) must fit in int64: checked
     * before the product is formed, so it never wraps. */
    if (tensor->shape[axis] > 0 && count > (uint64_t)INT64_MAX / 4 / (uint64_t)tensor->shape[axis])
      return sgd_fail(host, DPT_INVALID_ARGUMENT, "c-sgd: %s `%s` has too many elements", role,
                      name);
    expected_stride *= tensor->shape[axis];
    count *= (uint64_t)tensor->shape[axis];
  }
  if (count > 0 && tensor->data == NULL)
    return sgd_fail(host, DPT_INVALID_ARGUMENT, "c-sgd: %s `%s` has no data", role, name);
  *numel = count;
  return NULL;
}

static int sgd_same_shape(const DLTensor* a, const DLTensor* b) {
  int32_t axis;
  if (a->ndim != b->ndim) return 0;
  for (axis = 0; axis < a->ndim; ++axis)
    if (a->shape[axis] != b->shape[axis]) return 0;
  return 1;
}

/* Nonzero when `value` has the shape of `tensor`'s parameter. */
static int sgd_has_shape_of(const DLTensor* value, const sgd_tensor* tensor) {
  int32_t axis;
  if (value->ndim != tensor->ndim) return 0;
  for (axis = 0; axis < value->ndim; ++axis)
    if (value->shape[axis] != tensor->shape[axis]) return 0;
  return 1;
}

static float* sgd_data(const DLTensor* tensor) {
  return (float*)((char*)tensor->data + tensor->byte_offset);
}

static sgd_tensor* sgd_find(dpt_instance* self, const char* name) {
  uint32_t i;
  for (i = 0; i < self->tensor_count; ++i)
    if (strcmp(self->tensors[i].name, name) == 0) return &self->tensors[i];
  return NULL;
}

/* The tensor's momentum buffer: [numel] fp32 in device memory. */
static dpt_error* sgd_alloc_buffer(const dpt_host* host, sgd_tensor* tensor) {
  void* memory = NULL;
  dpt_error* error =
      host->alloc(host, DPT_MEMORY_DEVICE, tensor->numel * sizeof(float), 0, &memory);
  tensor->momentum_buffer = (float*)memory;
  return error;
}

static void sgd_release_tensor(const dpt_host* host, sgd_tensor* tensor) {
  host->free(host, DPT_MEMORY_DEVICE, tensor->momentum_buffer);
  free(tensor->name);
  free(tensor->shape);
  free(tensor->strides);
}

/* ------------------------------------------------------------------ the table */

static dpt_error* sgd_create(const dpt_host* host, const dpt_config* config, dpt_instance** out) {
  sgd_hyper hyper;
  dpt_error* error;
  dpt_instance* self;
  int32_t device_index = 0;
  if (host->struct_size < DPT_HOST_SIZE_1_0)
    return host->error(host, DPT_INVALID_ARGUMENT, "c-sgd: the host table is too old");
  if (host->device_is_gpu(host, &device_index))
    return host->error(host, DPT_UNIMPLEMENTED,
                       "c-sgd: runs on CPU devices only (set [device] kind = \"cpu\")");
  memset(&hyper, 0, sizeof hyper);
  if ((error = host->config_float(host, config, "lr", &hyper.lr)) != NULL ||
      (error = host->config_float(host, config, "momentum", &hyper.momentum)) != NULL ||
      (error = host->config_float(host, config, "dampening", &hyper.dampening)) != NULL ||
      (error = host->config_float(host, config, "weight_decay", &hyper.weight_decay)) != NULL ||
      (error = host->config_bool(host, config, "nesterov", &hyper.nesterov)) != NULL)
    return error;
  if ((error = sgd_check_hyper(host, &hyper, "configuration")) != NULL) return error;
  self = (dpt_instance*)calloc(1, sizeof *self);
  if (self == NULL) return host->error(host, DPT_OUT_OF_MEMORY, "c-sgd: out of host memory");
  self->host = host;
  self->config = hyper;
  *out = self;
  return NULL;
}

static void sgd_destroy(dpt_instance* self) {
  uint32_t i;
  if (self == NULL) return;
  for (i = 0; i < self->tensor_count; ++i) sgd_release_tensor(self->host, &self->tensors[i]);
  free(self->tensors);
  free(self->groups);
  free(self);
}

/* Fills `tensor` from the group's i-th parameter and gradient. */
static dpt_error* sgd_describe(dpt_instance* self, const dpt_param_group* group, uint32_t i,
                               sgd_tensor* tensor) {
  const dpt_host* host = self->host;
  const DLTensor* param = &group->params[i];
  const DLTensor* grad = &group->grads[i];
  const char* name = group->tensor_names[i];
  uint64_t param_numel = 0, grad_numel = 0;
  int32_t axis;
  int64_t stride = 1;
  dpt_error* error;
  if (name == NULL)
    return sgd_fail(host, DPT_INVALID_ARGUMENT, "c-sgd: group `%s` has a tensor without a name",
                    group->name != NULL ? group->name : "", NULL);
  if (sgd_find(self, name) != NULL)
    return sgd_fail(host, DPT_INVALID_ARGUMENT, "c-sgd: duplicate tensor name `%s`", name, NULL);
  if ((error = sgd_check_tensor(host, param, name, "parameter", &param_numel)) != NULL ||
      (error = sgd_check_tensor(host, grad, name, "gradient", &grad_numel)) != NULL)
    return error;
  if (!sgd_same_shape(param, grad))
    return sgd_fail(host, DPT_INVALID_ARGUMENT,
                    "c-sgd: gradient of `%s` does not have the shape of its parameter", name, NULL);
  tensor->name = sgd_copy_text(name);
  tensor->ndim = param->ndim;
  tensor->shape = (int64_t*)calloc((size_t)param->ndim + 1, sizeof(int64_t));
  tensor->strides = (int64_t*)calloc((size_t)param->ndim + 1, sizeof(int64_t));
  if (tensor->name == NULL || tensor->shape == NULL || tensor->strides == NULL)
    return host->error(host, DPT_OUT_OF_MEMORY, "c-sgd: out of host memory");
  for (axis = param->ndim - 1; axis >= 0; --axis) {
    tensor->shape[axis] = param->shape[axis];
    tensor->strides[axis] = stride;
    stride *= param->shape[axis];
  }
  tensor->param = sgd_data(param);
  tensor->grad = sgd_data(grad);
  tensor->numel = param_numel;
  return NULL;
}

static dpt_error* sgd_add_param_group(dpt_instance* self, const dpt_param_group* group) {
  const dpt_host* host = self->host;
  const char* group_name;
  sgd_hyper hyper = self->config;
  sgd_hyper* groups;
  sgd_tensor* tensors;
  uint32_t i, added = 0;
  dpt_error* error = NULL;
  if (group == NULL || group->struct_size < DPT_PARAM_GROUP_SIZE_1_0)
    return host->error(host, DPT_INVALID_ARGUMENT, "c-sgd: param group is NULL or too small");
  group_name = group->name != NULL ? group->name : "";
  if (group->tensor_count > 0 &&
      (group->tensor_names == NULL || group->params == NULL || group->grads == NULL))
    return sgd_fail(host, DPT_INVALID_ARGUMENT, "c-sgd: group `%s` lacks names or tensors",
                    group_name, NULL);
  if (!sgd_is_nan(group->lr)) hyper.lr = group->lr;
  if (!sgd_is_nan(group->beta1)) hyper.momentum = group->beta1;
  if (!sgd_is_nan(group->weight_decay)) hyper.weight_decay = group->weight_decay;
  if ((error = sgd_check_hyper(host, &hyper, group_name)) != NULL) return error;

  groups = (sgd_hyper*)realloc(self->groups, (self->group_count + 1) * sizeof *groups);
  if (groups == NULL) return host->error(host, DPT_OUT_OF_MEMORY, "c-sgd: out of host memory");
  self->groups = groups;
  tensors = (sgd_tensor*)realloc(self->tensors,
                                 ((size_t)self->tensor_count + group->tensor_count + 1) *
                                     sizeof *tensors);
  if (tensors == NULL) return host->error(host, DPT_OUT_OF_MEMORY, "c-sgd: out of host memory");
  self->tensors = tensors;

  /* Tensors are appended one by one (so duplicates within the group are found) and rolled
   * back together when any of them is refused. */
  for (i = 0; i < group->tensor_count; ++i) {
    sgd_tensor* tensor = &self->tensors[self->tensor_count];
    memset(tensor, 0, sizeof *tensor);
    tensor->group = self->group_count;
    error = sgd_describe(self, group, i, tensor);
    if (error == NULL && hyper.momentum != 0.0 && tensor->numel > 0)
      error = sgd_alloc_buffer(host, tensor);
    if (error != NULL) {
      sgd_release_tensor(host, tensor);
      break;
    }
    ++added;
    ++self->tensor_count;
  }
  if (error != NULL) {
    while (added > 0) {
      --added;
      --self->tensor_count;
      sgd_release_tensor(host, &self->tensors[self->tensor_count]);
    }
    return error;
  }
  self->groups[self->group_count++] = hyper;
  return NULL;
}

/* One tensor's update, split over the host's thread pool. */
typedef struct sgd_update {
  sgd_tensor* tensor;
  const float* grad;      /* this step's gradient: per-step, or the one from add_param_group */
  float* momentum_buffer; /* NULL when the group has no momentum */
  float lr;           /* group lr times lr_scale */
  float grad_scale;
  float momentum;
  float one_minus_dampening;
  float weight_decay;
  int32_t nesterov;
  int32_t first_step; /* the momentum buffer takes g' as is */
} sgd_update;

static dpt_error* sgd_update_range(void* context, uint64_t begin, uint64_t end) {
  const sgd_update* u = (const sgd_update*)context;
  float* param = u->tensor->param;
  const float* grad = u->grad;
  float* buffer = u->momentum_buffer;
  uint64_t i;
  for (i = begin; i < end; ++i) {
    float g = grad[i] / u->grad_scale;
    if (u->weight_decay != 0.0f) g = g + u->weight_decay * param[i];
    if (buffer != NULL) {
      buffer[i] = u->first_step ? g : u->momentum * buffer[i] + u->one_minus_dampening * g;
      g = u->nesterov ? g + u->momentum * buffer[i] : buffer[i];
    }
    param[i] = param[i] - u->lr * g;
  }
  return NULL;
}

/* Checks this step's gradients (dpt_step_args.grads, added in minor 3) against the
 * parameters: one per tensor, same shape, fp32 and contiguous. */
static dpt_error* sgd_check_step_grads(dpt_instance* self, uint32_t count, const DLTensor* grads) {
  const dpt_host* host = self->host;
  uint32_t i;
  if (count != self->tensor_count || grads == NULL)
    return host->error(host, DPT_INVALID_ARGUMENT,
                       "c-sgd: per-step gradients must be one per tensor of the instance");
  for (i = 0; i < count; ++i) {
    const sgd_tensor* tensor = &self->tensors[i];
    uint64_t numel = 0;
    dpt_error* error = sgd_check_tensor(host, &grads[i], tensor->name, "gradient", &numel);
    if (error != NULL) return error;
    if (!sgd_has_shape_of(&grads[i], tensor))
      return sgd_fail(host, DPT_INVALID_ARGUMENT,
                      "c-sgd: the step's gradient of `%s` does not have its parameter's shape",
                      tensor->name, NULL);
  }
  return NULL;
}

static dpt_error* sgd_step(dpt_instance* self, const dpt_step_args* args, dpt_stream* stream) {
  const dpt_host* host = self->host;
  double lr_scale = 1.0, grad_scale = 1.0;
  const DLTensor* step_grads = NULL;
  uint32_t i;
  (void)stream; /* CPU only: the update runs before step returns */
  if (args != NULL) {
    if (args->struct_size < DPT_STEP_ARGS_SIZE_1_0)
      return host->error(host, DPT_INVALID_ARGUMENT, "c-sgd: step args are too small");
    lr_scale = args->lr_scale;
    grad_scale = args->grad_scale;
    if (DPT_HAS_FIELD(args, dpt_step_args, grads) && (args->grad_count != 0 || args->grads != NULL)) {
      dpt_error* error = sgd_check_step_grads(self, args->grad_count, args->grads);
      if (error != NULL) return error;
      step_grads = args->grads;
    }
  }
  if (!(grad_scale != 0.0) || sgd_is_nan(lr_scale))
    return host->error(host, DPT_INVALID_ARGUMENT,
                       "c-sgd: grad_scale must be nonzero and lr_scale a number");
  for (i = 0; i < self->tensor_count; ++i) {
    sgd_tensor* tensor = &self->tensors[i];
    const sgd_hyper* hyper = &self->groups[tensor->group];
    sgd_update update;
    dpt_error* error;
    update.tensor = tensor;
    update.grad = step_grads != NULL ? sgd_data(&step_grads[i]) : tensor->grad;
    update.momentum_buffer = hyper->momentum != 0.0 ? tensor->momentum_buffer : NULL;
    update.lr = (float)(hyper->lr * lr_scale);
    update.grad_scale = (float)grad_scale;
    update.momentum = (float)hyper->momentum;
    update.one_minus_dampening = (float)(1.0 - hyper->dampening);
    update.weight_decay = (float)hyper->weight_decay;
    update.nesterov = hyper->nesterov;
    update.first_step = !tensor->buffer_ready;
    error = host->parallel_for(host, 0, tensor->numel, SGD_PARALLEL_GRAIN, sgd_update_range,
                               &update);
    if (error != NULL) return error;
    if (update.momentum_buffer != NULL) tensor->buffer_ready = 1;
  }
  return NULL;
}

static dpt_error* sgd_export_state(dpt_instance* self, dpt_state_visitor visitor, void* context) {
  uint32_t i;
  for (i = 0; i < self->tensor_count; ++i) {
    sgd_tensor* tensor = &self->tensors[i];
    DLTensor view;
    dpt_error* error;
    if (!tensor->buffer_ready) continue;
    memset(&view, 0, sizeof view);
    view.data = tensor->momentum_buffer;
    view.device.device_type = kDLCPU;
    view.ndim = tensor->ndim;
    view.dtype.code = kDLFloat;
    view.dtype.bits = 32;
    view.dtype.lanes = 1;
    view.shape = tensor->shape;
    view.strides = tensor->strides;
    error = visitor(context, tensor->name, "momentum_buffer", &view);
    if (error != NULL) return error;
  }
  return NULL;
}

static dpt_error* sgd_import_state(dpt_instance* self, const char* tensor_name, const char* state,
                                   const DLTensor* value) {
  const dpt_host* host = self->host;
  sgd_tensor* tensor = sgd_find(self, tensor_name);
  uint64_t numel = 0;
  dpt_error* error;
  if (tensor == NULL)
    return sgd_fail(host, DPT_NOT_FOUND, "c-sgd: no tensor named `%s`", tensor_name, NULL);
  if (strcmp(state, "momentum_buffer") != 0)
    return sgd_fail(host, DPT_INVALID_ARGUMENT,
                    "c-sgd: unknown state `%s` for `%s` (only momentum_buffer)", state,
                    tensor_name);
  if ((error = sgd_check_tensor(host, value, tensor_name, "momentum_buffer", &numel)) != NULL)
    return error;
  if (!sgd_has_shape_of(value, tensor))
    return sgd_fail(host, DPT_INVALID_ARGUMENT,
                    "c-sgd: momentum_buffer of `%s` does not have the shape of its parameter",
                    tensor_name, NULL);
  if (numel == 0) return NULL;
  if (tensor->momentum_buffer == NULL && (error = sgd_alloc_buffer(host, tensor)) != NULL)
    return error;
  if ((error = host->copy(host, tensor->momentum_buffer, DPT_MEMORY_DEVICE, sgd_data(value),
                          DPT_MEMORY_HOST, numel * sizeof(float), NULL)) != NULL)
    return error;
  tensor->buffer_ready = 1;
  return NULL;
}

static dpt_error* sgd_memory(dpt_instance* self, dpt_optimizer_memory* out) {
  uint64_t bytes = 0;
  uint32_t i;
  if (out == NULL || out->struct_size < DPT_OPTIMIZER_MEMORY_SIZE_1_0)
    return self->host->error(self->host, DPT_INVALID_ARGUMENT,
                             "c-sgd: memory report struct is NULL or too small");
  for (i = 0; i < self->tensor_count; ++i)
    if (self->tensors[i].momentum_buffer != NULL)
      bytes += self->tensors[i].numel * sizeof(float);
  out->device_state_bytes = bytes;
  out->host_state_bytes = 0;
  out->device_staging_bytes = 0;
  return NULL;
}

static const dpt_optimizer_v1 sgd_table = {DPT_OPTIMIZER_V1_FIELDS,
                                           .create = sgd_create,
                                           .destroy = sgd_destroy,
                                           .add_param_group = sgd_add_param_group,
                                           .step = sgd_step,
                                           .export_state = sgd_export_state,
                                           .import_state = sgd_import_state,
                                           .memory = sgd_memory};

/* ------------------------------------------------------------------ descriptor and entry */

static const void* sgd_get_extension(const char* id) {
  return strcmp(id, DPT_KIND_OPTIMIZER) == 0 ? (const void*)&sgd_table : NULL;
}

static const dpt_plugin_descriptor sgd_descriptor = {
    DPT_PLUGIN_DESCRIPTOR_FIELDS,
    .id = "c-sgd",
    .kind = DPT_KIND_OPTIMIZER,
    .version = "1.1.0",
    .description = "SGD with momentum (PyTorch semantics), written in plain C",
    .params = sgd_params,
    .param_count = sizeof sgd_params / sizeof sgd_params[0],
    .get_extension = sgd_get_extension};

static const dpt_plugin_descriptor* const sgd_plugins[] = {&sgd_descriptor};

static const dpt_library sgd_library = {DPT_LIBRARY_FIELDS,
                                        .id = "dopant-example-c-sgd",
                                        .version = "1.1.0",
                                        .plugins = sgd_plugins,
                                        .plugin_count = 1};

DPT_EXPORT const dpt_library* dpt_plugin_entry_v1(void) { return &sgd_library; }
