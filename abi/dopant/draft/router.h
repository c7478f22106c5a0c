/* dopant ABI — kind "dopant.router.draft/0": MoE routers that pick experts for tokens.
 *
 * Optional capabilities (replay of recorded routing, delta codecs) are extension tables
 * found through the descriptor's get_extension with their own versioned ids.
 *
 * DRAFT: this kind has no shipped plugin yet. Its id ends in ".draft/0", its sizes are not
 * pinned, and it may change in any way until it is promoted to "/1" (see docs/abi.md). The
 * core loads a plugin of a draft kind only when its table is exactly this header's size.
 */
#ifndef DOPANT_ABI_DRAFT_ROUTER_H
#define DOPANT_ABI_DRAFT_ROUTER_H

#include <dlpack/dlpack.h>

#include "../base.h"
#include "../host.h"

#define DPT_KIND_ROUTER "dopant.router.draft/0"

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
#define DPT_ROUTE_ARGS_DRAFT_SIZE DPT_STRUCT_SIZE(dpt_route_args, weights)

/* Every slot is required, and the loader refuses a library whose table leaves one NULL,
 * except the slots marked Optional (NULL there: the plugin does not provide it). */
typedef struct dpt_router_draft {
  uint32_t struct_size;
  /* [control-thread] */
  dpt_error* (*create)(const dpt_host* host, const dpt_config* config, dpt_instance** out);
  /* [control-thread] NULL is accepted. */
  void (*destroy)(dpt_instance* instance);
  /* [instance-thread] Fills expert_ids and weights, queued on `stream`. */
  dpt_error* (*route)(dpt_instance* instance, const dpt_route_args* args, dpt_stream* stream);
} dpt_router_draft;
#define DPT_ROUTER_DRAFT_SIZE DPT_STRUCT_SIZE(dpt_router_draft, route)

#endif /* DOPANT_ABI_DRAFT_ROUTER_H */
