/* dopant ABI — kind "dopant.parallel/1": rank layouts, parameter shards, and how MoE
 * tokens travel between ranks.
 *
 * A strategy answers two pure questions (which ranks form the groups of a Megatron layout;
 * which slice of a parameter a rank holds) and moves tokens: set up once with a topology,
 * it sends tokens to the ranks that hold their experts (dispatch) and brings the expert
 * outputs back, weighted by the router weights (combine). The communicator is the host's
 * (extension "dopant.host.comm/1", <dopant/comm.h>): the topology names one of
 * its communicators, or NULL for the run's world.
 *
 * Released in minor 5 (promoted from "dopant.parallel.draft/0" with the `megatron` and
 * `wideep` plugins and the conformance kit's parallel checks); every size is pinned.
 * Callers fill the args from the DPT_PARALLEL_*_INIT, DPT_DISPATCH_ARGS_INIT and
 * DPT_COMBINE_ARGS_INIT macros.
 */
#ifndef DOPANT_ABI_PARALLEL_H
#define DOPANT_ABI_PARALLEL_H

#include <dlpack/dlpack.h>

#include "base.h"
#include "comm.h"
#include "host.h"

#define DPT_KIND_PARALLEL "dopant.parallel/1"

/* ---- Layouts: Megatron-core's RankGenerator (docs/parallelism.md) ---- */

/* Sizes as a user gives them. dp 0: world / (tp*pp*cp); etp 0: tp; order NULL:
 * "tp-cp-ep-dp-pp" (fastest-varying dimension first). */
typedef struct dpt_parallel_sizes {
  uint32_t struct_size;
  const dpt_extension* next;
  uint32_t world;
  uint32_t tp;
  uint32_t pp;
  uint32_t dp;
  uint32_t ep;
  uint32_t cp;
  uint32_t etp;
  const char* order;
} dpt_parallel_sizes;
#define DPT_PARALLEL_SIZES_SIZE_1_5 DPT_STRUCT_SIZE(dpt_parallel_sizes, order)
DPT_PIN_SIZE_LP64(DPT_PARALLEL_SIZES_SIZE_1_5, 56);
/* Everything 0: set world and the sizes; dp, etp and order keep their defaults. */
#define DPT_PARALLEL_SIZES_INIT \
  {DPT_PARALLEL_SIZES_SIZE_1_5, NULL, 0, 0, 0, 0, 0, 0, 0, NULL}

/* The groups of some dimensions of one layout, and where one rank sits in them. The dense
 * layout's dimensions are tp, cp, dp, pp; the expert layout's etp, ep, edp, pp. */
typedef struct dpt_parallel_layout_args {
  uint32_t struct_size;
  const dpt_extension* next;
  const dpt_parallel_sizes* sizes;
  uint32_t expert;       /* 0: the dense layout; 1: the expert layout                       */
  const char* groups;    /* dimensions joined by '-': "tp", "dp-cp", "etp-ep"                */
  uint32_t rank;         /* the rank whose place is asked, < world                          */
  uint32_t* ranks;       /* Optional out [world], owned by the caller: every group, group
                          * after group, as the comm extension's split takes them           */
  uint32_t group_size;   /* out: ranks per group                                            */
  uint32_t group_count;  /* out: groups                                                     */
  uint32_t group;        /* out: index of the group that holds `rank`                       */
  uint32_t position;     /* out: `rank`'s position in it (its coordinate, for one dimension) */
} dpt_parallel_layout_args;
#define DPT_PARALLEL_LAYOUT_ARGS_SIZE_1_5 DPT_STRUCT_SIZE(dpt_parallel_layout_args, position)
DPT_PIN_SIZE_LP64(DPT_PARALLEL_LAYOUT_ARGS_SIZE_1_5, 72);
/* The dense layout, no groups asked, rank 0, no ranks array; outputs cleared. */
#define DPT_PARALLEL_LAYOUT_ARGS_INIT \
  {DPT_PARALLEL_LAYOUT_ARGS_SIZE_1_5, NULL, NULL, 0, NULL, 0, NULL, 0, 0, 0, 0}

/* ---- Shard specs: the slice of a parameter each rank holds ---- */

