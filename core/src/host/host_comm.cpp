// The host extension "dopant.host.comm/1": the runtime's world communicator and its
// collectives as C entry points over dopant::comm. The world's backend is chosen in
// world_communicator.cpp. Every collective gives up after the world's timeout (60 s) with
// DPT_DEADLINE_EXCEEDED.
#include "host_services.hpp"

#include "error.hpp"

#include <dopant/comm.h>

#include <cstring>

namespace dopant {
namespace {

comm::Communicator& of(dpt_comm* handle) { return *reinterpret_cast<comm::Communicator*>(handle); }
const comm::Communicator& of(const dpt_comm* handle) { return *reinterpret_cast<const comm::Communicator*>(handle); }
HostServices& services_of(const dpt_host* host) { return *static_cast<HostContext*>(host->host_data)->services; }

// Runs a collective; a timeout becomes DPT_DEADLINE_EXCEEDED, a refused argument
// DPT_INVALID_ARGUMENT, each with the communicator's message.
template <typename Body>
dpt_error* collective(dpt_comm* handle, Body body) {
  if (handle == nullptr) return make_error(DPT_INVALID_ARGUMENT, "comm: the communicator is NULL");
  try {
    body(of(handle));
    return nullptr;
  } catch (const comm::CommError& e) {
    return make_error(e.timed_out() ? DPT_DEADLINE_EXCEEDED : DPT_INVALID_ARGUMENT, e.what());
  } catch (const std::exception& e) {
    return make_error(DPT_INTERNAL, e.what());
  }
}

std::vector<size_t> per_rank(const uint64_t* values, uint32_t size) {
  if (values == nullptr) throw comm::CommError("comm: a per-rank array is NULL", false);
  return std::vector<size_t>(values, values + size);
}

comm::DataType data_type(dpt_comm_type type) {
  if (type < DPT_COMM_FLOAT32 || type > DPT_COMM_BYTES) {
    throw comm::CommError("comm: unknown data type " + std::to_string(type), false);
  }
  return static_cast<comm::DataType>(type);
}

dpt_error* comm_world(const dpt_host* host, dpt_comm** out) {
  if (out == nullptr) return make_error(DPT_INVALID_ARGUMENT, "comm world: `out` is NULL");
  return guard([&] { *out = reinterpret_cast<dpt_comm*>(&services_of(host).world_communicator()); });
}
const char* comm_backend(const dpt_host*, const dpt_comm* handle) {
  if (handle == nullptr) return "";
  const std::string backend = of(handle).backend();
  return backend == "mpi" ? "mpi" : backend == "nccl" ? "nccl" : "local";
}
uint32_t comm_rank(const dpt_host*, const dpt_comm* handle) { return handle == nullptr ? 0 : of(handle).rank(); }
uint32_t comm_size(const dpt_host*, const dpt_comm* handle) { return handle == nullptr ? 0 : of(handle).size(); }
dpt_error* comm_barrier(const dpt_host*, dpt_comm* handle) {
  return collective(handle, [&](comm::Communicator& c) { c.barrier(); });
}
dpt_error* comm_broadcast(const dpt_host*, dpt_comm* handle, void* buffer, uint64_t bytes, uint32_t root) {
  return collective(handle, [&](comm::Communicator& c) { c.broadcast(buffer, bytes, root); });
}
dpt_error* comm_all_reduce_sum(const dpt_host*, dpt_comm* handle, const void* in, void* out, uint64_t count,
                               dpt_comm_type type) {
  return collective(handle, [&](comm::Communicator& c) { c.all_reduce_sum(in, out, count, data_type(type)); });
}
dpt_error* comm_reduce_scatter_sum(const dpt_host*, dpt_comm* handle, const void* in, void* out, uint64_t count,
                                   dpt_comm_type type) {
  return collective(handle, [&](comm::Communicator& c) { c.reduce_scatter_sum(in, out, count, data_type(type)); });
}
dpt_error* comm_all_gather_v(const dpt_host*, dpt_comm* handle, const void* in, void* out, const uint64_t* counts,
                             const uint64_t* displacements) {
  return collective(handle, [&](comm::Communicator& c) {
    c.all_gather_v(in, out, per_rank(counts, c.size()), per_rank(displacements, c.size()));
  });
}
dpt_error* comm_all_to_all_v(const dpt_host*, dpt_comm* handle, const void* in, const uint64_t* send_counts,
                             const uint64_t* send_displacements, void* out, const uint64_t* recv_counts,
                             const uint64_t* recv_displacements) {
  return collective(handle, [&](comm::Communicator& c) {
    c.all_to_all_v(in, per_rank(send_counts, c.size()), per_rank(send_displacements, c.size()), out,
                   per_rank(recv_counts, c.size()), per_rank(recv_displacements, c.size()));
  });
}
dpt_error* comm_split(const dpt_host*, dpt_comm* handle, const uint32_t* grouped_ranks, uint32_t group_size,
                      dpt_comm** out) {
  if (out == nullptr) return make_error(DPT_INVALID_ARGUMENT, "comm split: `out` is NULL");
  return collective(handle, [&](comm::Communicator& c) {
    if (grouped_ranks == nullptr || group_size == 0 || c.size() % group_size != 0) {
      throw comm::CommError("comm split: " + std::to_string(c.size()) + " ranks do not form groups of " +
                                std::to_string(group_size),
                            false);
    }
    std::vector<layout::RankGroup> groups;
    for (uint32_t start = 0; start < c.size(); start += group_size) {
      groups.emplace_back(grouped_ranks + start, grouped_ranks + start + group_size);
    }
    *out = reinterpret_cast<dpt_comm*>(c.split(groups).release());
  });
}
void comm_destroy(const dpt_host* host, dpt_comm* handle) {
  if (handle != nullptr && handle != reinterpret_cast<dpt_comm*>(&services_of(host).world_communicator())) {
    delete &of(handle);
  }
}

const dpt_host_comm_v1 comm_table = {
    DPT_HOST_COMM_V1_SIZE_1_5, comm_world,         comm_backend,      comm_rank,      comm_size,
    comm_barrier,            comm_broadcast,     comm_all_reduce_sum, comm_reduce_scatter_sum,
    comm_all_gather_v,       comm_all_to_all_v,  comm_split,        comm_destroy};

}  // namespace

const void* host_extension(const char* id) {
  if (id != nullptr && std::strcmp(id, DPT_HOST_COMM) == 0) return &comm_table;
  return nullptr;
}

}  // namespace dopant
