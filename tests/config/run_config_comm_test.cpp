// The [run] comm key: the backend of the world communicator, "auto" when omitted, one of
// auto, local, mpi, nccl; anything else is refused at its line and column with the choices.
#include "fake_catalog.hpp"

#include <gtest/gtest.h>

namespace dopant::testing {
namespace {

std::string run_file_with(const std::string& comm_line) {
  return "[run]\nworkload = \"optimizer-step\"\n" + comm_line + "[optimizer]\nplugin = \"adamw\"\n";
}

TEST(RunConfigComm, OmittedIsAuto) { EXPECT_EQ(parse(run_file_with("")).comm, "auto"); }

TEST(RunConfigComm, ReadsEachBackend) {
  for (const std::string backend : {"auto", "local", "mpi", "nccl"}) {
    EXPECT_EQ(parse(run_file_with("comm = \"" + backend + "\"\n")).comm, backend);
  }
}

TEST(RunConfigComm, UnknownBackendIsRefusedWithTheChoices) {
  EXPECT_EQ(parse_error(run_file_with("comm = \"gloo\"\n")),
            "run.toml:3:8: key `comm` in `[run]`: must be one of `auto`, `local`, `mpi`, `nccl`, got `gloo`");
  EXPECT_EQ(parse_error(run_file_with("comm = \"ncl\"\n")),
            "run.toml:3:8: key `comm` in `[run]`: must be one of `auto`, `local`, `mpi`, `nccl`, got `ncl`; did you "
            "mean `nccl`?");
  EXPECT_EQ(parse_error(run_file_with("comm = 2\n")),
            "run.toml:3:8: key `comm` in `[run]`: expected one of `auto`, `local`, `mpi`, `nccl`, got integer");
}

}  // namespace
}  // namespace dopant::testing
