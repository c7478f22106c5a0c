// Builds without MPI: the mpi backend is absent and asking for it says so.
#include <dopant/comm/communicator.hpp>

namespace dopant::comm {

std::unique_ptr<Communicator> make_mpi_world_communicator(std::chrono::milliseconds) {
  throw CommError("this dopant was built without MPI (install libopenmpi-dev and rebuild)", false);
}

}  // namespace dopant::comm
