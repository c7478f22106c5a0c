// The backend of the runtime's world communicator, chosen by a run file's [run] comm:
// `auto` is `mpi` when mpirun started the process (OMPI_COMM_WORLD_SIZE is set) and `local`
// otherwise; `local` is one rank and is refused under mpirun with more ranks, where every
// rank would believe it is rank 0; `mpi` outside mpirun is MPI's singleton world of one;
// `nccl` is refused: libdopant loads without any CUDA library (optimizer.adamw_runs_without_
// cuda_runtime), so the NCCL backend (dopant_comm_nccl) is not linked into it, and loading it
// at run time is not done yet. What cannot work here is refused when chosen, naming
// run.comm; the world is made on first use.
#include "host_services.hpp"

#include "error.hpp"

#include <cstdlib>

namespace dopant {
namespace {

constexpr std::chrono::seconds collective_timeout{60};

// The ranks mpirun started, 0 outside mpirun.
uint32_t mpirun_world_size() {
  const char* size = std::getenv("OMPI_COMM_WORLD_SIZE");
  return size == nullptr ? 0 : static_cast<uint32_t>(std::strtoul(size, nullptr, 10));
}

std::string quoted(const std::string& backend) { return "run.comm = \"" + backend + "\""; }

}  // namespace

void HostServices::set_comm(const std::string& backend) {
  std::lock_guard<std::mutex> lock(world_lock_);
  if (backend != "auto" && backend != "local" && backend != "mpi" && backend != "nccl") {
    throw Error(DPT_INVALID_ARGUMENT,
                quoted(backend) + ": unknown backend (expected `auto`, `local`, `mpi` or `nccl`)");
  }
  if (world_ && backend != comm_backend_) {
    throw Error(DPT_FAILED_PRECONDITION, quoted(backend) + ": the world communicator is already made with " +
                                             quoted(comm_backend_));
  }
  const uint32_t ranks = mpirun_world_size();
  if (backend == "local" && ranks > 1) {
    throw Error(DPT_INVALID_ARGUMENT,
                quoted("local") + " gives every rank a world of its own, but mpirun started " + std::to_string(ranks) +
                    " ranks, each of which would be rank 0: use \"auto\" or \"mpi\"");
  }
  if (backend == "nccl") {
    throw Error(DPT_UNAVAILABLE, quoted("nccl") +
                                     ": libdopant has no NCCL world yet (it must load without CUDA libraries, and "
                                     "loading the NCCL backend at run time is not done); use \"auto\" or \"mpi\"");
  }
  comm_backend_ = backend;
}

comm::Communicator& HostServices::world_communicator() {
  std::lock_guard<std::mutex> lock(world_lock_);
  if (world_) return *world_;
  const bool mpirun = mpirun_world_size() > 0;
  if (comm_backend_ == "mpi" || (comm_backend_ == "auto" && mpirun)) {
    world_ = comm::make_mpi_world_communicator(collective_timeout);
  } else {
    world_ = comm::make_local_communicator();
  }
  return *world_;
}

}  // namespace dopant
