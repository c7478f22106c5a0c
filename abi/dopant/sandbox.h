/* dopant ABI — kind "dopant.sandbox/1": isolated execution of tool calls.
 *
 * An instance is a pool of boxes, created from the plugin's config. A caller acquires a box,
 * puts files into its workspace, runs commands in it, gets files back, resets it to an empty
 * workspace, and releases it to the pool. Boxes are independent: many boxes may be used from
 * many threads at once. Calls on one box are serialized by the caller (one call at a time per
 * box); every slot below except create and destroy is [any-thread] under that rule.
 *
 * Paths given to put, get and exec's cwd are relative to the box's workspace. A path that is
 * absolute, holds a ".." component, or crosses a symbolic link is refused with
 * DPT_PERMISSION_DENIED, whatever the box has planted in its workspace.
 *
 * Output buffers (exec's stdout and stderr, get's data) belong to the box. They stay valid
 * until the next call on that box (exec, put, get, reset, release) and are never freed by the
 * caller. After a failed call (an error returned) every output pointer is NULL.
 *
 * Released in minor 4 (promoted from "dopant.sandbox.draft/0" with the `spawn` and `pbox`
 * plugins); every size is pinned. Callers fill the args from the DPT_SANDBOX_*_INIT macros.
 */
#ifndef DOPANT_ABI_SANDBOX_H
#define DOPANT_ABI_SANDBOX_H

#include "base.h"
#include "host.h"

#define DPT_KIND_SANDBOX "dopant.sandbox/1"

/* A box of a pool, owned by the instance; valid from acquire until release. */
typedef struct dpt_sandbox_box dpt_sandbox_box;

typedef struct dpt_sandbox_acquire_args {
  uint32_t struct_size;
  const dpt_extension* next;
  dpt_sandbox_box* box;           /* out: a box with an empty workspace                */
} dpt_sandbox_acquire_args;
#define DPT_SANDBOX_ACQUIRE_ARGS_SIZE_1_4 DPT_STRUCT_SIZE(dpt_sandbox_acquire_args, box)
DPT_PIN_SIZE_LP64(DPT_SANDBOX_ACQUIRE_ARGS_SIZE_1_4, 24);
#define DPT_SANDBOX_ACQUIRE_ARGS_INIT {DPT_SANDBOX_ACQUIRE_ARGS_SIZE_1_4, NULL, NULL}

/* For release and reset: the box is the only input. */
typedef struct dpt_sandbox_box_args {
  uint32_t struct_size;
  const dpt_extension* next;
  dpt_sandbox_box* box;
} dpt_sandbox_box_args;
#define DPT_SANDBOX_BOX_ARGS_SIZE_1_4 DPT_STRUCT_SIZE(dpt_sandbox_box_args, box)
DPT_PIN_SIZE_LP64(DPT_SANDBOX_BOX_ARGS_SIZE_1_4, 24);
#define DPT_SANDBOX_BOX_ARGS_INIT {DPT_SANDBOX_BOX_ARGS_SIZE_1_4, NULL, NULL}

