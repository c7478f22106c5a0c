/* dopant ABI — kind "dopant.checkpoint/1": reading, writing and converting checkpoints by
 * streaming.
 *
 * A reader opens a checkpoint and lists its tensors: name, dtype and global shape, and for
 * each the chunks it is stored in (where a chunk sits in the global tensor, and in which
 * file, at which byte offset and length). A caller then reads any chunk into its own buffer,
 * from many threads at once, without the plugin ever holding a whole tensor. A writer
 * begins at a destination, takes tensors one at a time, and finalizes atomically (the
 * destination appears complete) or aborts (nothing is left behind). Reads and adds are
 * one chunk or one tensor each, so their caller counts progress itself.
 *
 * A conversion strategy (a whole checkpoint of one format into another, planned and read by
 * the plugin) is the optional extension "dopant.checkpoint.convert/1" below, found through
 * the descriptor's get_extension. It polls host->is_cancelled and returns DPT_CANCELLED,
 * and reports progress through a callback of its args: progress belongs to one call, and
 * the caller that drew the call draws the bar (the host has no progress service).
 *
 * Each operation takes one args struct (struct_size, next, inputs, outputs marked out with
 * their lifetime); callers fill it from its DPT_CHECKPOINT_*_INIT macro. Paths are UTF-8.
 * Chunk offsets, sizes and shapes count elements; byte offsets and lengths count bytes. A
 * chunk's bytes are row-major over its own sizes.
 *
 * Released in minor 6 (promoted from "dopant.checkpoint/1" with the `safetensors`,
 * `dcp` and `megatron-legacy` format plugins and the `gather` and `stream` conversion
 * strategies); every size is pinned.
 */
#ifndef DOPANT_ABI_CHECKPOINT_H
#define DOPANT_ABI_CHECKPOINT_H

#include <dlpack/dlpack.h>

#include "base.h"
#include "host.h"

#define DPT_KIND_CHECKPOINT "dopant.checkpoint/1"

/* Opaque handles owned by the plugin instance that made them. */
typedef struct dpt_checkpoint_reader dpt_checkpoint_reader;
typedef struct dpt_checkpoint_writer dpt_checkpoint_writer;

/* One stored piece of a tensor. */
typedef struct dpt_checkpoint_chunk {
  uint32_t struct_size;
  const int64_t* offsets;   /* [ndim] first element of the chunk in the global tensor   */
  const int64_t* sizes;     /* [ndim] extent of the chunk                              */
  const char* file;         /* the file that holds its bytes                           */
  uint64_t byte_offset;     /* where they start in `file`, bytes                       */
  uint64_t byte_length;     /* how many, bytes: product(sizes) x the dtype's bytes     */
} dpt_checkpoint_chunk;
#define DPT_CHECKPOINT_CHUNK_SIZE_1_6 DPT_STRUCT_SIZE(dpt_checkpoint_chunk, byte_length)
DPT_PIN_SIZE_LP64(DPT_CHECKPOINT_CHUNK_SIZE_1_6, 48);

/* One tensor of a checkpoint, its chunks covering it. Pointers, not arrays of structs, so
 * that either struct can grow without changing a stride. */
typedef struct dpt_checkpoint_tensor {
  uint32_t struct_size;
  const char* name;
  DLDataType dtype;
  int32_t ndim;
  const int64_t* shape;                        /* [ndim] global shape, elements     */
  uint64_t chunk_count;
  const dpt_checkpoint_chunk* const* chunks;   /* [chunk_count]                     */
} dpt_checkpoint_tensor;
#define DPT_CHECKPOINT_TENSOR_SIZE_1_6 DPT_STRUCT_SIZE(dpt_checkpoint_tensor, chunks)
DPT_PIN_SIZE_LP64(DPT_CHECKPOINT_TENSOR_SIZE_1_6, 48);

