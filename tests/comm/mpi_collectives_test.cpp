// Every collective of the mpi backend against a reference computed in the test: rank r
// contributes values that depend on r only, so each rank can compute what the sum, gather
// or exchange must give without communicating. Runs under `mpirun -np 1, 2, 4`
// (tests/comm/CMakeLists.txt); the world size is checked against Open MPI's own
// OMPI_COMM_WORLD_SIZE.
#include <dopant/comm/communicator.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <numeric>

namespace {

using dopant::comm::Communicator;
using dopant::comm::DataType;

Communicator* world = nullptr;

float value(uint32_t rank, size_t i) { return static_cast<float>(rank * 1000 + i) + 0.5f; }

TEST(MpiCollectives, RankAndSizeAreOpenMpisOwn) {
  const char* size = std::getenv("OMPI_COMM_WORLD_SIZE");
  const char* rank = std::getenv("OMPI_COMM_WORLD_RANK");
  ASSERT_NE(size, nullptr) << "not started by mpirun";
  EXPECT_EQ(world->size(), static_cast<uint32_t>(std::atoi(size)));
  EXPECT_EQ(world->rank(), static_cast<uint32_t>(std::atoi(rank)));
  EXPECT_EQ(world->backend(), "mpi");
  world->barrier();
}

TEST(MpiCollectives, BroadcastFromTheLastRank) {
  const uint32_t root = world->size() - 1;
  std::vector<int64_t> data(37, world->rank() == root ? 7 : -1);
  if (world->rank() == root) std::iota(data.begin(), data.end(), 100);
  world->broadcast(data.data(), data.size() * sizeof(int64_t), root);
  for (size_t i = 0; i < data.size(); ++i) EXPECT_EQ(data[i], static_cast<int64_t>(100 + i)) << i;
}

TEST(MpiCollectives, AllReduceSumsEveryType) {
  const size_t n = 1000;
  std::vector<float> in(n), out(n);
  std::vector<double> in64(n);
  std::vector<int64_t> ints(n);
  for (size_t i = 0; i < n; ++i) {
    in[i] = value(world->rank(), i);
    in64[i] = value(world->rank(), i) * 0.25;
    ints[i] = static_cast<int64_t>(world->rank()) << 33;
  }
  world->all_reduce_sum(in.data(), out.data(), n, DataType::float32);
  world->all_reduce_sum(in64.data(), in64.data(), n, DataType::float64);  // in place
  world->all_reduce_sum(ints.data(), ints.data(), n, DataType::int64);
  for (size_t i = 0; i < n; ++i) {
    double expected = 0;
    int64_t expected_int = 0;
    for (uint32_t r = 0; r < world->size(); ++r) {
      expected += value(r, i);
      expected_int += static_cast<int64_t>(r) << 33;
    }
    ASSERT_EQ(out[i], static_cast<float>(expected)) << i;  // every partial sum is exact in fp32
    ASSERT_EQ(in64[i], expected * 0.25) << i;
    ASSERT_EQ(ints[i], expected_int) << i;
  }
}

TEST(MpiCollectives, ReduceScatterGivesEachRankItsBlockOfTheSum) {
  const size_t block = 5;
  std::vector<int32_t> in(block * world->size()), out(block);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<int32_t>(world->rank() * 100 + i);
  world->reduce_scatter_sum(in.data(), out.data(), block, DataType::int32);
  for (size_t i = 0; i < block; ++i) {
    int32_t expected = 0;
    for (uint32_t r = 0; r < world->size(); ++r) expected += static_cast<int32_t>(r * 100 + world->rank() * block + i);
    EXPECT_EQ(out[i], expected) << i;
  }
}

TEST(MpiCollectives, AllGatherVPlacesEachRanksShare) {
  // Rank r contributes r + 1 floats; the output has them back to back.
  std::vector<size_t> counts, displacements;
  size_t total = 0;
  for (uint32_t r = 0; r < world->size(); ++r) {
    counts.push_back((r + 1) * sizeof(float));
    displacements.push_back(total * sizeof(float));
    total += r + 1;
  }
  std::vector<float> in(world->rank() + 1), out(total, -1);
  for (size_t i = 0; i < in.size(); ++i) in[i] = value(world->rank(), i);
  world->all_gather_v(in.data(), out.data(), counts, displacements);
  for (uint32_t r = 0; r < world->size(); ++r) {
    for (size_t i = 0; i <= r; ++i) EXPECT_EQ(out[displacements[r] / sizeof(float) + i], value(r, i)) << r << " " << i;
  }
}

TEST(MpiCollectives, AllToAllVDeliversEachPairsMessage) {
  // Rank s sends s + d + 1 int32 values, each s * 100 + d, to rank d.
  const uint32_t me = world->rank(), n = world->size();
  std::vector<size_t> send_counts, send_at, recv_counts, recv_at;
  std::vector<int32_t> in;
  size_t received = 0;
  for (uint32_t d = 0; d < n; ++d) {
    send_at.push_back(in.size() * sizeof(int32_t));
    in.insert(in.end(), me + d + 1, static_cast<int32_t>(me * 100 + d));
    send_counts.push_back((me + d + 1) * sizeof(int32_t));
    recv_at.push_back(received * sizeof(int32_t));
    recv_counts.push_back((d + me + 1) * sizeof(int32_t));
    received += d + me + 1;
  }
  std::vector<int32_t> out(received, -1);
  world->all_to_all_v(in.data(), send_counts, send_at, out.data(), recv_counts, recv_at);
  for (uint32_t s = 0; s < n; ++s) {
    for (size_t i = 0; i < s + me + 1; ++i) {
      EXPECT_EQ(out[recv_at[s] / sizeof(int32_t) + i], static_cast<int32_t>(s * 100 + me)) << s << " " << i;
    }
  }
}

TEST(MpiCollectives, SplitFollowsTheLayoutsGroups) {
  dopant::layout::ParallelSizes sizes;
  sizes.world = world->size();
  sizes.tp = world->size() % 2 == 0 ? 2 : 1;
  const auto layouts = dopant::layout::make_rank_layouts(sizes);
  for (const char* names : {"tp", "dp"}) {
    const dopant::layout::RankGroup group = layouts.dense.group_of(world->rank(), names);
    std::unique_ptr<Communicator> sub = world->split(layouts.dense.groups(names));
    ASSERT_EQ(sub->size(), group.size()) << names;
    EXPECT_EQ(group[sub->rank()], world->rank()) << names;
    int64_t mine = world->rank(), sum = 0;
    sub->all_reduce_sum(&mine, &sum, 1, DataType::int64);
    EXPECT_EQ(sum, std::accumulate(group.begin(), group.end(), int64_t{0})) << names;
  }
}

TEST(MpiCollectives, BadArgumentsAreRefusedBeforeAnyTraffic) {
  std::vector<size_t> too_few(world->size() + 1, 0);
  char byte = 0;
  EXPECT_THROW(world->all_gather_v(&byte, &byte, too_few, too_few), dopant::comm::CommError);
  EXPECT_THROW(world->broadcast(&byte, 1, world->size()), dopant::comm::CommError);
  EXPECT_THROW(world->all_reduce_sum(&byte, &byte, 1, DataType::bytes), dopant::comm::CommError);
  world->barrier();  // still usable
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  std::unique_ptr<Communicator> communicator = dopant::comm::make_mpi_world_communicator(std::chrono::seconds(20));
  world = communicator.get();
  if (world->rank() != 0) ::testing::GTEST_FLAG(brief) = true;  // only rank 0 lists passes
  const int failed = RUN_ALL_TESTS();
  communicator.reset();
  return failed;
}
