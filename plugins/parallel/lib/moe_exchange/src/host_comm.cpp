// HostComm: the comm extension's C table with sdk errors.
#include "dopant/moe_exchange/host_comm.hpp"

#include <dopant/sdk/errors.hpp>

namespace dopant::moe_exchange {

HostComm::HostComm(const dpt_host* host, dpt_comm* comm) : host_(host), table_(nullptr), comm_(comm) {
  if (host->struct_size >= DPT_HOST_SIZE_1_4 && host->get_extension != nullptr) {
    table_ = static_cast<const dpt_host_comm_v1*>(host->get_extension(host, DPT_HOST_COMM));
  }
  if (table_ == nullptr) sdk::fail(DPT_UNIMPLEMENTED, "the host has no communicator (" DPT_HOST_COMM ")");
  if (comm_ == nullptr) sdk::check(host_, table_->world(host_, &comm_));
  rank_ = table_->rank(host_, comm_);
  size_ = table_->size(host_, comm_);
}

void HostComm::all_gather_v(const void* in, void* out, const std::vector<uint64_t>& counts,
                            const std::vector<uint64_t>& displacements) {
  sdk::check(host_, table_->all_gather_v(host_, comm_, in, out, counts.data(), displacements.data()));
}

void HostComm::all_to_all_v(const void* in, const std::vector<uint64_t>& send_counts,
                            const std::vector<uint64_t>& send_displacements, void* out,
                            const std::vector<uint64_t>& recv_counts, const std::vector<uint64_t>& recv_displacements) {
  sdk::check(host_, table_->all_to_all_v(host_, comm_, in, send_counts.data(), send_displacements.data(), out,
                                         recv_counts.data(), recv_displacements.data()));
}

void HostComm::reduce_scatter_sum(const float* in, float* out, uint64_t count) {
  sdk::check(host_, table_->reduce_scatter_sum(host_, comm_, in, out, count, DPT_COMM_FLOAT32));
}

std::vector<uint64_t> HostComm::all_gather(uint64_t value) {
  std::vector<uint64_t> values(size_);
  const std::vector<uint64_t> counts(size_, sizeof value);
  all_gather_v(&value, values.data(), counts, displacements_of(counts));
  return values;
}

std::vector<uint64_t> displacements_of(const std::vector<uint64_t>& counts) {
  std::vector<uint64_t> displacements(counts.size());
  uint64_t offset = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    displacements[i] = offset;
    offset += counts[i];
  }
  return displacements;
}

}  // namespace dopant::moe_exchange
