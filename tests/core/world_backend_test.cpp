// Choosing the world communicator's backend (HostServices::set_comm, a run file's
// [run] comm) outside mpirun: `local` and `auto` give one local rank; an unknown backend,
// `local` when mpirun reports several ranks, `nccl` (not in libdopant yet), and a
// change once the world is made are refused with messages naming run.comm. (`mpi` and
// `local` under a real mpirun: tests/parallel, parallel.mpi.comm_*.)
#include "error.hpp"
#include "host/host_services.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <utility>

namespace dopant {
namespace {

using Refusal = std::pair<dpt_code, std::string>;

class WorldBackend : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr) GTEST_SKIP() << "started by mpirun";
  }
  // The code and message of the Error that set_comm(backend) throws, or "(no error)".
  Refusal refusal(const std::string& backend) {
    try {
      services.set_comm(backend);
      return {DPT_OK, "(no error)"};
    } catch (const Error& e) {
      return {e.code(), e.what()};
    }
  }

  HostServices services{1, DPT_LOG_ERROR};
};

TEST_F(WorldBackend, LocalAndAutoGiveOneLocalRank) {
  services.set_comm("local");
  EXPECT_EQ(services.world_communicator().backend(), "local");
  EXPECT_EQ(services.world_communicator().size(), 1u);
  HostServices automatic{1, DPT_LOG_ERROR};
  automatic.set_comm("auto");
  EXPECT_EQ(automatic.world_communicator().backend(), "local");
}

TEST_F(WorldBackend, UnknownBackendIsRefusedNamingTheChoices) {
  EXPECT_EQ(refusal("gloo"),
            Refusal(DPT_INVALID_ARGUMENT,
                    "run.comm = \"gloo\": unknown backend (expected `auto`, `local`, `mpi` or `nccl`)"));
}

// Each of several ranks would be a world of one calling itself rank 0. The environment is
// the one mpirun gives its ranks; no MPI is started.
TEST_F(WorldBackend, LocalIsRefusedWhenMpirunStartedSeveralRanks) {
  ASSERT_EQ(setenv("OMPI_COMM_WORLD_SIZE", "3", 1), 0);
  const auto [code, message] = refusal("local");
  unsetenv("OMPI_COMM_WORLD_SIZE");
  EXPECT_EQ(code, DPT_INVALID_ARGUMENT);
  EXPECT_EQ(message, "run.comm = \"local\" gives every rank a world of its own, but mpirun started 3 ranks, each of "
                     "which would be rank 0: use \"auto\" or \"mpi\"");
}

TEST_F(WorldBackend, ChangingTheBackendOfAMadeWorldIsRefused) {
  services.set_comm("local");
  services.world_communicator();
  services.set_comm("local");  // the same again is fine
  EXPECT_EQ(refusal("mpi"),
            Refusal(DPT_FAILED_PRECONDITION,
                    "run.comm = \"mpi\": the world communicator is already made with run.comm = \"local\""));
}

// Never a silent fallback: libdopant has no NCCL world (it must load without CUDA
// libraries), and says so.
TEST_F(WorldBackend, NcclSaysWhyItCannotRun) {
  EXPECT_EQ(refusal("nccl"),
            Refusal(DPT_UNAVAILABLE, "run.comm = \"nccl\": libdopant has no NCCL world yet (it must load without CUDA "
                                     "libraries, and loading the NCCL backend at run time is not done); use \"auto\" "
                                     "or \"mpi\""));
  EXPECT_EQ(services.world_communicator().backend(), "local");  // the refused choice left "auto"
}

}  // namespace
}  // namespace dopant
