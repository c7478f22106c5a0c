/* dopant — the host-side C API: embed the runtime from any language.
 *
 * Create a runtime, load plugins and a run configuration, create and drive instances of
 * any kind through their ABI tables, read metrics, destroy. The CLI and the workloads use
 * nothing but this header and the ABI headers. Every call here is [control-thread] unless
 * tagged otherwise (tags are defined in <dopant/base.h>).
 *
 * Handles: a call given a NULL handle does nothing and returns NULL, 0 or, where it returns
 * dpt_error*, a DPT_INVALID_ARGUMENT error. Options structs are read up to their
 * struct_size, which must reach at least the field named next to each struct.
 */
#ifndef DOPANT_RUNTIME_H
#define DOPANT_RUNTIME_H

#include <dopant/abi.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(DOPANT_BUILDING_CORE)
#define DPT_API __attribute__((visibility("default")))
#else
#define DPT_API
#endif

typedef struct dpt_runtime dpt_runtime;
typedef struct dpt_run_config dpt_run_config;
typedef struct dpt_plugin_instance dpt_plugin_instance;

/* ---------------------------------------------------------------- versions and errors */

/* The library's version ("0.1.0") and ABI (major, minor). [any-thread] */
DPT_API const char* dpt_version(void);
DPT_API uint32_t dpt_abi_major(void);
DPT_API uint32_t dpt_abi_minor(void);

/* Errors returned by this API belong to the caller, who frees them. [any-thread] */
DPT_API dpt_code dpt_error_get_code(const dpt_error* error);
DPT_API const char* dpt_error_get_message(const dpt_error* error);
DPT_API void dpt_error_destroy(dpt_error* error);
/* Creates an error, for an embedder's callbacks (a dpt_state_visitor, a tensor visitor) to
 * return to a plugin: it is the same kind of error the host creates, so the plugin may
 * return it onward or free it through its host. A code this dopant does not know becomes
 * DPT_INTERNAL. `message` is copied (NULL reads as ""). Never NULL. [any-thread] */
DPT_API dpt_error* dpt_error_create(dpt_code code, const char* message);
/* "invalid argument", "out of memory", ... [any-thread] */
DPT_API const char* dpt_code_name(dpt_code code);

/* ---------------------------------------------------------------- the runtime */

typedef struct dpt_runtime_options {
  uint32_t struct_size;
  const char* plugin_path;        /* extra folders, ':'-separated; may be NULL       */
  int32_t skip_default_paths;     /* nonzero: ignore DOPANT_PLUGIN_PATH, the install
                                     dir and the build tree                           */
  dpt_log_level log_level;        /* lines below it are dropped                     */
  uint32_t threads;               /* thread pool size; 0: one per core; at most 8 per
                                     core (64 at least), else DPT_INVALID_ARGUMENT     */
} dpt_runtime_options;
#define DPT_RUNTIME_OPTIONS_SIZE_1_0 DPT_STRUCT_SIZE(dpt_runtime_options, threads)
/* The defaults: the default search path, warnings and errors logged, one thread per core.
 * dpt_runtime_create reads at least up to `plugin_path`. */
#define DPT_RUNTIME_OPTIONS_INIT {DPT_RUNTIME_OPTIONS_SIZE_1_0, NULL, 0, DPT_LOG_WARN, 0}

/* Creates a runtime and loads every plugin library found on the search path: the
 * options' folders, then DOPANT_PLUGIN_PATH, then the install dir, then the build tree. A
 * library that fails to load is recorded as a load problem and skipped. */
DPT_API dpt_error* dpt_runtime_create(const dpt_runtime_options* options, dpt_runtime** out);
/* Destroys a runtime. Instances still alive are destroyed first, newest first, each with a
 * warning in the log; their dpt_plugin_instance handles stay allocated so that a later
 * dpt_plugin_instance_destroy frees them (and does nothing else), and on them
 * dpt_plugin_instance_table, _handle and _info return NULL. Then every library the runtime
 * loaded is released: where no other runtime holds it, its deinit runs. Every pointer the
 * runtime handed out (host table, plugin infos, metrics) is invalid afterwards. */
DPT_API void dpt_runtime_destroy(dpt_runtime* runtime);
/* The host table handed to workloads and embedders (metrics, memory, threads). */
DPT_API const dpt_host* dpt_runtime_host(dpt_runtime* runtime);
/* Asks running work to stop (plugins see host->is_cancelled). [any-thread] */
DPT_API void dpt_runtime_cancel(dpt_runtime* runtime);

/* ---------------------------------------------------------------- plugins */

/* Loads one plugin library by path. On error the runtime is unchanged. */
DPT_API dpt_error* dpt_runtime_load_library(dpt_runtime* runtime, const char* path);

