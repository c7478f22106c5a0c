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

/* One routing call for one MoE layer: picks top_k experts per token and their combine
 * weights. Every tensor is a borrowed view owned by the caller, on the run's device, valid
 * during the call only; the plugin keeps no pointer into any of them after it returns.
 * Optional inputs and outputs are NULL when absent. */
typedef struct dpt_route_args {
  uint32_t struct_size;
  const dpt_extension* next;
  uint32_t layer;                   /* MoE layer index (for plugins that record routing)    */
  uint32_t top_k;                   /* experts per token; the outputs' second extent         */
  const DLTensor* logits;           /* [tokens, experts] fp32 or bf16, router logits         */
  const DLTensor* correction_bias;  /* Optional [experts] fp32: added to the scores for
                                     * selection only, never to the weights                 */
  const DLTensor* recorded_ids;     /* Optional [tokens, top_k] int32: forces the selection
                                     * (routing replay); the weights are then recomputed from
                                     * this call's scores at these ids                      */
  DLTensor* expert_ids;             /* out [tokens, top_k] int32, owned by the caller: the
                                     * chosen experts, best first                            */
  DLTensor* weights;                /* out [tokens, top_k] fp32, owned by the caller: the
                                     * combine weights, in expert_ids' order                 */
  DLTensor* expert_load;            /* Optional out [experts] int64, owned by the caller:
                                     * tokens routed to each expert by this call (overwritten,
                                     * not accumulated)                                      */
} dpt_route_args;
#define DPT_ROUTE_ARGS_DRAFT_SIZE DPT_STRUCT_SIZE(dpt_route_args, expert_load)
/* Args ready to be filled: size set, every pointer NULL, layer and top_k zero. */
#define DPT_ROUTE_ARGS_INIT {DPT_ROUTE_ARGS_DRAFT_SIZE, NULL, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL}

/* Every slot is required, and the loader refuses a library whose table leaves one NULL,
 * except the slots marked Optional (NULL there: the plugin does not provide it). */
typedef struct dpt_router_draft {
  uint32_t struct_size;
  /* [control-thread] */
  dpt_error* (*create)(const dpt_host* host, const dpt_config* config, dpt_instance** out);
  /* [control-thread] NULL is accepted. */
  void (*destroy)(dpt_instance* instance);
  /* [instance-thread] Fills expert_ids, weights and, when given, expert_load, queued on
   * `stream` (on CPU the work is done when it returns). */
  dpt_error* (*route)(dpt_instance* instance, const dpt_route_args* args, dpt_stream* stream);
} dpt_router_draft;
#define DPT_ROUTER_DRAFT_SIZE DPT_STRUCT_SIZE(dpt_router_draft, route)

#endif /* DOPANT_ABI_DRAFT_ROUTER_H */
