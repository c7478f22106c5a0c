// Strategy: setup, the argument checks of dispatch and combine, the exchanges in flight.
#include "dopant/moe_exchange/strategy.hpp"

#include "dopant/moe_exchange/layout_answers.hpp"

#include <dopant/sdk/errors.hpp>
#include <dopant/sdk/tensors.hpp>

#include <cstring>

namespace dopant::moe_exchange {
namespace {

// Throws unless `t` is a compact CPU tensor of `dtype` shaped [rows, columns] (rows any
// when `rows` is negative). Names the tensor and what is wrong.
void expect_matrix(const DLTensor* t, const char* name, DLDataType dtype, int64_t rows, int64_t columns) {
  const std::string what = std::string(name);
  sdk::require(t != nullptr, what + " is NULL");
  if (t->device.device_type != kDLCPU) sdk::fail(DPT_UNIMPLEMENTED, what + ": only CPU tensors are exchanged");
  sdk::require(sdk::same_dtype(t->dtype, dtype), what + " must be " + sdk::dtype_name(dtype) + ", not " +
                                                      sdk::dtype_name(t->dtype));
  sdk::require(t->ndim == 2 && (rows < 0 || t->shape[0] == rows) && t->shape[1] == columns,
               what + " must be [" + (rows < 0 ? std::string("tokens") : std::to_string(rows)) + ", " +
                   std::to_string(columns) + "], not " + sdk::shape_string(*t));
  sdk::require(sdk::is_contiguous(*t), what + " must be compact row-major");
}

// The topology fields every rank must agree on, in the order the refusal names them.
constexpr const char* kAgreedFields[] = {"strategy", "num_experts", "top_k", "hidden", "ranks_per_node", "placement"};

}  // namespace

Strategy::Strategy(const dpt_host* host, std::string name) : host_(host), name_(std::move(name)) {}

void Strategy::layout(dpt_parallel_layout_args& args) { answer_layout(args); }
void Strategy::shard(dpt_parallel_shard_args& args) { answer_shard(args); }

void Strategy::setup(const dpt_parallel_topology& topology) {
  sdk::require(in_flight_.empty(), "setup: exchanges are still in flight");
  sdk::require(topology.num_experts >= 1 && topology.top_k >= 1 && topology.top_k <= topology.num_experts,
               "topology: need 1 <= top_k <= num_experts, have top_k " + std::to_string(topology.top_k) +
                   " and num_experts " + std::to_string(topology.num_experts));
  sdk::require(topology.hidden >= 1, "topology: hidden must be at least 1");
  comm_.emplace(host_, topology.comm);
  Setup fixed;
  fixed.experts = topology.num_experts;
  fixed.top_k = topology.top_k;
  fixed.hidden = topology.hidden;
  fixed.ranks_per_node = topology.ranks_per_node;
  fixed.placement = Placement::of_topology(topology, comm_->size());

  // Every rank must hold the same topology: gather each field from every rank and name
  // the first that differs, on every rank alike.
  const uint64_t mine[] = {fnv1a(name_.data(), name_.size()), fixed.experts, fixed.top_k, fixed.hidden, fixed.ranks_per_node,
                           fixed.placement->fingerprint()};
  constexpr size_t fields = std::size(mine);
  std::vector<uint64_t> all(fields * comm_->size());
  const std::vector<uint64_t> counts(comm_->size(), sizeof mine);
  comm_->all_gather_v(mine, all.data(), counts, displacements_of(counts));
  for (uint32_t rank = 1; rank < comm_->size(); ++rank) {
    for (size_t f = 0; f < fields; ++f) {
      if (all[rank * fields + f] != all[f]) {
        const bool number = f != 0 && f != fields - 1;
        sdk::fail(DPT_FAILED_PRECONDITION,
                  std::string("setup: the topology differs between ranks: ") + kAgreedFields[f] +
                      (number ? " is " + std::to_string(all[f]) + " on rank 0 but " +
                                    std::to_string(all[rank * fields + f]) + " on rank " + std::to_string(rank)
                              : " differs between rank 0 and rank " + std::to_string(rank)));
      }
    }
  }
  fixed.slots = fixed.placement->slots_of(comm_->rank());
  fixed.slot_of_expert.assign(fixed.experts, -1);
  for (size_t s = 0; s < fixed.slots.size(); ++s) fixed.slot_of_expert[static_cast<size_t>(fixed.slots[s])] = static_cast<int32_t>(s);
  setup_ = std::move(fixed);
}

void Strategy::dispatch(dpt_dispatch_args& args, dpt_stream*) {
  if (!comm_) sdk::fail(DPT_FAILED_PRECONDITION, "dispatch: setup has not run");
  const auto hidden = static_cast<int64_t>(setup_.hidden), top_k = static_cast<int64_t>(setup_.top_k);
  expect_matrix(args.tokens, "dispatch: tokens", sdk::kFloat32, -1, hidden);
  const int64_t tokens = args.tokens->shape[0];
  expect_matrix(args.expert_ids, "dispatch: expert_ids", sdk::kInt32, tokens, top_k);
  expect_matrix(args.weights, "dispatch: weights", sdk::kFloat32, tokens, top_k);
  const DispatchInput input{static_cast<uint64_t>(tokens), sdk::data_as<const float>(*args.tokens),
                            sdk::data_as<const int32_t>(*args.expert_ids), sdk::data_as<const float>(*args.weights)};
  for (int64_t i = 0; i < tokens * top_k; ++i) {
    if (input.ids[i] < 0 || static_cast<uint32_t>(input.ids[i]) >= setup_.experts) {
      sdk::fail(DPT_INVALID_ARGUMENT, "dispatch: expert_ids[" + std::to_string(i / top_k) + ", " +
                                          std::to_string(i % top_k) + "] = " + std::to_string(input.ids[i]) +
                                          " is not below num_experts " + std::to_string(setup_.experts));
    }
  }
  auto exchange = std::make_unique<dpt_parallel_exchange>();
  exchange->tokens = input.tokens;
  exchange->hidden = setup_.hidden;
  exchange->slot_experts = setup_.slots;
  args.bytes_sent = send(input, *exchange);
  describe_outputs(*exchange, args);
  dpt_parallel_exchange* handle = exchange.get();
  in_flight_.emplace(handle, std::move(exchange));
}

std::unique_ptr<dpt_parallel_exchange> Strategy::take(dpt_parallel_exchange* exchange) {
  auto found = in_flight_.find(exchange);
  if (found == in_flight_.end()) return nullptr;
  std::unique_ptr<dpt_parallel_exchange> owned = std::move(found->second);
  in_flight_.erase(found);
  return owned;
}

void Strategy::combine(dpt_combine_args& args, dpt_stream*) {
  std::unique_ptr<dpt_parallel_exchange> exchange = take(args.exchange);
  sdk::require(exchange != nullptr, "combine: the exchange is not one in flight on this instance");
  const auto hidden = static_cast<int64_t>(setup_.hidden);
  expect_matrix(args.expert_outputs, "combine: expert_outputs", sdk::kFloat32, exchange->rows_shape[0], hidden);
  expect_matrix(args.out, "combine: out", sdk::kFloat32, static_cast<int64_t>(exchange->tokens), hidden);
  std::vector<float> staging;
  fold_outputs(*exchange, sdk::data_as<const float>(*args.expert_outputs), staging);
  args.bytes_sent = bring_back(*exchange, staging, sdk::data_as<float>(*args.out));
}

void Strategy::release(dpt_parallel_exchange* exchange) noexcept { in_flight_.erase(exchange); }

}  // namespace dopant::moe_exchange
