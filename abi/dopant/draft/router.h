/* dopant ABI — kind "dopant.router/1": MoE routers that pick experts for tokens.
 *
 * Optional capabilities (replay of recorded routing, delta codecs) are extension tables
 * found through the descriptor's get_extension with their own versioned ids.
 */
#ifndef DOPANT_ABI_ROUTER_H
#define DOPANT_ABI_ROUTER_H

#include <dlpack/dlpack.h>

#include "base.h"
#include "host.h"

#define DPT_KIND_ROUTER "dopant.router/1"

/* One routing call for one MoE layer. Output tensors are allocated by the caller. */
typedef struct dpt_route_args {
  uint32_t struct_size;
  const dpt_extension* next;
  uint32_t layer;                 /* MoE layer index                              */
  uint32_t top_k;                 /* experts per token                            */
  const DLTensor* logits;         /* [tokens, experts] fp32, router scores         */
  DLTensor* expert_ids;           /* [tokens, top_k] int32, out                    */
  DLTensor* weights;              /* [tokens, top_k] fp32, out, combine weights     */
} dpt_route_args;
#define DPT_ROUTE_ARGS_SIZE_1_0 DPT_STRUCT_SIZE(dpt_route_args, weights)
DPT_PIN_SIZE_LP64(DPT_ROUTE_ARGS_SIZE_1_0, 48);

typedef struct dpt_router_v1 {
  uint32_t struct_size;
  /* [control-thread] */
  dpt_error* (*create)(const dpt_host* host, const dpt_config* config, dpt_instance** out);
  /* [control-thread] NULL is accepted. */
  void (*destroy)(dpt_instance* instance);
  /* [instance-thread] Fills expert_ids and weights, queued on `stream`. */
  dpt_error* (*route)(dpt_instance* instance, const dpt_route_args* args, dpt_stream* stream);
} dpt_router_v1;
#define DPT_ROUTER_V1_SIZE_1_0 DPT_STRUCT_SIZE(dpt_router_v1, route)
DPT_PIN_SIZE_LP64(DPT_ROUTER_V1_SIZE_1_0, 32);

#endif /* DOPANT_ABI_ROUTER_H */