typedef struct dpt_checkpoint_open_args {
  uint32_t struct_size;
  const dpt_extension* next;
  const char* path;                       /* a checkpoint file or folder                */
  dpt_checkpoint_reader* reader;          /* out: valid until reader_close              */
} dpt_checkpoint_open_args;
#define DPT_CHECKPOINT_OPEN_ARGS_SIZE_1_6 DPT_STRUCT_SIZE(dpt_checkpoint_open_args, reader)
DPT_PIN_SIZE_LP64(DPT_CHECKPOINT_OPEN_ARGS_SIZE_1_6, 32);
/* No path; reader cleared. */
#define DPT_CHECKPOINT_OPEN_ARGS_INIT {DPT_CHECKPOINT_OPEN_ARGS_SIZE_1_6, NULL, NULL, NULL}

typedef struct dpt_checkpoint_list_args {
  uint32_t struct_size;
  const dpt_extension* next;
  dpt_checkpoint_reader* reader;
  uint64_t tensor_count;                         /* out                                 */
  const dpt_checkpoint_tensor* const* tensors;   /* out: [tensor_count], in the order the
                                                  * checkpoint stores them; valid, with
                                                  * everything they point to, until
                                                  * reader_close                           */
  uint64_t metadata_count;                       /* out                                 */
  const char* const* metadata_keys;              /* out: [metadata_count] free-form     */
  const char* const* metadata_values;            /* strings, valid until reader_close   */
} dpt_checkpoint_list_args;
#define DPT_CHECKPOINT_LIST_ARGS_SIZE_1_6 DPT_STRUCT_SIZE(dpt_checkpoint_list_args, metadata_values)
DPT_PIN_SIZE_LP64(DPT_CHECKPOINT_LIST_ARGS_SIZE_1_6, 64);
/* No reader; outputs cleared. */
#define DPT_CHECKPOINT_LIST_ARGS_INIT {DPT_CHECKPOINT_LIST_ARGS_SIZE_1_6, NULL, NULL, 0, NULL, 0, NULL, NULL}

typedef struct dpt_checkpoint_read_args {
  uint32_t struct_size;
  const dpt_extension* next;
  dpt_checkpoint_reader* reader;
  uint64_t tensor_index;                  /* into the list's tensors                     */
  uint64_t chunk_index;                   /* into that tensor's chunks                   */
  void* buffer;                           /* host memory of the caller                   */
  uint64_t buffer_bytes;                  /* at least the chunk's byte_length            */
} dpt_checkpoint_read_args;
#define DPT_CHECKPOINT_READ_ARGS_SIZE_1_6 DPT_STRUCT_SIZE(dpt_checkpoint_read_args, buffer_bytes)
DPT_PIN_SIZE_LP64(DPT_CHECKPOINT_READ_ARGS_SIZE_1_6, 56);
/* No reader, tensor and chunk 0, no buffer. */
#define DPT_CHECKPOINT_READ_ARGS_INIT {DPT_CHECKPOINT_READ_ARGS_SIZE_1_6, NULL, NULL, 0, 0, NULL, 0}

typedef struct dpt_checkpoint_begin_args {
  uint32_t struct_size;
  const dpt_extension* next;
  const char* destination;                /* must not exist; appears only at finalize    */
  uint64_t metadata_count;                /* free-form strings stored with the tensors   */
  const char* const* metadata_keys;       /* [metadata_count], read during the call      */
  const char* const* metadata_values;     /* [metadata_count], read during the call      */
  dpt_checkpoint_writer* writer;          /* out: valid until writer_finalize or
                                           * writer_abort, exactly one of which the caller
                                           * calls                                        */
} dpt_checkpoint_begin_args;
#define DPT_CHECKPOINT_BEGIN_ARGS_SIZE_1_6 DPT_STRUCT_SIZE(dpt_checkpoint_begin_args, writer)
DPT_PIN_SIZE_LP64(DPT_CHECKPOINT_BEGIN_ARGS_SIZE_1_6, 56);
/* No destination, no metadata; writer cleared. */
#define DPT_CHECKPOINT_BEGIN_ARGS_INIT {DPT_CHECKPOINT_BEGIN_ARGS_SIZE_1_6, NULL, NULL, 0, NULL, NULL, NULL}

