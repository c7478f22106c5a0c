/* dopant ABI — the host table: the services the core hands every plugin.
 *
 * Every plugin receives `const dpt_host*` in its library init and in every `create`; it
 * stays valid until the runtime that handed it out is destroyed. Each function takes the
 * host it was read from as first argument.
 */
#ifndef DOPANT_ABI_HOST_H
#define DOPANT_ABI_HOST_H

#include "base.h"

typedef int32_t dpt_log_level;
enum { DPT_LOG_TRACE = 0, DPT_LOG_DEBUG = 1, DPT_LOG_INFO = 2, DPT_LOG_WARN = 3, DPT_LOG_ERROR = 4 };

/* Where memory lives. DEVICE is the run's device ([device] kind in the config): CUDA memory
 * on a GPU run, an accounted host pool on a CPU run. PINNED_HOST is page-locked when CUDA is
 * present and ordinary host memory otherwise. */
typedef int32_t dpt_memory_kind;
enum { DPT_MEMORY_DEVICE = 0, DPT_MEMORY_PINNED_HOST = 1, DPT_MEMORY_HOST = 2 };

/* Direction of goodness of a metric. */
typedef int32_t dpt_better;
enum { DPT_BETTER_LOWER = 0, DPT_BETTER_HIGHER = 1 };

/* Accounting of one memory kind. */
typedef struct dpt_memory_stats {
  uint32_t struct_size;
  uint64_t current_bytes;
  uint64_t peak_bytes;
  uint64_t limit_bytes; /* 0: no limit */
  uint64_t allocation_count; /* live allocations */
  /* ---- added in minor 2 ---- */
  /* The largest current + requested bytes seen since the last peak reset, refused requests
   * included: what the work asked for at its peak. Equals peak_bytes while nothing was
   * refused; after an out-of-memory error it says how much would have been needed then. */
  uint64_t peak_demand_bytes;
} dpt_memory_stats;
#define DPT_MEMORY_STATS_SIZE_1_0 DPT_STRUCT_SIZE(dpt_memory_stats, allocation_count)
#define DPT_MEMORY_STATS_SIZE_1_2 DPT_STRUCT_SIZE(dpt_memory_stats, peak_demand_bytes)
DPT_PIN_SIZE_LP64(DPT_MEMORY_STATS_SIZE_1_0, 40);
DPT_PIN_SIZE_LP64(DPT_MEMORY_STATS_SIZE_1_2, 48);
/* An output struct ready for memory_stats: its size set, every count zero. */
#define DPT_MEMORY_STATS_INIT {DPT_MEMORY_STATS_SIZE_1_2, 0, 0, 0, 0, 0}

/* Body of a parallel_for: processes indices [begin, end). Returns NULL or an error; the
 * first error stops the loop (chunks already started finish) and is returned. */
typedef dpt_error* (*dpt_parallel_body)(void* context, uint64_t begin, uint64_t end);

typedef struct dpt_host dpt_host;
struct dpt_host {
  uint32_t struct_size;
  uint32_t abi_minor; /* the core's ABI minor */

  /* ---- errors and logging ---- */
  /* [any-thread] Creates an error owned by the core. `message` is copied. Never NULL. A
   * code the core does not know is stored as DPT_INTERNAL, its number kept in the message. */
  dpt_error* (*error)(const dpt_host* host, dpt_code code, const char* message);
  /* [any-thread] Frees an error the plugin decided not to return. NULL is accepted. */
  void (*error_free)(const dpt_host* host, dpt_error* error);
  /* [any-thread] Code and message of an error (message valid until the error is freed). */
  dpt_code (*error_code)(const dpt_host* host, const dpt_error* error);
  const char* (*error_message)(const dpt_host* host, const dpt_error* error);
  /* [any-thread] Logs one line, prefixed by the core with the plugin id. */
  void (*log)(const dpt_host* host, dpt_log_level level, const char* message);

  /* ---- memory ---- */
  /* [any-thread] Allocates `bytes` of `kind`, aligned to `alignment` (a power of two, 0
   * for the default of 256). Over the capacity limit of that kind it returns a
   * DPT_OUT_OF_MEMORY error naming the requested and available bytes, like a real GPU. */
  dpt_error* (*alloc)(const dpt_host* host, dpt_memory_kind kind, uint64_t bytes,
                      uint64_t alignment, void** out);
  /* [any-thread] Frees memory from alloc with the same kind. NULL is accepted. */
  void (*free)(const dpt_host* host, dpt_memory_kind kind, void* pointer);
  /* [any-thread] Accounting of one memory kind. */
  dpt_error* (*memory_stats)(const dpt_host* host, dpt_memory_kind kind, dpt_memory_stats* out);

