/* dopant ABI — kind "dopant.router/1": MoE routers that pick experts for tokens.
 *
 * Optional capabilities (replay of recorded routing, delta codecs) are extension tables
 * found through the descriptor's get_extension with their own versioned ids.
 *
 * Released in minor 5 (promoted from "dopant.router.draft/0" with the `topk`, `replay-full`
 * and `replay-delta` plugins), with the replay extension "dopant.router.replay/1"; every
 * size is pinned. Callers fill the args from the DPT_ROUTE_ARGS_INIT and DPT_REPLAY_*_INIT
 * macros.
 */
#ifndef DOPANT_ABI_ROUTER_H
#define DOPANT_ABI_ROUTER_H

#include <dlpack/dlpack.h>

#include "base.h"
#include "host.h"

#define DPT_KIND_ROUTER "dopant.router/1"

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
#define DPT_ROUTE_ARGS_SIZE_1_5 DPT_STRUCT_SIZE(dpt_route_args, expert_load)
DPT_PIN_SIZE_LP64(DPT_ROUTE_ARGS_SIZE_1_5, 72);
/* Args ready to be filled: size set, every pointer NULL, layer and top_k zero. */
#define DPT_ROUTE_ARGS_INIT {DPT_ROUTE_ARGS_SIZE_1_5, NULL, 0, 0, NULL, NULL, NULL, NULL, NULL, NULL}

/* Every slot is required, and the loader refuses a library whose table leaves one NULL,
 * except the slots marked Optional (NULL there: the plugin does not provide it). */
typedef struct dpt_router_v1 {
  uint32_t struct_size;
  /* [control-thread] */
  dpt_error* (*create)(const dpt_host* host, const dpt_config* config, dpt_instance** out);
  /* [control-thread] NULL is accepted. */
  void (*destroy)(dpt_instance* instance);
  /* [instance-thread] Fills expert_ids, weights and, when given, expert_load, queued on
   * `stream` (on CPU the work is done when it returns). */
  dpt_error* (*route)(dpt_instance* instance, const dpt_route_args* args, dpt_stream* stream);
} dpt_router_v1;
#define DPT_ROUTER_V1_SIZE_1_5 DPT_STRUCT_SIZE(dpt_router_v1, route)
DPT_PIN_SIZE_LP64(DPT_ROUTER_V1_SIZE_1_5, 32);
/* Leading designator of a plugin's static table: {DPT_ROUTER_V1_FIELDS, .create = ...}. */
#define DPT_ROUTER_V1_FIELDS .struct_size = sizeof(dpt_router_v1)

/* ---- Extension "dopant.router.replay/1": routing replay for multi-turn sessions ----
 *
 * Found through the descriptor's get_extension(DPT_EXT_ROUTER_REPLAY); NULL when the plugin
 * does not replay. One instance can play either side of a session:
 *   inference side: open, then record each layer's ids as tokens are routed, then emit
 *     each turn's rows [start_len, seqlen - 1) as a payload in the plugin's codec;
 *   trainer side: open, then ingest each turn's payload, then read the stitched rows.
 * ingest validates a turn whole (shape, start row equal to the rows held, prefix hash,
 * ids below experts, no id twice within a row's layer) and, on any failure, returns
 * DPT_INVALID_ARGUMENT naming the session, turn and first bad row, the session unchanged.
 * Sessions are named by UTF-8 strings, copied by open. */
#define DPT_EXT_ROUTER_REPLAY "dopant.router.replay/1"

/* The prefix hash a client sends: FNV-1a 64 (offset 0xcbf29ce484222325, prime
 * 0x100000001b3) over the prompt tokens [0, start_row) as little-endian int32 bytes. */

typedef struct dpt_replay_session_args {
  uint32_t struct_size;
  const dpt_extension* next;
  const char* session;  /* session id; for open, copied */
  uint32_t layers;      /* open only: MoE layers recorded per token */
  uint32_t top_k;       /* open only: experts per token and layer */
  uint32_t experts;     /* open only: ids lie in [0, experts) */
} dpt_replay_session_args;
#define DPT_REPLAY_SESSION_ARGS_SIZE_1_5 DPT_STRUCT_SIZE(dpt_replay_session_args, experts)
DPT_PIN_SIZE_LP64(DPT_REPLAY_SESSION_ARGS_SIZE_1_5, 36);
/* No session, zero shape. */
#define DPT_REPLAY_SESSION_ARGS_INIT {DPT_REPLAY_SESSION_ARGS_SIZE_1_5, NULL, NULL, 0, 0, 0}

