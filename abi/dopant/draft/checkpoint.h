/* dopant ABI — kind "dopant.checkpoint.draft/0": reading and writing checkpoints by streaming.
 *
 * A reader opens a checkpoint and lists its tensors: name, dtype and global shape, and for
 * each the chunks it is stored in (where a chunk sits in the global tensor, and in which
 * file, at which byte offset and length). A caller then reads any chunk into its own buffer,
 * from many threads at once, without the plugin ever holding a whole tensor. A writer
 * begins at a destination, takes tensors one at a time, and finalizes atomically (the
 * destination appears complete) or aborts (nothing is left behind). Long operations poll
 * host->is_cancelled and return DPT_CANCELLED, and report progress through host->log at
 * DPT_LOG_DEBUG as lines "progress N bytes", N the bytes done so far (the host table has
 * no progress service yet; one belongs to the kind's promotion).
 *
 * Each operation takes one args struct (struct_size, next, inputs, outputs marked out with
 * their lifetime); callers set struct_size to the size of this header's struct. Paths are
 * UTF-8. Chunk offsets, sizes and shapes count elements; byte offsets and lengths count
 * bytes. A chunk's bytes are row-major over its own sizes.
 *
 * DRAFT: this kind has no shipped plugin yet. Its id ends in ".draft/0", its sizes are not
 * pinned, and it may change in any way until it is promoted to "/1" (see docs/abi.md). The
 * core loads a plugin of a draft kind only when its table is exactly this header's size.
 */
#ifndef DOPANT_ABI_DRAFT_CHECKPOINT_H
#define DOPANT_ABI_DRAFT_CHECKPOINT_H

#include <dlpack/dlpack.h>

#include "../base.h"
#include "../host.h"

#define DPT_KIND_CHECKPOINT "dopant.checkpoint.draft/0"

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
#define DPT_CHECKPOINT_CHUNK_DRAFT_SIZE DPT_STRUCT_SIZE(dpt_checkpoint_chunk, byte_length)

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
#define DPT_CHECKPOINT_TENSOR_DRAFT_SIZE DPT_STRUCT_SIZE(dpt_checkpoint_tensor, chunks)

typedef struct dpt_checkpoint_open_args {
  uint32_t struct_size;
  const dpt_extension* next;
  const char* path;                       /* a checkpoint file or folder                */
  dpt_checkpoint_reader* reader;          /* out: valid until reader_close              */
} dpt_checkpoint_open_args;
#define DPT_CHECKPOINT_OPEN_ARGS_DRAFT_SIZE DPT_STRUCT_SIZE(dpt_checkpoint_open_args, reader)

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
#define DPT_CHECKPOINT_LIST_ARGS_DRAFT_SIZE DPT_STRUCT_SIZE(dpt_checkpoint_list_args, metadata_values)

typedef struct dpt_checkpoint_read_args {
  uint32_t struct_size;
  const dpt_extension* next;
  dpt_checkpoint_reader* reader;
  uint64_t tensor_index;                  /* into the list's tensors                     */
  uint64_t chunk_index;                   /* into that tensor's chunks                   */
  void* buffer;                           /* host memory of the caller                   */
  uint64_t buffer_bytes;                  /* at least the chunk's byte_length            */
} dpt_checkpoint_read_args;
#define DPT_CHECKPOINT_READ_ARGS_DRAFT_SIZE DPT_STRUCT_SIZE(dpt_checkpoint_read_args, buffer_bytes)

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
#define DPT_CHECKPOINT_BEGIN_ARGS_DRAFT_SIZE DPT_STRUCT_SIZE(dpt_checkpoint_begin_args, writer)

typedef struct dpt_checkpoint_add_args {
  uint32_t struct_size;
  const dpt_extension* next;
  dpt_checkpoint_writer* writer;
  const char* name;                       /* unique in the checkpoint                    */
  const DLTensor* tensor;                 /* compact host tensor; read during the call   */
} dpt_checkpoint_add_args;
#define DPT_CHECKPOINT_ADD_ARGS_DRAFT_SIZE DPT_STRUCT_SIZE(dpt_checkpoint_add_args, tensor)

typedef struct dpt_checkpoint_finalize_args {
  uint32_t struct_size;
  const dpt_extension* next;
  dpt_checkpoint_writer* writer;          /* freed by the call, whatever it returns      */
} dpt_checkpoint_finalize_args;
#define DPT_CHECKPOINT_FINALIZE_ARGS_DRAFT_SIZE DPT_STRUCT_SIZE(dpt_checkpoint_finalize_args, writer)

/* Every slot is required, and the loader refuses a library whose table leaves one NULL. */
typedef struct dpt_checkpoint_draft {
  uint32_t struct_size;
  /* [control-thread] */
  dpt_error* (*create)(const dpt_host* host, const dpt_config* config, dpt_instance** out);
  /* [control-thread] NULL is accepted. The caller closes its readers and finalizes or
   * aborts its writers first. */
  void (*destroy)(dpt_instance* instance);

  /* [instance-thread] Opens the checkpoint at args->path and checks its index: every bad
   * input is an error naming the file and the field, never a crash. */
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
} dpt_checkpoint_draft;
#define DPT_CHECKPOINT_DRAFT_SIZE DPT_STRUCT_SIZE(dpt_checkpoint_draft, writer_abort)

#endif /* DOPANT_ABI_DRAFT_CHECKPOINT_H */