/* Problems met while scanning the search path, one line each ("FILE: reason"), with control
 * characters escaped (\n, \x1b) so they can be printed as they are. */
DPT_API uint32_t dpt_runtime_load_problem_count(dpt_runtime* runtime);
DPT_API const char* dpt_runtime_load_problem(dpt_runtime* runtime, uint32_t index);

typedef struct dpt_plugin_info {
  uint32_t struct_size;
  const dpt_plugin_descriptor* descriptor; /* widened to this core's minor            */
  const char* library_path;
  const char* library_id;
  uint32_t library_abi_minor;
} dpt_plugin_info;
#define DPT_PLUGIN_INFO_SIZE_1_0 DPT_STRUCT_SIZE(dpt_plugin_info, library_abi_minor)

/* Plugins in load order. Pointers live as long as the runtime. */
DPT_API uint32_t dpt_runtime_plugin_count(dpt_runtime* runtime);
DPT_API const dpt_plugin_info* dpt_runtime_plugin(dpt_runtime* runtime, uint32_t index);
/* NULL when no plugin has that id. */
DPT_API const dpt_plugin_info* dpt_runtime_find_plugin(dpt_runtime* runtime, const char* id);

/* ---------------------------------------------------------------- workloads */

/* A workload drives plugin slots and reports metrics. Declaring one lets configs name it
 * in [run] workload and have their [workload] table validated against `params`. */
typedef struct dpt_workload_decl {
  uint32_t struct_size;
  const char* name;               /* "optimizer-step"                               */
  const char* description;
  const dpt_param_decl* const* params;
  uint32_t param_count;
  const char* const* slots;       /* slots it needs: "optimizer"                    */
  uint32_t slot_count;
} dpt_workload_decl;
#define DPT_WORKLOAD_DECL_SIZE_1_0 DPT_STRUCT_SIZE(dpt_workload_decl, slot_count)

/* The declaration is copied. */
DPT_API dpt_error* dpt_runtime_declare_workload(dpt_runtime* runtime, const dpt_workload_decl* decl);

/* ---------------------------------------------------------------- device */

typedef struct dpt_device_options {
  uint32_t struct_size;
  const char* kind;               /* "cpu" or "cuda"                                */
  int32_t index;                  /* GPU index for "cuda"                           */
  uint64_t memory_limit;          /* bytes of device memory allowed; 0: no limit     */
} dpt_device_options;
#define DPT_DEVICE_OPTIONS_SIZE_1_0 DPT_STRUCT_SIZE(dpt_device_options, memory_limit)
/* The CPU, no memory limit. dpt_runtime_set_device reads up to `memory_limit`. */
#define DPT_DEVICE_OPTIONS_INIT {DPT_DEVICE_OPTIONS_SIZE_1_0, "cpu", 0, 0}

/* Selects the device behind DPT_MEMORY_DEVICE and resets memory peaks. Fails with
 * DPT_UNAVAILABLE when "cuda" is asked for and no GPU (or no CUDA build) is present. Only
 * while no device or pinned host memory is allocated (DPT_INVALID_ARGUMENT otherwise). */
DPT_API dpt_error* dpt_runtime_set_device(dpt_runtime* runtime, const dpt_device_options* options);
/* Chooses the backend of the world communicator that plugins get through the host's comm
 * extension ("dopant.host.comm/1"); the world is made on first use. `backend` is a run
 * file's [run] comm (dpt_run_config_comm):
 *   "auto"  `mpi` when mpirun started the process (OMPI_COMM_WORLD_SIZE is set), `local` otherwise;
 *   "local" one rank; refused under mpirun with more than one rank (each would be rank 0);
 *   "mpi"   MPI_COMM_WORLD; outside mpirun a world of one (MPI's singleton);
 *   "nccl"  refused with DPT_UNAVAILABLE: libdopant has no NCCL world yet.
 * Fails, naming run.comm, with DPT_INVALID_ARGUMENT for an unknown backend or `local` under
 * mpirun with several ranks, DPT_FAILED_PRECONDITION once the world is made with another
 * backend (the same one again is fine). A build without MPI refuses `mpi` when the world is
 * made. Until called, "auto". */
DPT_API dpt_error* dpt_runtime_set_comm(dpt_runtime* runtime, const char* backend);
/* Resets the peak of every memory kind to its current value. */
DPT_API void dpt_runtime_reset_memory_peaks(dpt_runtime* runtime);

/* ---------------------------------------------------------------- run configuration */

/* Reads and validates a TOML run file against the loaded plugins and declared workloads.
 * On error the message lists every problem, one per line, as FILE:LINE:COLUMN: text. */
