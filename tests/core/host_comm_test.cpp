// The communicator host extension as a plugin sees it: found by id through get_extension
// (minor 4), unknown ids give NULL; outside mpirun the world is one `local` rank whose
// collectives copy, split gives a rank of its own, and bad arguments are errors naming
// what is wrong. (The mpi backend's collectives are tested under mpirun in tests/comm.)
#include "host/host_services.hpp"

#include <dopant/comm.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace dopant {
namespace {

class HostComm : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr) GTEST_SKIP() << "started by mpirun: the world is mpi";
    ASSERT_GE(host.struct_size, DPT_HOST_SIZE_1_4);
    table = static_cast<const dpt_host_comm_v1*>(host.get_extension(&host, DPT_HOST_COMM));
    ASSERT_NE(table, nullptr);
    ASSERT_EQ(table->struct_size, DPT_HOST_COMM_V1_SIZE_1_5);
    ASSERT_EQ(table->world(&host, &world), nullptr);
  }
  std::string message_of(dpt_error* error) {
    const std::string text = error == nullptr ? "(no error)" : host.error_message(&host, error);
    host.error_free(&host, error);
    return text;
  }

  HostServices services{1, DPT_LOG_ERROR};
  HostContext context{&services, "test-plugin"};
  dpt_host host = make_host_table(&context);
  const dpt_host_comm_v1* table = nullptr;
  dpt_comm* world = nullptr;
};

TEST_F(HostComm, UnknownExtensionIdsGiveNull) {
  EXPECT_EQ(host.get_extension(&host, "dopant.host.comm/9"), nullptr);
  EXPECT_EQ(host.get_extension(&host, nullptr), nullptr);
}

TEST_F(HostComm, WorldOutsideMpirunIsOneLocalRankWhoseCollectivesCopy) {
  EXPECT_STREQ(table->backend(&host, world), "local");
  EXPECT_EQ(table->size(&host, world), 1u);
  EXPECT_EQ(table->rank(&host, world), 0u);
  const double in[2] = {1.25, -2};
  double out[2] = {};
  ASSERT_EQ(table->all_reduce_sum(&host, world, in, out, 2, DPT_COMM_FLOAT64), nullptr);
  EXPECT_EQ(out[1], -2);
  const uint64_t counts[1] = {sizeof in}, at[1] = {0};
  double exchanged[2] = {};
  ASSERT_EQ(table->all_to_all_v(&host, world, in, counts, at, exchanged, counts, at), nullptr);
  EXPECT_EQ(exchanged[0], 1.25);
  const uint32_t grouped[1] = {0};
  dpt_comm* sub = nullptr;
  ASSERT_EQ(table->split(&host, world, grouped, 1, &sub), nullptr);
  EXPECT_EQ(table->size(&host, sub), 1u);
  table->destroy(&host, sub);
  table->destroy(&host, world);  // the world is the core's: destroy leaves it usable
  EXPECT_EQ(table->barrier(&host, world), nullptr);
}

TEST_F(HostComm, BadArgumentsAreErrorsNamingTheProblem) {
  char byte = 0;
  dpt_error* error = table->broadcast(&host, world, &byte, 1, 3);
  EXPECT_EQ(host.error_code(&host, error), DPT_INVALID_ARGUMENT);
  EXPECT_EQ(message_of(error), "broadcast root 3 is not a rank of 1");
  EXPECT_EQ(message_of(table->all_reduce_sum(&host, world, &byte, &byte, 1, 99)), "comm: unknown data type 99");
  EXPECT_EQ(message_of(table->all_gather_v(&host, world, &byte, &byte, nullptr, nullptr)),
            "comm: a per-rank array is NULL");
  dpt_comm* sub = nullptr;
  EXPECT_EQ(message_of(table->split(&host, world, nullptr, 2, &sub)), "comm split: 1 ranks do not form groups of 2");
  EXPECT_EQ(message_of(table->barrier(&host, nullptr)), "comm: the communicator is NULL");
}

}  // namespace
}  // namespace dopant