typedef struct dpt_sandbox_exec_args {
  uint32_t struct_size;
  const dpt_extension* next;
  dpt_sandbox_box* box;
  const char* const* argv;        /* NULL-terminated; argv[0] a path, or a name looked up
                                     in the PATH of env                                */
  const char* const* env;         /* NULL-terminated "NAME=value"; NULL: the plugin's
                                     default (PATH, HOME and TMPDIR)                    */
  const char* cwd;                /* relative to the workspace; NULL: the workspace    */
  const void* stdin_data;         /* standard input, may be NULL                       */
  uint64_t stdin_bytes;
  uint64_t timeout_ms;            /* 0: the plugin's configured default                */
  /* ---- outputs: stdout_data and stderr_data live until the next call on the box ---- */
  int32_t exit_code;              /* out: -1 when ended by a signal                     */
  int32_t signal;                 /* out: the signal that ended it, else 0              */
  uint32_t timed_out;             /* out: 1 when killed at the timeout                  */
  uint32_t killed_for_memory;     /* out: 1 when killed by the box's memory limit       */
  uint32_t stdout_truncated;      /* out: 1 when stdout passed the configured cap       */
  uint32_t stderr_truncated;      /* out: 1 when stderr passed the configured cap       */
  const void* stdout_data;        /* out: owned by the box                              */
  uint64_t stdout_bytes;          /* out                                                */
  const void* stderr_data;        /* out: owned by the box                              */
  uint64_t stderr_bytes;          /* out                                                */
  uint64_t wall_ns;               /* out: from the call to its result                   */
} dpt_sandbox_exec_args;
#define DPT_SANDBOX_EXEC_ARGS_SIZE_1_4 DPT_STRUCT_SIZE(dpt_sandbox_exec_args, wall_ns)
DPT_PIN_SIZE_LP64(DPT_SANDBOX_EXEC_ARGS_SIZE_1_4, 136);
/* No box, no command, the default environment, cwd and timeout; outputs cleared. */
#define DPT_SANDBOX_EXEC_ARGS_INIT \
  {DPT_SANDBOX_EXEC_ARGS_SIZE_1_4, NULL, NULL, NULL, NULL, NULL, NULL, 0, 0, -1, 0, 0, 0, 0, 0, NULL, 0, NULL, 0, 0}

typedef struct dpt_sandbox_put_args {
  uint32_t struct_size;
  const dpt_extension* next;
  dpt_sandbox_box* box;
  const char* path;               /* relative to the workspace; folders must exist     */
  const void* data;               /* the file's bytes, borrowed during the call        */
  uint64_t bytes;
  uint32_t mode;                  /* permission bits; 0: 0644                           */
} dpt_sandbox_put_args;
#define DPT_SANDBOX_PUT_ARGS_SIZE_1_4 DPT_STRUCT_SIZE(dpt_sandbox_put_args, mode)
DPT_PIN_SIZE_LP64(DPT_SANDBOX_PUT_ARGS_SIZE_1_4, 52);
#define DPT_SANDBOX_PUT_ARGS_INIT {DPT_SANDBOX_PUT_ARGS_SIZE_1_4, NULL, NULL, NULL, NULL, 0, 0}

typedef struct dpt_sandbox_get_args {
  uint32_t struct_size;
  const dpt_extension* next;
  dpt_sandbox_box* box;
  const char* path;               /* relative to the workspace                         */
  const void* data;               /* out: the file's bytes, owned by the box            */
  uint64_t bytes;                 /* out                                                */
} dpt_sandbox_get_args;
#define DPT_SANDBOX_GET_ARGS_SIZE_1_4 DPT_STRUCT_SIZE(dpt_sandbox_get_args, bytes)
DPT_PIN_SIZE_LP64(DPT_SANDBOX_GET_ARGS_SIZE_1_4, 48);
#define DPT_SANDBOX_GET_ARGS_INIT {DPT_SANDBOX_GET_ARGS_SIZE_1_4, NULL, NULL, NULL, NULL, 0}

/* What a box's isolation enforces on this machine, as bits of dpt_sandbox_stats.enforced. */
enum {
  DPT_SANDBOX_USER_NS = 1u << 0,       /* own user namespace, unprivileged on the host  */
  DPT_SANDBOX_PID_NS = 1u << 1,        /* sees only its own processes                   */
  DPT_SANDBOX_MOUNT_NS = 1u << 2,      /* read-only root of configured binds            */
  DPT_SANDBOX_NET_NS = 1u << 3,        /* loopback only                                 */
  DPT_SANDBOX_IPC_NS = 1u << 4,
  DPT_SANDBOX_UTS_NS = 1u << 5,
  DPT_SANDBOX_CGROUP_NS = 1u << 6,
  DPT_SANDBOX_SECCOMP = 1u << 7,       /* denies mount, ptrace, bpf, unshare, ...       */
  DPT_SANDBOX_NO_NEW_PRIVS = 1u << 8,
  DPT_SANDBOX_RLIMITS = 1u << 9,       /* address space, cpu, file size, files, procs   */
  DPT_SANDBOX_WORKSPACE_CAP = 1u << 10, /* the workspace's total size is capped         */
  DPT_SANDBOX_CGROUP_MEMORY = 1u << 11, /* memory limit of the box as a whole           */
  DPT_SANDBOX_CGROUP_PIDS = 1u << 12,   /* process limit of the box as a whole          */
  DPT_SANDBOX_GVISOR = 1u << 13         /* runs inside gVisor (runsc)                    */
};