DPT_API dpt_error* dpt_run_config_load(dpt_runtime* runtime, const char* path, dpt_run_config** out);
/* The same from text; `source_name` stands for the file name in messages. */
DPT_API dpt_error* dpt_run_config_parse(dpt_runtime* runtime, const char* text,
                                        const char* source_name, dpt_run_config** out);
DPT_API void dpt_run_config_destroy(dpt_run_config* config);

/* Variants by name; index 0 is the base configuration, named "base". */
DPT_API uint32_t dpt_run_config_variant_count(const dpt_run_config* config);
DPT_API const char* dpt_run_config_variant_name(const dpt_run_config* config, uint32_t variant);
DPT_API const char* dpt_run_config_workload(const dpt_run_config* config);
DPT_API uint32_t dpt_run_config_repetitions(const dpt_run_config* config);
/* The [run] comm: "auto" (the default), "local", "mpi" or "nccl"; see dpt_runtime_set_comm. */
DPT_API const char* dpt_run_config_comm(const dpt_run_config* config);
/* The path given to dpt_run_config_load (or the `source_name` given to _parse); lives as
 * long as the config. A workload that writes files refuses to write over it. */
DPT_API const char* dpt_run_config_source(const dpt_run_config* config);
/* The validated [workload] table of a variant (defaults filled in). */
DPT_API const dpt_config* dpt_run_config_workload_params(const dpt_run_config* config, uint32_t variant);
/* The device of a variant; `out->kind` lives as long as the config. */
DPT_API void dpt_run_config_device(const dpt_run_config* config, uint32_t variant, dpt_device_options* out);
/* Plugin id of a slot in a variant, or NULL when the slot is not configured. */
DPT_API const char* dpt_run_config_slot_plugin(const dpt_run_config* config, uint32_t variant, const char* slot);
DPT_API const dpt_config* dpt_run_config_slot_params(const dpt_run_config* config, uint32_t variant, const char* slot);

/* ---------------------------------------------------------------- instances */

/* One plugin's parameters from TOML text, validated without a run file: the top-level keys
 * are the plugin's parameter names ("lr = 1e-3\nchunk = \"64MiB\""); undeclared keys fill
 * in their defaults. Problems are reported like those of a run file, every one on its own
 * line as SOURCE:LINE:COLUMN: text (`source_name` stands for the file name; NULL reads
 * "<params>"). `*out` belongs to the caller, who frees it with dpt_plugin_params_destroy; it
 * may be passed to dpt_plugin_instance_create of that plugin while the runtime lives. */
DPT_API dpt_error* dpt_plugin_params_parse(dpt_runtime* runtime, const char* plugin_id,
                                           const char* text, const char* source_name,
                                           dpt_config** out);
DPT_API void dpt_plugin_params_destroy(dpt_config* params);

/* Creates an instance of a plugin. `params` comes from a run config slot of that plugin or
 * from dpt_plugin_params_parse, or is NULL for the declared defaults; the plugin reads it
 * only during this call. */
DPT_API dpt_error* dpt_plugin_instance_create(dpt_runtime* runtime, const char* plugin_id,
                                              const dpt_config* params, dpt_plugin_instance** out);
/* The kind's function table, widened to this core's minor: cast it to the kind's struct
 * (dpt_optimizer_v1 ...). Slots the plugin did not provide are NULL. */
DPT_API const void* dpt_plugin_instance_table(const dpt_plugin_instance* instance);
/* The plugin's own handle, first argument of every table call. */
DPT_API dpt_instance* dpt_plugin_instance_handle(const dpt_plugin_instance* instance);
DPT_API const dpt_plugin_info* dpt_plugin_instance_info(const dpt_plugin_instance* instance);
/* Destroys the plugin's instance and frees the handle (see dpt_runtime_destroy for a handle
 * whose runtime is gone). */
DPT_API void dpt_plugin_instance_destroy(dpt_plugin_instance* instance);

/* ---------------------------------------------------------------- metrics */

typedef struct dpt_metric {
  uint32_t struct_size;
  const char* name;
  double value;
  const char* unit;
  dpt_better better;
} dpt_metric;
#define DPT_METRIC_SIZE_1_0 DPT_STRUCT_SIZE(dpt_metric, better)

/* Metrics reported through host->metric since the last clear, in order. metric_count takes
 * a snapshot that metric_get reads; strings live until the next count or clear. */
DPT_API uint32_t dpt_runtime_metric_count(dpt_runtime* runtime);
DPT_API void dpt_runtime_metric_get(dpt_runtime* runtime, uint32_t index, dpt_metric* out);
DPT_API void dpt_runtime_metrics_clear(dpt_runtime* runtime);

#ifdef __cplusplus
}
#endif

#endif /* DOPANT_RUNTIME_H */