  /* ---- streams, events and copies (CUDA when the run is on a GPU, synchronous on CPU) ---- */
  /* [any-thread] Creates a stream of the run's device. */
  dpt_error* (*stream_create)(const dpt_host* host, dpt_stream** out);
  /* [any-thread] Destroys a stream after its work completes. NULL is accepted. */
  void (*stream_destroy)(const dpt_host* host, dpt_stream* stream);
  /* [any-thread] Waits for all work queued on `stream` (NULL: the default stream). */
  dpt_error* (*stream_synchronize)(const dpt_host* host, dpt_stream* stream);
  /* [any-thread] Copies `bytes` from `src` to `dst`, queued on `stream`. Kinds tell the core
   * which copy engine to use. On CPU the copy runs before the call returns. */
  dpt_error* (*copy)(const dpt_host* host, void* dst, dpt_memory_kind dst_kind, const void* src,
                     dpt_memory_kind src_kind, uint64_t bytes, dpt_stream* stream);
  /* [any-thread] Events order work across streams. */
  dpt_error* (*event_create)(const dpt_host* host, dpt_event** out);
  void (*event_destroy)(const dpt_host* host, dpt_event* event);
  dpt_error* (*event_record)(const dpt_host* host, dpt_event* event, dpt_stream* stream);
  dpt_error* (*stream_wait_event)(const dpt_host* host, dpt_stream* stream, dpt_event* event);
  dpt_error* (*event_synchronize)(const dpt_host* host, dpt_event* event);
  /* [any-thread] Native handle of a stream (cudaStream_t on CUDA, NULL on CPU), for plugins
   * that launch their own kernels (with the run's device, see device_is_gpu, current on the
   * launching thread: host services leave the caller's current device as they found it). */
  void* (*stream_native)(const dpt_host* host, dpt_stream* stream);
  /* [any-thread] Nonzero when the run's device is a CUDA GPU; `device_index` gets its index. */
  int32_t (*device_is_gpu)(const dpt_host* host, int32_t* device_index);

  /* ---- threads ---- */
  /* [any-thread] Runs body over [begin, end) in chunks of at least `grain` indices on the
   * core's thread pool (the calling thread takes part). Returns when every chunk is done.
   * Nested calls run inline on the calling thread, so pools never oversubscribe cores. */
  dpt_error* (*parallel_for)(const dpt_host* host, uint64_t begin, uint64_t end, uint64_t grain,
                             dpt_parallel_body body, void* context);
  /* [any-thread] Number of threads parallel_for may use, the caller included. */
  uint32_t (*thread_count)(const dpt_host* host);

  /* ---- metrics and cancellation ---- */
  /* [any-thread] Reports one measurement of the current repetition. `name` and `unit` are
   * copied ("step_time", "s"; "peak_device_bytes", "B"). */
  void (*metric)(const dpt_host* host, const char* name, double value, const char* unit,
                 dpt_better better);
  /* [any-thread] Nonzero once the run was asked to stop; long operations poll it and return
   * DPT_CANCELLED soon after (DPT_DEADLINE_EXCEEDED when their own timeout ran out). */
  int32_t (*is_cancelled)(const dpt_host* host);

  /* ---- the plugin's validated parameters ----
   * [any-thread] Typed reads of a parameter the plugin declared. Defaults are already filled
   * in, so a declared name always has a value. A name that was not declared, or a read with
   * another type, returns DPT_INVALID_ARGUMENT. `enum` parameters read as strings; strings
   * live as long as the config, which a kind's `create` may read only during the call. */
  dpt_error* (*config_bool)(const dpt_host* host, const dpt_config* config, const char* name,
                            int32_t* out);
  dpt_error* (*config_int)(const dpt_host* host, const dpt_config* config, const char* name,
                           int64_t* out);
  dpt_error* (*config_float)(const dpt_host* host, const dpt_config* config, const char* name,
                             double* out);
  dpt_error* (*config_string)(const dpt_host* host, const dpt_config* config, const char* name,
                              const char** out);
  dpt_error* (*config_size)(const dpt_host* host, const dpt_config* config, const char* name,
                            uint64_t* out);

  /* Opaque data of the core; plugins never touch it. */
  void* host_data;

  /* ---- added in minor 4 ---- */
  /* [any-thread] The table of a host extension by its versioned id (e.g.
   * "dopant.host.comm/1", <dopant/comm.h>): static data of the core, or NULL
   * when this core does not provide it. A plugin reads this slot only when
   * struct_size >= DPT_HOST_SIZE_1_4 (a core of minor 0-3 has no such slot). */
  const void* (*get_extension)(const dpt_host* host, const char* id);
};
#define DPT_HOST_SIZE_1_0 DPT_STRUCT_SIZE(dpt_host, host_data)
#define DPT_HOST_SIZE_1_4 DPT_STRUCT_SIZE(dpt_host, get_extension)
DPT_PIN_SIZE_LP64(DPT_HOST_SIZE_1_0, 240);
DPT_PIN_SIZE_LP64(DPT_HOST_SIZE_1_4, 248);

#endif /* DOPANT_ABI_HOST_H */
