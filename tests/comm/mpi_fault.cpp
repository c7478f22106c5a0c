// A rank lost in the middle of a job, while the others enter an all-reduce with a 2-second
// timeout. `exit`: rank 1 leaves without MPI_Finalize; mpirun notices and ends the job.
// `stall`: rank 1 stays alive but never joins; the others' watchdog must report the
// timeout (exit 3). Either way no rank hangs (tests/comm/CMakeLists.txt checks the time
// and the message).
#include <dopant/comm/communicator.hpp>

#include <unistd.h>

#include <cstdio>
#include <cstring>

int main(int argc, char** argv) {
  const bool stall = argc == 2 && std::strcmp(argv[1], "stall") == 0;
  auto world = dopant::comm::make_mpi_world_communicator(std::chrono::seconds(2));
  world->barrier();
  if (world->rank() == 1) {
    if (stall) sleep(20);
    _exit(0);
  }
  float data[4] = {1, 2, 3, 4};
  try {
    world->all_reduce_sum(data, data, 4, dopant::comm::DataType::float32);
  } catch (const dopant::comm::CommError& e) {
    std::fprintf(stderr, "rank %u failed as it should: %s\n", world->rank(), e.what());
    std::fflush(stderr);
    _exit(3);
  }
  std::fprintf(stderr, "rank %u: all_reduce_sum completed without rank 1\n", world->rank());
  return 0;
}
