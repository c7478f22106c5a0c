// The communicator host extension under mpirun, as a plugin sees it: the world is `mpi`
// with Open MPI's rank and size, an all-reduce through the C table equals the sum each
// rank computes alone, and split into the ranks' pairs gives sub-communicators of 2.
// Exits nonzero on the first mismatch, naming it.
#include "host/host_services.hpp"

#include <dopant/comm.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

int fail(uint32_t rank, const char* what) {
  std::fprintf(stderr, "rank %u: %s\n", rank, what);
  return 1;
}

}  // namespace

int main() {
  dopant::HostServices services{1, DPT_LOG_ERROR};
  dopant::HostContext context{&services, "test-plugin"};
  const dpt_host host = dopant::make_host_table(&context);
  const auto* table = static_cast<const dpt_host_comm_v1*>(host.get_extension(&host, DPT_HOST_COMM));
  dpt_comm* world = nullptr;
  if (table == nullptr || table->world(&host, &world) != nullptr) return fail(0, "no world communicator");
  const uint32_t rank = table->rank(&host, world), size = table->size(&host, world);
  if (std::string(table->backend(&host, world)) != "mpi") return fail(rank, "backend is not mpi");
  if (size != static_cast<uint32_t>(std::atoi(std::getenv("OMPI_COMM_WORLD_SIZE")))) return fail(rank, "wrong size");

  std::vector<int64_t> values(100), sums(100);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<int64_t>(rank * 7 + i);
  if (table->all_reduce_sum(&host, world, values.data(), sums.data(), values.size(), DPT_COMM_INT64) != nullptr) {
    return fail(rank, "all_reduce_sum failed");
  }
  for (size_t i = 0; i < sums.size(); ++i) {
    int64_t expected = 0;
    for (uint32_t r = 0; r < size; ++r) expected += static_cast<int64_t>(r * 7 + i);
    if (sums[i] != expected) return fail(rank, "all_reduce_sum differs from the reference");
  }

  // Pairs {0, 1}, {2, 3}, ... flattened group after group.
  std::vector<uint32_t> grouped(size);
  for (uint32_t r = 0; r < size; ++r) grouped[r] = r;
  dpt_comm* pair = nullptr;
  if (table->split(&host, world, grouped.data(), 2, &pair) != nullptr) return fail(rank, "split failed");
  if (table->size(&host, pair) != 2 || table->rank(&host, pair) != rank % 2) return fail(rank, "wrong pair");
  table->destroy(&host, pair);
  return 0;
}