typedef struct dpt_checkpoint_add_args {
  uint32_t struct_size;
  const dpt_extension* next;
  dpt_checkpoint_writer* writer;
  const char* name;                       /* unique in the checkpoint                    */
  const DLTensor* tensor;                 /* compact host tensor; read during the call   */
} dpt_checkpoint_add_args;
#define DPT_CHECKPOINT_ADD_ARGS_SIZE_1_6 DPT_STRUCT_SIZE(dpt_checkpoint_add_args, tensor)
DPT_PIN_SIZE_LP64(DPT_CHECKPOINT_ADD_ARGS_SIZE_1_6, 40);
/* No writer, name or tensor. */
#define DPT_CHECKPOINT_ADD_ARGS_INIT {DPT_CHECKPOINT_ADD_ARGS_SIZE_1_6, NULL, NULL, NULL, NULL}

typedef struct dpt_checkpoint_finalize_args {
  uint32_t struct_size;
  const dpt_extension* next;
  dpt_checkpoint_writer* writer;          /* freed by the call, whatever it returns      */
} dpt_checkpoint_finalize_args;
#define DPT_CHECKPOINT_FINALIZE_ARGS_SIZE_1_6 DPT_STRUCT_SIZE(dpt_checkpoint_finalize_args, writer)
DPT_PIN_SIZE_LP64(DPT_CHECKPOINT_FINALIZE_ARGS_SIZE_1_6, 24);
/* No writer. */
#define DPT_CHECKPOINT_FINALIZE_ARGS_INIT {DPT_CHECKPOINT_FINALIZE_ARGS_SIZE_1_6, NULL, NULL}

/* Every slot is required, and the loader refuses a library whose table leaves one NULL. A
 * read-only format answers DPT_UNIMPLEMENTED from writer_begin, a plugin that only converts
 * from reader_open too. */
typedef struct dpt_checkpoint_v1 {
  uint32_t struct_size;
  /* [control-thread] */
  dpt_error* (*create)(const dpt_host* host, const dpt_config* config, dpt_instance** out);
  /* [control-thread] NULL is accepted. The caller closes its readers and finalizes or
   * aborts its writers first. */
  void (*destroy)(dpt_instance* instance);

  /* [instance-thread] Opens the checkpoint at args->path and checks its index: every bad
   * input is an error naming the file and the field, never a crash. A path the format does
   * not recognize is an error too, so a caller may ask each plugin in turn. */
  dpt_error* (*reader_open)(dpt_instance* instance, dpt_checkpoint_open_args* args);
  /* [any-thread] The tensors and metadata of an open reader. */
  dpt_error* (*reader_list)(dpt_instance* instance, dpt_checkpoint_list_args* args);
  /* [any-thread] Reads one chunk's bytes into args->buffer by positioned I/O; concurrent
   * reads of one reader are allowed. A file shorter than its index says is DPT_DATA_LOSS. */
  dpt_error* (*reader_read)(dpt_instance* instance, const dpt_checkpoint_read_args* args);
  /* [instance-thread] Frees a reader. NULL is accepted. */
  void (*reader_close)(dpt_instance* instance, dpt_checkpoint_reader* reader);

  /* [instance-thread] Starts writing. An existing destination is DPT_ALREADY_EXISTS; a
   * read-only format returns DPT_UNIMPLEMENTED (and the other writer slots are not called). */
  dpt_error* (*writer_begin)(dpt_instance* instance, dpt_checkpoint_begin_args* args);
  /* [instance-thread] Adds one tensor. A name given twice is DPT_ALREADY_EXISTS. After an
   * error the writer can only be aborted. */
  dpt_error* (*writer_add)(dpt_instance* instance, const dpt_checkpoint_add_args* args);
  /* [instance-thread] Completes the destination atomically: on success it exists whole; on
   * error (cancellation included) nothing of it exists. Frees the writer either way. */
  dpt_error* (*writer_finalize)(dpt_instance* instance, const dpt_checkpoint_finalize_args* args);
  /* [instance-thread] Removes everything the writer wrote and frees it. NULL is accepted. */
  void (*writer_abort)(dpt_instance* instance, dpt_checkpoint_writer* writer);
} dpt_checkpoint_v1;
#define DPT_CHECKPOINT_V1_SIZE_1_6 DPT_STRUCT_SIZE(dpt_checkpoint_v1, writer_abort)
DPT_PIN_SIZE_LP64(DPT_CHECKPOINT_V1_SIZE_1_6, 88);
/* Leading designator of a plugin's static table: {DPT_CHECKPOINT_V1_FIELDS, .create = ...}. */
#define DPT_CHECKPOINT_V1_FIELDS .struct_size = sizeof(dpt_checkpoint_v1)

