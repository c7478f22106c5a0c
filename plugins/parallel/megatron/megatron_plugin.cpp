// The `megatron` parallel plugin, the baseline: MoE dispatch in the all-gather style of
// Megatron-core's AllGather token dispatcher. Every rank gathers every rank's tokens,
// expert ids and weights, computes the rows routed to its own experts, folds their
// weighted outputs into a buffer of all ranks' tokens (each rank's block padded to the
// longest), and a reduce-scatter sums the buffers and hands each rank its own block.
#include <dopant/moe_exchange/strategy.hpp>
#include <dopant/sdk/sdk.hpp>

#include <algorithm>

namespace {

namespace sdk = dopant::sdk;
using namespace dopant::moe_exchange;

class Megatron final : public Strategy {
 public:
  Megatron(const dpt_host* host, const sdk::Config&) : Strategy(host, "megatron") {}

 protected:
  uint64_t send(const DispatchInput& input, dpt_parallel_exchange& exchange) override {
    HostComm& c = comm();
    const uint32_t ranks = c.size();
    const uint64_t hidden = fixed().hidden, top_k = fixed().top_k;
    const std::vector<uint64_t> tokens = c.all_gather(input.tokens);
    const uint64_t padded = *std::max_element(tokens.begin(), tokens.end());
    uint64_t total = 0;
    for (uint64_t t : tokens) total += t;

    // Gather each rank's tokens, ids and weights, rank after rank.
    auto gather = [&](const void* mine, uint64_t bytes_per_token, std::vector<char>& all) {
      std::vector<uint64_t> counts(ranks);
      for (uint32_t r = 0; r < ranks; ++r) counts[r] = tokens[r] * bytes_per_token;
      all.resize(total * bytes_per_token);
      c.all_gather_v(mine, all.data(), counts, displacements_of(counts));
    };
    gather(input.data, hidden * sizeof(float), all_tokens_);
    gather(input.ids, top_k * sizeof(int32_t), all_ids_);
    gather(input.weights, top_k * sizeof(float), all_weights_);
    const auto* data = reinterpret_cast<const float*>(all_tokens_.data());
    const auto* ids = reinterpret_cast<const int32_t*>(all_ids_.data());
    const auto* weights = reinterpret_cast<const float*>(all_weights_.data());

    std::vector<PlannedRow> plan;
    uint64_t first = 0;  // the source rank's first token in the gathered arrays
    for (uint32_t source = 0; source < ranks; ++source) {
      for (uint64_t t = 0; t < tokens[source]; ++t) {
        const uint64_t g = first + t;
        for (uint32_t k = 0; k < top_k; ++k) {
          const auto expert = static_cast<uint32_t>(ids[g * top_k + k]);
          if (fixed().placement->serving_rank(expert, source, t, fixed().ranks_per_node) != c.rank()) continue;
          plan.push_back({static_cast<uint32_t>(fixed().slot_of_expert[expert]), source * padded + t, k,
                          weights[g * top_k + k], data + g * hidden});
        }
      }
      first += tokens[source];
    }
    exchange.padded_tokens = padded;
    exchange.staging_rows = padded * ranks;
    lay_out_rows(exchange, std::move(plan), static_cast<uint32_t>(fixed().slots.size()));
    // Bytes leaving this rank: its token count, then its tokens, ids and weights, to every peer.
    return (ranks - 1) * (sizeof(uint64_t) + input.tokens * (hidden * sizeof(float) + top_k * 8));
  }

  uint64_t bring_back(dpt_parallel_exchange& exchange, const std::vector<float>& staging, float* out) override {
    const uint64_t block = exchange.padded_tokens * exchange.hidden;
    std::vector<float> mine(block);
    comm().reduce_scatter_sum(staging.data(), mine.data(), block);
    std::copy_n(mine.data(), exchange.tokens * exchange.hidden, out);
    return (comm().size() - 1) * block * sizeof(float);
  }

 private:
  // Gathered inputs of the last dispatch; its rows are copied out, so reuse is safe.
  std::vector<char> all_tokens_, all_ids_, all_weights_;
};

constexpr dpt_plugin_descriptor kMegatron = sdk::describe<sdk::ParallelAdapter<Megatron>>(
    "megatron", "0.1.0", "MoE dispatch in Megatron's all-gather style: every rank gets every token, reduce-scatter back");

}  // namespace

DOPANT_SDK_LIBRARY("dopant-megatron", "0.1.0", &kMegatron)
