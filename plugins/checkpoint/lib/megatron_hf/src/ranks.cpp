// A conversion's ranks over the host's communicator (see ranks.hpp).
#include "dopant/megatron_hf/ranks.hpp"

#include <dopant/sdk/errors.hpp>

namespace dopant::megatron_hf {

Ranks::Ranks(const dpt_host* host, dpt_comm* comm) {
  if (host == nullptr || comm == nullptr || host->struct_size < DPT_HOST_SIZE_1_4) return;
  table_ = static_cast<const dpt_host_comm_v1*>(host->get_extension(host, DPT_HOST_COMM));
  if (table_ == nullptr) return;
  host_ = host;
  comm_ = comm;
  rank_ = table_->rank(host, comm);
  size_ = table_->size(host, comm);
}

std::string Ranks::broadcast(std::string text, uint32_t root) {
  if (size_ == 1) return text;
  uint64_t bytes = text.size();
  sdk::check(host_, table_->broadcast(host_, comm_, &bytes, sizeof bytes, root));
  text.resize(bytes);
  sdk::check(host_, table_->broadcast(host_, comm_, text.data(), bytes, root));
  return text;
}

uint64_t Ranks::sum(uint64_t value) {
  if (size_ == 1) return value;
  int64_t in = static_cast<int64_t>(value), out = 0;
  sdk::check(host_, table_->all_reduce_sum(host_, comm_, &in, &out, 1, DPT_COMM_INT64));
  return static_cast<uint64_t>(out);
}

}  // namespace dopant::megatron_hf