/* ---- Extension "dopant.checkpoint.convert/1": a conversion strategy ----
 *
 * Found through the descriptor's get_extension(DPT_EXT_CHECKPOINT_CONVERT); NULL when the
 * plugin does not convert. One call converts a whole checkpoint: the plugin opens the
 * source, plans, reads and writes as its strategy does (what it holds in memory, how many
 * threads it reads with), and the destination appears whole or not at all. Tunables of
 * one strategy (threads, task sizes) are the plugin's own parameters, set at create, so a
 * strategy without them declares none; the args hold what every conversion needs.
 * A plugin whose only purpose is converting answers DPT_UNIMPLEMENTED from reader_open and
 * writer_begin. */
#define DPT_EXT_CHECKPOINT_CONVERT "dopant.checkpoint.convert/1"

/* [any-thread] Bytes of tensor data written so far out of the total the plan holds. Called
 * from the plugin's own threads, one call at a time, with `done` never decreasing; the last
 * call, on success, has done == total. */
typedef void (*dpt_checkpoint_progress_fn)(void* context, uint64_t done_bytes, uint64_t total_bytes);

typedef struct dpt_checkpoint_convert_args {
  uint32_t struct_size;
  const dpt_extension* next;
  const char* source;               /* the source checkpoint: a file or folder             */
  const char* destination;          /* must not exist; appears only on success, whole       */
  const char* from;                 /* the source's format family: "megatron"               */
  const char* to;                   /* the destination's format: "hf"                       */
  const char* model;                /* the model mapping: "llama", "deepseek-v3", ...       */
  uint64_t setting_count;           /* the mapping's settings ("heads" = "32"), overriding  */
  const char* const* setting_keys;  /* what the source records; [setting_count], read       */
  const char* const* setting_values;/* during the call                                      */
  uint64_t max_shard_bytes;         /* most tensor bytes per output file; 0: the format's
                                     * default                                              */
  dpt_checkpoint_progress_fn progress;  /* Optional: NULL for no reports                   */
  void* progress_context;           /* passed to progress as is                             */
  uint64_t tensors_written;         /* out: tensors in the destination, on success          */
  uint64_t bytes_written;           /* out: their bytes, on success                         */
  uint64_t files_written;           /* out: tensor files in the destination, on success     */
} dpt_checkpoint_convert_args;
#define DPT_CHECKPOINT_CONVERT_ARGS_SIZE_1_6 DPT_STRUCT_SIZE(dpt_checkpoint_convert_args, files_written)
DPT_PIN_SIZE_LP64(DPT_CHECKPOINT_CONVERT_ARGS_SIZE_1_6, 128);
/* No paths, formats or model, no settings, the default shard size, no progress; outputs
 * cleared. */
#define DPT_CHECKPOINT_CONVERT_ARGS_INIT \
  {DPT_CHECKPOINT_CONVERT_ARGS_SIZE_1_6, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, 0, NULL, NULL, 0, 0, 0}

/* Every slot is required. */
typedef struct dpt_checkpoint_convert_v1 {
  uint32_t struct_size;
  /* [instance-thread] Converts args->source into args->destination. It checks, in this
   * order: the destination does not exist (else DPT_ALREADY_EXISTS, and it stays
   * untouched); from, to and model are ones the plugin knows (else DPT_UNIMPLEMENTED); then
   * the source, where bad input is an error naming the file and the field. It polls
   * host->is_cancelled at least once per unit of work it plans (DPT_CANCELLED). On any
   * error nothing of the destination exists afterwards and the outputs are 0. */
  dpt_error* (*convert)(dpt_instance* instance, dpt_checkpoint_convert_args* args);
} dpt_checkpoint_convert_v1;
#define DPT_CHECKPOINT_CONVERT_V1_SIZE_1_6 DPT_STRUCT_SIZE(dpt_checkpoint_convert_v1, convert)
DPT_PIN_SIZE_LP64(DPT_CHECKPOINT_CONVERT_V1_SIZE_1_6, 16);

#endif /* DOPANT_ABI_CHECKPOINT_H */
