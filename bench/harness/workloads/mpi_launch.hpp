// Whether mpirun started this process, and its rank there, read from the environment
// Open MPI gives every rank. `dopant run` and `dopant ab` under `mpirun -np N` run on every
// rank and report from rank 0 only; the ranks' collectives go through the host's `mpi`
// communicator, which the core makes in the same case.
#pragma once

#include <cstdint>

namespace dopant::workloads {

bool started_by_mpirun();
// OMPI_COMM_WORLD_RANK, or 0 outside mpirun.
uint32_t mpirun_rank();

}  // namespace dopant::workloads
