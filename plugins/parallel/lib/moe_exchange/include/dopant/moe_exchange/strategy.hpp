// What the `megatron` and `wideep` plugins share: the layout and shard answers, setup (the
// topology checked, and compared between ranks), the checks of dispatch and combine
// arguments, and the exchanges in flight. A strategy supplies how tokens travel: `send`
// (dispatch's traffic and the plan of rows) and `bring_back` (combine's traffic).
#pragma once

#include "dopant/moe_exchange/exchange.hpp"
#include "dopant/moe_exchange/host_comm.hpp"
#include "dopant/moe_exchange/placement.hpp"

#include <dopant/parallel.h>
#include <dopant/sdk/config.hpp>

#include <map>
#include <memory>
#include <optional>
#include <string>

namespace dopant::moe_exchange {

// The fixed part of a setup: the checked topology and this rank's view of it.
struct Setup {
  uint32_t experts = 0;
  uint32_t top_k = 0;
  uint64_t hidden = 0;
  uint32_t ranks_per_node = 0;
  std::optional<Placement> placement;
  std::vector<int32_t> slots;             // this rank's experts, ascending
  std::vector<int32_t> slot_of_expert;    // [experts]: index into slots, or -1
};

// The checked inputs of one dispatch.
struct DispatchInput {
  uint64_t tokens;
  const float* data;      // [tokens, hidden]
  const int32_t* ids;     // [tokens, top_k]
  const float* weights;   // [tokens, top_k]
};

class Strategy {
 public:
  Strategy(const dpt_host* host, std::string name);
  virtual ~Strategy() = default;
  Strategy(const Strategy&) = delete;
  Strategy& operator=(const Strategy&) = delete;

  void layout(dpt_parallel_layout_args& args);
  void shard(dpt_parallel_shard_args& args);
  void setup(const dpt_parallel_topology& topology);
  void dispatch(dpt_dispatch_args& args, dpt_stream* stream);
  void combine(dpt_combine_args& args, dpt_stream* stream);
  void release(dpt_parallel_exchange* exchange) noexcept;

 protected:
  // Moves the tokens and fills `exchange` (rows, contributions, staging_rows and what
  // bring_back needs); returns the bytes sent to other ranks.
  virtual uint64_t send(const DispatchInput& input, dpt_parallel_exchange& exchange) = 0;
  // From the staged sums to `out` [exchange.tokens, hidden]; returns the bytes sent to
  // other ranks.
  virtual uint64_t bring_back(dpt_parallel_exchange& exchange, const std::vector<float>& staging, float* out) = 0;

  HostComm& comm() { return *comm_; }
  const Setup& fixed() const { return setup_; }

 private:
  std::unique_ptr<dpt_parallel_exchange> take(dpt_parallel_exchange* exchange);

  const dpt_host* host_;
  std::string name_;
  std::optional<HostComm> comm_;
  Setup setup_;
  std::map<dpt_parallel_exchange*, std::unique_ptr<dpt_parallel_exchange>> in_flight_;
};

}  // namespace dopant::moe_exchange