typedef struct dpt_replay_record_args {
  uint32_t struct_size;
  const dpt_extension* next;
  const char* session;
  uint32_t layer;       /* MoE layer index, < layers */
  uint64_t position;    /* first token position; the rows the layer already holds */
  const DLTensor* ids;  /* [tokens, top_k] int32, the layer's choice for positions
                         * [position, position + tokens); read during the call */
} dpt_replay_record_args;
#define DPT_REPLAY_RECORD_ARGS_SIZE_1_5 DPT_STRUCT_SIZE(dpt_replay_record_args, ids)
DPT_PIN_SIZE_LP64(DPT_REPLAY_RECORD_ARGS_SIZE_1_5, 48);
/* No session, layer and position 0, no ids. */
#define DPT_REPLAY_RECORD_ARGS_INIT {DPT_REPLAY_RECORD_ARGS_SIZE_1_5, NULL, NULL, 0, 0, NULL}

typedef struct dpt_replay_emit_args {
  uint32_t struct_size;
  const dpt_extension* next;
  const char* session;
  uint64_t start_len;      /* rows the trainer holds; replay-full sends from row 0 anyway */
  uint64_t seqlen;         /* tokens of the sequence; rows end at seqlen - 1 */
  const uint8_t* payload;  /* out: the payload bytes, owned by the instance, valid until
                            * the next emit on it or its destruction */
  uint64_t payload_size;   /* out: bytes at payload */
} dpt_replay_emit_args;
#define DPT_REPLAY_EMIT_ARGS_SIZE_1_5 DPT_STRUCT_SIZE(dpt_replay_emit_args, payload_size)
DPT_PIN_SIZE_LP64(DPT_REPLAY_EMIT_ARGS_SIZE_1_5, 56);
/* No session, empty range, outputs cleared. */
#define DPT_REPLAY_EMIT_ARGS_INIT {DPT_REPLAY_EMIT_ARGS_SIZE_1_5, NULL, NULL, 0, 0, NULL, 0}

typedef struct dpt_replay_ingest_args {
  uint32_t struct_size;
  const dpt_extension* next;
  const char* session;
  uint64_t turn;                /* turn number, for messages */
  uint64_t prefix_hash;         /* the client's hash of prompt tokens [0, start_row) */
  const DLTensor* row_tokens;   /* [rows] int32: token ids at the new rows' positions */
  const uint8_t* payload;       /* the emitted bytes, read during the call */
  uint64_t payload_size;
} dpt_replay_ingest_args;
#define DPT_REPLAY_INGEST_ARGS_SIZE_1_5 DPT_STRUCT_SIZE(dpt_replay_ingest_args, payload_size)
DPT_PIN_SIZE_LP64(DPT_REPLAY_INGEST_ARGS_SIZE_1_5, 64);
/* No session, turn 0, hash 0, no tokens, no payload. */
#define DPT_REPLAY_INGEST_ARGS_INIT {DPT_REPLAY_INGEST_ARGS_SIZE_1_5, NULL, NULL, 0, 0, NULL, NULL, 0}

typedef struct dpt_replay_rows_args {
  uint32_t struct_size;
  const dpt_extension* next;
  const char* session;
  const int32_t* ids;  /* out: [rows, layers, top_k] int32, owned by the instance, valid
                        * until the session's next ingest or close */
  uint64_t rows;       /* out: rows held */
  uint64_t held_hash;  /* out: prefix hash of the tokens of the rows held */
} dpt_replay_rows_args;
#define DPT_REPLAY_ROWS_ARGS_SIZE_1_5 DPT_STRUCT_SIZE(dpt_replay_rows_args, held_hash)
DPT_PIN_SIZE_LP64(DPT_REPLAY_ROWS_ARGS_SIZE_1_5, 48);
/* No session, outputs cleared. */
#define DPT_REPLAY_ROWS_ARGS_INIT {DPT_REPLAY_ROWS_ARGS_SIZE_1_5, NULL, NULL, NULL, 0, 0}

/* Every slot is required. All are [instance-thread]. */
typedef struct dpt_router_replay_v1 {
  uint32_t struct_size;
  /* Opens `session` with its shape on both sides; DPT_ALREADY_EXISTS if it is open. */
  dpt_error* (*open)(dpt_instance* instance, const dpt_replay_session_args* args);
  /* Appends one layer's ids of a run of positions (inference side). */
  dpt_error* (*record)(dpt_instance* instance, const dpt_replay_record_args* args);
  /* Encodes the turn's rows into args->payload (inference side). */
  dpt_error* (*emit)(dpt_instance* instance, dpt_replay_emit_args* args);
  /* Validates and stitches one turn (trainer side). */
  dpt_error* (*ingest)(dpt_instance* instance, const dpt_replay_ingest_args* args);
  /* The stitched rows of a session (trainer side). */
  dpt_error* (*rows)(dpt_instance* instance, dpt_replay_rows_args* args);
  /* Forgets `session` on both sides; DPT_NOT_FOUND if it is not open. */
  dpt_error* (*close)(dpt_instance* instance, const dpt_replay_session_args* args);
} dpt_router_replay_v1;
#define DPT_ROUTER_REPLAY_V1_SIZE_1_5 DPT_STRUCT_SIZE(dpt_router_replay_v1, close)
DPT_PIN_SIZE_LP64(DPT_ROUTER_REPLAY_V1_SIZE_1_5, 56);

#endif /* DOPANT_ABI_ROUTER_H */