typedef int32_t dpt_shard_split;
enum {
  DPT_SHARD_REPLICATED = 0, /* every rank holds the whole parameter                          */
  DPT_SHARD_COLUMN = 1,     /* column-parallel linear [out, in]: dim 0 split evenly          */
  DPT_SHARD_ROW = 2,        /* row-parallel linear [out, in]: the last dim split evenly      */
  DPT_SHARD_VOCAB = 3,      /* embedding / output [vocab, hidden]: dim 0 in ceil(vocab/shards)
                             * rows per shard, the last shard shorter (padding not stored)   */
  DPT_SHARD_EXPERT = 4      /* stacked experts [experts, ...]: dim 0 split evenly            */
};

typedef struct dpt_parallel_shard_args {
  uint32_t struct_size;
  const dpt_extension* next;
  int32_t ndim;
  const int64_t* global_shape;  /* [ndim] */
  dpt_shard_split split;
  uint32_t shards;              /* ranks sharing the parameter (the tp or ep group's size)    */
  uint32_t index;               /* this rank's position in that group, < shards               */
  int64_t* offset;              /* out [ndim], owned by the caller: first element held per dim */
  int64_t* extent;              /* out [ndim], owned by the caller: elements held per dim      */
} dpt_parallel_shard_args;
#define DPT_PARALLEL_SHARD_ARGS_SIZE_1_5 DPT_STRUCT_SIZE(dpt_parallel_shard_args, extent)
DPT_PIN_SIZE_LP64(DPT_PARALLEL_SHARD_ARGS_SIZE_1_5, 64);
/* A replicated parameter of no dims on one shard; no output arrays. */
#define DPT_PARALLEL_SHARD_ARGS_INIT \
  {DPT_PARALLEL_SHARD_ARGS_SIZE_1_5, NULL, 0, NULL, DPT_SHARD_REPLICATED, 1, 0, NULL, NULL}

/* ---- Topology and the MoE exchange ---- */

/* Fixed at setup; every rank of the communicator passes the same values (setup refuses a
 * topology that differs between ranks, naming the field). */
typedef struct dpt_parallel_topology {
  uint32_t struct_size;
  const dpt_extension* next;
  dpt_comm* comm;                     /* Optional: a communicator of the host's comm
                                       * extension, borrowed; NULL: the run's world          */
  uint32_t num_experts;               /* global                                             */
  uint32_t top_k;
  uint64_t hidden;                    /* elements per token                                 */
  uint32_t ranks_per_node;            /* 0: every rank on one node                          */
  /* Optional expert -> ranks placement, with redundant replicas: expert e's replicas are
   * placement_ranks[placement_offsets[e] .. placement_offsets[e + 1]), distinct ranks.
   * Both NULL: expert e on rank e * size / num_experts (contiguous blocks, one replica). */
  const uint32_t* placement_offsets;  /* [num_experts + 1], starts at 0                     */
  const uint32_t* placement_ranks;    /* [placement_offsets[num_experts]]                   */
} dpt_parallel_topology;
#define DPT_PARALLEL_TOPOLOGY_SIZE_1_5 DPT_STRUCT_SIZE(dpt_parallel_topology, placement_ranks)
DPT_PIN_SIZE_LP64(DPT_PARALLEL_TOPOLOGY_SIZE_1_5, 64);
/* The run's world, no experts, every rank on one node, the default placement. */
#define DPT_PARALLEL_TOPOLOGY_INIT \
  {DPT_PARALLEL_TOPOLOGY_SIZE_1_5, NULL, NULL, 0, 0, 0, 0, NULL, NULL}

/* One dispatch in flight, from dispatch until combine or release. An instance may hold
 * several (micro-batches, layers); each keeps its own buffers. */
typedef struct dpt_parallel_exchange dpt_parallel_exchange;

/* Inputs are borrowed views valid during the call; the out views belong to the exchange
 * and stay valid until it is combined or released. When a token's expert has several
 * replicas, the replica is chosen as docs/parallelism.md says (on the token's own rank,
 * else on its node, else any; ties by token index modulo replicas), the same on every
 * strategy. */
