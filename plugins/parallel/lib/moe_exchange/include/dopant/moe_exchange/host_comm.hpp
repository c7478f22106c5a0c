// The host's communicator as the parallel plugins use it: the comm extension's C table
// (dopant.host.comm/1) behind methods that throw sdk::Error with the host's message,
// counts and displacements in bytes as std::vector<uint64_t>.
#pragma once

#include <dopant/comm.h>

#include <cstdint>
#include <vector>

namespace dopant::moe_exchange {

class HostComm {
 public:
  // `comm` NULL: the run's world. Throws DPT_UNIMPLEMENTED when the host has no comm extension.
  HostComm(const dpt_host* host, dpt_comm* comm);

  uint32_t rank() const { return rank_; }
  uint32_t size() const { return size_; }

  void all_gather_v(const void* in, void* out, const std::vector<uint64_t>& counts,
                    const std::vector<uint64_t>& displacements);
  void all_to_all_v(const void* in, const std::vector<uint64_t>& send_counts,
                    const std::vector<uint64_t>& send_displacements, void* out,
                    const std::vector<uint64_t>& recv_counts, const std::vector<uint64_t>& recv_displacements);
  // in [size * count] fp32; out [count] = sum over ranks of block rank() of in.
  void reduce_scatter_sum(const float* in, float* out, uint64_t count);
  // Every rank's `value`, by rank.
  std::vector<uint64_t> all_gather(uint64_t value);

 private:
  const dpt_host* host_;
  const dpt_host_comm_v1* table_;
  dpt_comm* comm_;
  uint32_t rank_ = 0;
  uint32_t size_ = 1;
};

// Byte displacements of consecutive blocks of `counts` bytes.
std::vector<uint64_t> displacements_of(const std::vector<uint64_t>& counts);

}  // namespace dopant::moe_exchange
