// The local backend: one rank, collectives copy, arguments that do not fit one rank and
// groups that do not partition it are refused.
#include <dopant/comm/communicator.hpp>

#include <gtest/gtest.h>

namespace {

using dopant::comm::CommError;
using dopant::comm::DataType;

TEST(LocalCommunicator, CollectivesOfOneRankCopy) {
  auto comm = dopant::comm::make_local_communicator();
  EXPECT_EQ(comm->size(), 1u);
  EXPECT_EQ(comm->rank(), 0u);
  const float in[3] = {1.5f, 2.5f, -3};
  float out[3] = {};
  comm->all_reduce_sum(in, out, 3, DataType::float32);
  EXPECT_EQ(out[2], -3);
  int32_t gathered[2] = {};
  const int32_t mine[2] = {4, 5};
  comm->all_gather_v(mine, gathered, {sizeof mine}, {0});
  EXPECT_EQ(gathered[1], 5);
  int32_t exchanged[2] = {};
  comm->all_to_all_v(mine, {sizeof mine}, {0}, exchanged, {sizeof mine}, {0});
  EXPECT_EQ(exchanged[0], 4);
  EXPECT_EQ(comm->split({{0}})->size(), 1u);
}

TEST(LocalCommunicator, ArgumentsForMoreRanksAreRefused) {
  auto comm = dopant::comm::make_local_communicator();
  char byte = 0;
  EXPECT_THROW(comm->all_gather_v(&byte, &byte, {1, 1}, {0, 1}), CommError);
  EXPECT_THROW(comm->broadcast(&byte, 1, 1), CommError);
  EXPECT_THROW(comm->all_to_all_v(&byte, {1}, {0}, &byte, {2}, {0}), CommError);
  EXPECT_THROW(comm->all_reduce_sum(&byte, &byte, 1, DataType::bytes), CommError);
}

TEST(LocalCommunicator, GroupsMustPartitionTheRanks) {
  EXPECT_EQ(dopant::comm::place_in_groups({{0, 2}, {1, 3}}, 3, 4).group, 1u);
  EXPECT_EQ(dopant::comm::place_in_groups({{0, 2}, {1, 3}}, 3, 4).position, 1u);
  EXPECT_THROW(dopant::comm::place_in_groups({{0, 1}, {1, 2}}, 0, 3), CommError);  // 1 twice
  EXPECT_THROW(dopant::comm::place_in_groups({{0, 1}}, 0, 3), CommError);          // 2 nowhere
  EXPECT_THROW(dopant::comm::place_in_groups({{0, 5}}, 0, 2), CommError);          // 5 too big
}

}  // namespace
