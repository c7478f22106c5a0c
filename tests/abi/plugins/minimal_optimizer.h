/* A tiny stateless fp32 optimizer (p -= lr * g over 1-D or n-D contiguous CPU tensors)
 * shared by the ABI test plugins, which differ only in how their library or table is
 * described. One parameter, `lr`. C11. */
#ifndef DOPANT_TESTS_MINIMAL_OPTIMIZER_H
#define DOPANT_TESTS_MINIMAL_OPTIMIZER_H

#include <dopant/abi.h>

extern const dpt_param_decl* const minimal_params[1];

dpt_error* minimal_create(const dpt_host* host, const dpt_config* config, dpt_instance** out);
void minimal_destroy(dpt_instance* instance);
dpt_error* minimal_add_param_group(dpt_instance* instance, const dpt_param_group* group);
dpt_error* minimal_step(dpt_instance* instance, const dpt_step_args* args, dpt_stream* stream);
dpt_error* minimal_export_state(dpt_instance* instance, dpt_state_visitor visitor, void* context);
dpt_error* minimal_import_state(dpt_instance* instance, const char* tensor_name, const char* state,
                                const DLTensor* value);
/* The host the instance was created with. */
const dpt_host* minimal_host(const dpt_instance* instance);

#endif
