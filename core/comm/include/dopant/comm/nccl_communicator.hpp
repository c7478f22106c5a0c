// The `nccl` backend of dopant::comm::Communicator, built when CMake finds CUDA and NCCL
// (library dopant_comm_nccl). Buffers are device memory of the communicator's GPU; the
// collectives are NCCL's, run on the communicator's own stream, and waited for by polling
// the stream and ncclCommGetAsyncError until they complete or the timeout passes, when the
// communicator is aborted (ncclCommAbort) and throws CommError with `timed_out` set.
// The ranks find each other through a bootstrap communicator (the `mpi` world, or `local`
// for one rank), which carries NCCL's unique id from rank 0.
#pragma once

#include <dopant/comm/communicator.hpp>

#include <chrono>
#include <memory>

namespace dopant::comm {

// A communicator over the same ranks as `bootstrap`, each on CUDA device `device`.
// Collective over `bootstrap`. Throws CommError naming the CUDA or NCCL failure.
std::unique_ptr<Communicator> make_nccl_communicator(Communicator& bootstrap, int device,
                                                     std::chrono::milliseconds timeout);

// CUDA devices visible to this process (0 when there is no driver or no GPU).
int cuda_device_count();

}  // namespace dopant::comm
