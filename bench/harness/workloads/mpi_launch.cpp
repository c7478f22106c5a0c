// started_by_mpirun and mpirun_rank from Open MPI's environment.
#include "mpi_launch.hpp"

#include <cstdlib>

namespace dopant::workloads {

bool started_by_mpirun() { return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr; }

uint32_t mpirun_rank() {
  const char* rank = std::getenv("OMPI_COMM_WORLD_RANK");
  return rank == nullptr ? 0 : static_cast<uint32_t>(std::strtoul(rank, nullptr, 10));
}

}  // namespace dopant::workloads
