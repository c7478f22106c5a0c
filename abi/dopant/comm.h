/* dopant ABI — host extension "dopant.host.comm/1": the run's communicator.
 *
 * Found with `host->get_extension(host, DPT_HOST_COMM)` (minor 4; read that slot only when
 * host->struct_size >= DPT_HOST_SIZE_1_4); NULL when the core has none. Backends: `local`
 * (one rank) and `mpi` (Open MPI); from minor 6 the name `nccl` is reserved for an NCCL world
 * (device buffers), which this core refuses yet. The run file's [run] comm picks the world's
 * backend, by default `mpi` when the process was started by mpirun and `local` otherwise
 * (docs/parallelism.md). Collectives are blocking; a collective that does not
 * complete within the core's timeout returns DPT_DEADLINE_EXCEEDED instead of hanging, and
 * the communicator is unusable afterwards (docs/parallelism.md).
 *
 * Released in minor 5 with the parallel kind, whose topology takes a dpt_comm* from it
 * (promoted from "dopant.host.comm.draft/0", first offered in minor 4); its size is pinned.
 */
#ifndef DOPANT_ABI_COMM_H
#define DOPANT_ABI_COMM_H

#include "base.h"
#include "host.h"

#define DPT_HOST_COMM "dopant.host.comm/1"

typedef struct dpt_comm dpt_comm;

typedef int32_t dpt_comm_type;
enum { DPT_COMM_FLOAT32 = 0, DPT_COMM_FLOAT64 = 1, DPT_COMM_INT32 = 2, DPT_COMM_INT64 = 3, DPT_COMM_BYTES = 4 };

typedef struct dpt_host_comm_v1 {
  uint32_t struct_size;
  /* [control-thread] The run's world communicator, owned by the core (never destroy it);
   * valid until the runtime is destroyed. */
  dpt_error* (*world)(const dpt_host* host, dpt_comm** out);
  /* [any-thread] "local" or "mpi" (minor 6 reserves "nccl"), static. */
  const char* (*backend)(const dpt_host* host, const dpt_comm* comm);
  uint32_t (*rank)(const dpt_host* host, const dpt_comm* comm);
  uint32_t (*size)(const dpt_host* host, const dpt_comm* comm);
  /* [instance-thread] Collective over `comm`; every rank calls them in the same order. */
  dpt_error* (*barrier)(const dpt_host* host, dpt_comm* comm);
  /* `bytes` of `buffer` on `root` reach every rank's `buffer`. */
  dpt_error* (*broadcast)(const dpt_host* host, dpt_comm* comm, void* buffer, uint64_t bytes, uint32_t root);
  /* out[i] = sum over ranks of in[i]; `in` may equal `out`. Not for DPT_COMM_BYTES. */
  dpt_error* (*all_reduce_sum)(const dpt_host* host, dpt_comm* comm, const void* in, void* out, uint64_t count,
                               dpt_comm_type type);
  /* in [size * count]; out [count] = sum over ranks of block `rank` of in. */
  dpt_error* (*reduce_scatter_sum)(const dpt_host* host, dpt_comm* comm, const void* in, void* out, uint64_t count,
                                   dpt_comm_type type);
  /* counts and displacements [size] in bytes: rank r's counts[r] bytes land at out + displacements[r]. */
  dpt_error* (*all_gather_v)(const dpt_host* host, dpt_comm* comm, const void* in, void* out, const uint64_t* counts,
                             const uint64_t* displacements);
  /* counts and displacements [size] in bytes, per peer rank. */
  dpt_error* (*all_to_all_v)(const dpt_host* host, dpt_comm* comm, const void* in, const uint64_t* send_counts,
                             const uint64_t* send_displacements, void* out, const uint64_t* recv_counts,
                             const uint64_t* recv_displacements);
  /* Collective. `grouped_ranks` [size] lists every rank once, group after group of
   * `group_size` ranks (a layout's groups, e.g. every tp group); *out is this rank's group,
   * ranked by position in it. Owned by the caller: free with destroy. */
  dpt_error* (*split)(const dpt_host* host, dpt_comm* comm, const uint32_t* grouped_ranks, uint32_t group_size,
                      dpt_comm** out);
  /* [control-thread] Frees a communicator from split. NULL is accepted. */
  void (*destroy)(const dpt_host* host, dpt_comm* comm);
} dpt_host_comm_v1;
#define DPT_HOST_COMM_V1_SIZE_1_5 DPT_STRUCT_SIZE(dpt_host_comm_v1, destroy)
DPT_PIN_SIZE_LP64(DPT_HOST_COMM_V1_SIZE_1_5, 104);

#endif /* DOPANT_ABI_COMM_H */