typedef struct dpt_dispatch_args {
  uint32_t struct_size;
  const dpt_extension* next;
  const DLTensor* tokens;            /* [tokens, hidden] fp32                              */
  const DLTensor* expert_ids;        /* [tokens, top_k] int32, each < num_experts           */
  const DLTensor* weights;           /* [tokens, top_k] fp32 router (combine) weights        */
  dpt_parallel_exchange* exchange;   /* out                                                 */
  DLTensor expert_tokens;            /* out [rows, hidden] fp32: rows for this rank's
                                      * expert slots, grouped by slot                      */
  DLTensor tokens_per_expert;        /* out [slots] int64: rows of each slot                */
  DLTensor local_experts;            /* out [slots] int32: the global expert of each slot,
                                      * ascending                                          */
  uint64_t bytes_sent;               /* out: bytes this rank sent to other ranks            */
} dpt_dispatch_args;
#define DPT_DISPATCH_ARGS_SIZE_1_5 DPT_STRUCT_SIZE(dpt_dispatch_args, bytes_sent)
DPT_PIN_SIZE_LP64(DPT_DISPATCH_ARGS_SIZE_1_5, 200);
/* No inputs; outputs cleared (empty CPU views). */
#define DPT_DISPATCH_ARGS_INIT \
  {DPT_DISPATCH_ARGS_SIZE_1_5, NULL, NULL, NULL, NULL, NULL, \
   {NULL, {kDLCPU, 0}, 0, {0, 0, 0}, NULL, NULL, 0}, \
   {NULL, {kDLCPU, 0}, 0, {0, 0, 0}, NULL, NULL, 0}, \
   {NULL, {kDLCPU, 0}, 0, {0, 0, 0}, NULL, NULL, 0}, 0}

typedef struct dpt_combine_args {
  uint32_t struct_size;
  const dpt_extension* next;
  dpt_parallel_exchange* exchange;   /* consumed, also when combine fails                    */
  const DLTensor* expert_outputs;    /* [rows, hidden] fp32, in expert_tokens' order         */
  DLTensor* out;                     /* [tokens, hidden] fp32, owned by the caller:
                                      * sum over k of weight[k] * output of expert_ids[k]   */
  uint64_t bytes_sent;               /* out: bytes this rank sent to other ranks            */
} dpt_combine_args;
#define DPT_COMBINE_ARGS_SIZE_1_5 DPT_STRUCT_SIZE(dpt_combine_args, bytes_sent)
DPT_PIN_SIZE_LP64(DPT_COMBINE_ARGS_SIZE_1_5, 48);
/* No exchange, no views; output cleared. */
#define DPT_COMBINE_ARGS_INIT \
  {DPT_COMBINE_ARGS_SIZE_1_5, NULL, NULL, NULL, NULL, 0}

/* Every slot is required, and the loader refuses a library whose table leaves one NULL. */
typedef struct dpt_parallel_v1 {
  uint32_t struct_size;
  /* [control-thread] */
  dpt_error* (*create)(const dpt_host* host, const dpt_config* config, dpt_instance** out);
  /* [control-thread] NULL is accepted; releases exchanges still held. */
  void (*destroy)(dpt_instance* instance);
  /* [any-thread] Pure: refuses inconsistent sizes naming the product that does not divide. */
  dpt_error* (*layout)(dpt_instance* instance, dpt_parallel_layout_args* args);
  /* [any-thread] Pure: refuses a split that does not divide, naming the dim and sizes. */
  dpt_error* (*shard)(dpt_instance* instance, dpt_parallel_shard_args* args);
  /* [instance-thread] Fixes the topology. Collective over its communicator. */
  dpt_error* (*setup)(dpt_instance* instance, const dpt_parallel_topology* topology);
  /* [instance-thread] Collective; every rank dispatches and combines in the same order. */
  dpt_error* (*dispatch)(dpt_instance* instance, dpt_dispatch_args* args, dpt_stream* stream);
  /* [instance-thread] Collective. */
  dpt_error* (*combine)(dpt_instance* instance, dpt_combine_args* args, dpt_stream* stream);
  /* [instance-thread] Drops an exchange without combining (local). NULL is accepted. */
  void (*release)(dpt_instance* instance, dpt_parallel_exchange* exchange);
} dpt_parallel_v1;
#define DPT_PARALLEL_V1_SIZE_1_5 DPT_STRUCT_SIZE(dpt_parallel_v1, release)
DPT_PIN_SIZE_LP64(DPT_PARALLEL_V1_SIZE_1_5, 72);
/* Leading designator of a plugin's static table: {DPT_PARALLEL_V1_FIELDS, .create = ...}. */
#define DPT_PARALLEL_V1_FIELDS .struct_size = sizeof(dpt_parallel_v1)

#endif /* DOPANT_ABI_PARALLEL_H */