typedef struct dpt_sandbox_stats {
  uint32_t struct_size;
  uint32_t enforced;              /* out: DPT_SANDBOX_* bits                            */
  uint64_t boxes_started;         /* out: isolated processes started for boxes          */
  uint64_t boxes_in_use;          /* out: acquired and not yet released                 */
  uint64_t boxes_idle;            /* out: warm, waiting in the pool                     */
  uint64_t boxes_replaced;        /* out: killed for misbehaving and started again      */
  uint64_t execs;                 /* out: exec calls that ran a command                 */
  uint64_t timeouts;              /* out: commands killed at their timeout              */
} dpt_sandbox_stats;
#define DPT_SANDBOX_STATS_SIZE_1_4 DPT_STRUCT_SIZE(dpt_sandbox_stats, timeouts)
DPT_PIN_SIZE_LP64(DPT_SANDBOX_STATS_SIZE_1_4, 56);
#define DPT_SANDBOX_STATS_INIT {DPT_SANDBOX_STATS_SIZE_1_4, 0, 0, 0, 0, 0, 0, 0}

/* Every slot is required, and the loader refuses a library whose table leaves one NULL,
 * except the slots marked Optional (NULL there: the plugin does not provide it). */
typedef struct dpt_sandbox_v1 {
  uint32_t struct_size;
  /* [control-thread] Creates the pool; a plugin may start warm boxes here. */
  dpt_error* (*create)(const dpt_host* host, const dpt_config* config, dpt_instance** out);
  /* [control-thread] Ends every box, released or not. NULL is accepted. */
  void (*destroy)(dpt_instance* instance);
  /* [any-thread] Takes a box from the pool, starting one when none is idle. */
  dpt_error* (*acquire)(dpt_instance* instance, dpt_sandbox_acquire_args* args);
  /* [any-thread] Gives the box back; its workspace is wiped before anyone gets it again. */
  dpt_error* (*release)(dpt_instance* instance, const dpt_sandbox_box_args* args);
  /* [any-thread] Runs one command in the box. A command that runs past its timeout is
   * killed with every process it started and reported with timed_out = 1 (not an error);
   * an error means the command could not be run at all. */
  dpt_error* (*exec)(dpt_instance* instance, dpt_sandbox_exec_args* args);
  /* [any-thread] Writes a file into the workspace, replacing one of that name. */
  dpt_error* (*put)(dpt_instance* instance, const dpt_sandbox_put_args* args);
  /* [any-thread] Reads a regular file of the workspace. */
  dpt_error* (*get)(dpt_instance* instance, dpt_sandbox_get_args* args);
  /* [any-thread] Kills whatever the box still runs and empties its workspace. */
  dpt_error* (*reset)(dpt_instance* instance, const dpt_sandbox_box_args* args);
  /* [any-thread] Fills `out` up to its struct_size. */
  dpt_error* (*stats)(dpt_instance* instance, dpt_sandbox_stats* out);
} dpt_sandbox_v1;
#define DPT_SANDBOX_V1_SIZE_1_4 DPT_STRUCT_SIZE(dpt_sandbox_v1, stats)
DPT_PIN_SIZE_LP64(DPT_SANDBOX_V1_SIZE_1_4, 80);
/* Leading designator of a plugin's static table: {DPT_SANDBOX_V1_FIELDS, .create = ...}. */
#define DPT_SANDBOX_V1_FIELDS .struct_size = sizeof(dpt_sandbox_v1)

#endif /* DOPANT_ABI_SANDBOX_H */
