// The processes of one conversion: this one alone, or every rank of a communicator of the
// host (`dopant.host.comm/1`, the world of an mpirun), through which they share the output
// folder's name and agree on how it went. No networking of its own.
#pragma once

#include <dopant/comm.h>
#include <dopant/host.h>

#include <cstdint>
#include <string>

namespace dopant::megatron_hf {

class Ranks {
 public:
  // `comm` null (or `host` without the comm extension): this process alone.
  Ranks(const dpt_host* host, dpt_comm* comm);

  uint32_t rank() const { return rank_; }
  uint32_t size() const { return size_; }
  // Collectives: every rank calls them in the same order. A failed one throws sdk::Error.
  std::string broadcast(std::string text, uint32_t root);  // root's text, on every rank
  uint64_t sum(uint64_t value);                            // the sum over ranks

 private:
  const dpt_host* host_ = nullptr;
  const dpt_host_comm_v1* table_ = nullptr;
  dpt_comm* comm_ = nullptr;
  uint32_t rank_ = 0, size_ = 1;
};

}  // namespace dopant::megatron_hf
