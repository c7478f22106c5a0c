/* dopant ABI — kind "dopant.parallel.draft/0": how MoE tokens travel between ranks.
 *
 * A strategy is set up once with the topology, then moves tokens to the ranks that hold
 * their experts (dispatch) and brings the expert outputs back (combine). The communicator
 * is the engine's own (an MPI_Comm on CPU runs, an ncclComm_t on GPU runs), passed through.
 *
 * DRAFT: this kind has no shipped plugin yet. Its id ends in ".draft/0", its sizes are not
 * pinned, and it may change in any way until it is promoted to "/1" (see docs/abi.md). The
 * core loads a plugin of a draft kind only when its table is exactly this header's size.
 */
#ifndef DOPANT_ABI_DRAFT_PARALLEL_H
#define DOPANT_ABI_DRAFT_PARALLEL_H

#include <dlpack/dlpack.h>

#include "../base.h"
#include "../host.h"

#define DPT_KIND_PARALLEL "dopant.parallel.draft/0"

typedef struct dpt_parallel_topology {
  uint32_t struct_size;
  const dpt_extension* next;
  uint32_t world_size;
  uint32_t rank;
  uint32_t expert_parallel;       /* ranks an expert set is spread over            */
  uint32_t tensor_parallel;
  uint32_t num_experts;           /* global                                        */
  uint32_t top_k;
  uint64_t hidden;                /* elements per token                            */
  const char* communicator_kind;  /* "mpi" or "nccl"                               */
  void* communicator;             /* pointer to MPI_Comm / ncclComm_t, borrowed     */
} dpt_parallel_topology;
#define DPT_PARALLEL_TOPOLOGY_DRAFT_SIZE DPT_STRUCT_SIZE(dpt_parallel_topology, communicator)

/* Tokens this rank received for its local experts, grouped by local expert. The views
 * belong to the instance and stay valid until the next dispatch or destroy. */
typedef struct dpt_dispatch_result {
  uint32_t struct_size;
  DLTensor expert_tokens;         /* [received, hidden], same dtype as the input    */
  DLTensor tokens_per_expert;     /* [local_experts] int64                          */
} dpt_dispatch_result;
#define DPT_DISPATCH_RESULT_DRAFT_SIZE DPT_STRUCT_SIZE(dpt_dispatch_result, tokens_per_expert)

/* Every slot is required, and the loader refuses a library whose table leaves one NULL,
 * except the slots marked Optional (NULL there: the plugin does not provide it). */
typedef struct dpt_parallel_draft {
  uint32_t struct_size;
  /* [control-thread] */
  dpt_error* (*create)(const dpt_host* host, const dpt_config* config, dpt_instance** out);
  /* [control-thread] NULL is accepted. */
  void (*destroy)(dpt_instance* instance);
  /* [instance-thread] Fixes the topology; collective over the communicator. */
  dpt_error* (*setup)(dpt_instance* instance, const dpt_parallel_topology* topology);
  /* [instance-thread] tokens [tokens, hidden]; expert_ids [tokens, top_k] int32.
   * Collective. */
  dpt_error* (*dispatch)(dpt_instance* instance, const DLTensor* tokens,
                         const DLTensor* expert_ids, dpt_dispatch_result* out,
                         dpt_stream* stream);
  /* [instance-thread] expert_outputs [received, hidden] in dispatch order; weights
   * [tokens, top_k] fp32; out [tokens, hidden] = sum over k of weight * expert output.
   * Collective. */
  dpt_error* (*combine)(dpt_instance* instance, const DLTensor* expert_outputs,
                        const DLTensor* weights, DLTensor* out, dpt_stream* stream);
} dpt_parallel_draft;
#define DPT_PARALLEL_DRAFT_SIZE DPT_STRUCT_SIZE(dpt_parallel_draft, combine)

#endif /* DOPANT_ABI_DRAFT_PARALLEL_H */
