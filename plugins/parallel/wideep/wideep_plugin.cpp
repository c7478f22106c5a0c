// The `wideep` parallel plugin: wide expert parallelism over every rank of the
// communicator. Dispatch sends each token once to each rank that serves one of its top_k
// experts (not once per expert), with the ids and weights of the experts that rank
// serves; that rank computes the rows and folds them, weighted, into one partial sum per
// received token, which combine sends back; the source adds the partials of its ranks in
// rank order. Both directions are one all-to-all-v.
#include <dopant/moe_exchange/strategy.hpp>
#include <dopant/sdk/sdk.hpp>

#include <algorithm>
#include <cstring>

namespace {

namespace sdk = dopant::sdk;
using namespace dopant::moe_exchange;

// What travels with a sent token for each k: the expert, or -1 when another rank serves it.
struct Assignment {
  int32_t expert;
  float weight;
};

class WideEp final : public Strategy {
 public:
  WideEp(const dpt_host* host, const sdk::Config&) : Strategy(host, "wideep") {}

 protected:
  uint64_t send(const DispatchInput& input, dpt_parallel_exchange& exchange) override {
    HostComm& c = comm();
    const uint32_t ranks = c.size(), me = c.rank();
    const uint64_t hidden = fixed().hidden, top_k = fixed().top_k;

    // serving[t * top_k + k]: the rank serving token t's k-th expert.
    std::vector<uint32_t> serving(input.tokens * top_k);
    for (uint64_t t = 0; t < input.tokens; ++t) {
      for (uint64_t k = 0; k < top_k; ++k) {
        serving[t * top_k + k] = fixed().placement->serving_rank(static_cast<uint32_t>(input.ids[t * top_k + k]), me,
                                                                 t, fixed().ranks_per_node);
      }
    }
    // Send order: by destination rank, then token; a token once per destination.
    exchange.sent_per_rank.assign(ranks, 0);
    std::vector<float> rows;
    std::vector<Assignment> assignments;
    for (uint32_t dest = 0; dest < ranks; ++dest) {
      for (uint64_t t = 0; t < input.tokens; ++t) {
        const uint32_t* first = serving.data() + t * top_k;
        if (std::find(first, first + top_k, dest) == first + top_k) continue;
        ++exchange.sent_per_rank[dest];
        exchange.sent_token.push_back(static_cast<uint32_t>(t));
        rows.insert(rows.end(), input.data + t * hidden, input.data + (t + 1) * hidden);
        for (uint64_t k = 0; k < top_k; ++k) {
          const bool here = first[k] == dest;
          assignments.push_back({here ? input.ids[t * top_k + k] : -1, here ? input.weights[t * top_k + k] : 0.0f});
        }
      }
    }
    const std::vector<uint64_t> received = exchange_counts(exchange.sent_per_rank);
    exchange.received_per_rank = received;
    uint64_t total = 0;
    for (uint64_t r : received) total += r;

    received_rows_.resize(total * hidden);
    std::vector<Assignment> received_assignments(total * top_k);
    move_rows(rows.data(), exchange.sent_per_rank, received_rows_.data(), received, hidden * sizeof(float));
    move_rows(assignments.data(), exchange.sent_per_rank, received_assignments.data(), received,
              top_k * sizeof(Assignment));

    std::vector<PlannedRow> plan;
    for (uint64_t j = 0; j < total; ++j) {
      for (uint32_t k = 0; k < top_k; ++k) {
        const Assignment& a = received_assignments[j * top_k + k];
        if (a.expert < 0) continue;
        const int32_t slot = fixed().slot_of_expert[static_cast<size_t>(a.expert)];
        if (slot < 0) sdk::fail(DPT_INTERNAL, "wideep: received a token for expert " + std::to_string(a.expert) + ", not held here");
        plan.push_back({static_cast<uint32_t>(slot), j, k, a.weight, received_rows_.data() + j * hidden});
      }
    }
    exchange.staging_rows = total;
    lay_out_rows(exchange, std::move(plan), static_cast<uint32_t>(fixed().slots.size()));
    uint64_t to_peers = 0;
    for (uint32_t r = 0; r < ranks; ++r) to_peers += r == me ? 0 : exchange.sent_per_rank[r];
    return (ranks - 1) * sizeof(uint64_t) + to_peers * (hidden * sizeof(float) + top_k * sizeof(Assignment));
  }

  uint64_t bring_back(dpt_parallel_exchange& exchange, const std::vector<float>& staging, float* out) override {
    const uint64_t hidden = exchange.hidden;
    std::vector<float> partials(exchange.sent_token.size() * hidden);
    // The reverse of dispatch: the partials of the tokens received from rank r go to r.
    move_rows(staging.data(), exchange.received_per_rank, partials.data(), exchange.sent_per_rank,
              hidden * sizeof(float));
    // out[t] = sum of its partials in rank order: sent rows are ordered by rank.
    std::fill_n(out, exchange.tokens * hidden, 0.0f);
    for (size_t i = 0; i < exchange.sent_token.size(); ++i) {
      float* row = out + uint64_t{exchange.sent_token[i]} * hidden;
      const float* partial = partials.data() + i * hidden;
      for (uint64_t h = 0; h < hidden; ++h) row[h] += partial[h];
    }
    uint64_t to_peers = 0;
    for (uint32_t r = 0; r < comm().size(); ++r) to_peers += r == comm().rank() ? 0 : exchange.received_per_rank[r];
    return to_peers * hidden * sizeof(float);
  }

 private:
  // Rows each rank receives from each other rank, given the rows this rank sends to each.
  std::vector<uint64_t> exchange_counts(const std::vector<uint64_t>& sent) {
    const std::vector<uint64_t> ones(comm().size(), sizeof(uint64_t));
    std::vector<uint64_t> received(comm().size());
    comm().all_to_all_v(sent.data(), ones, displacements_of(ones), received.data(), ones, displacements_of(ones));
    return received;
  }

  // One all-to-all-v of rows of `row_bytes`, `sent[r]` rows to rank r and `received[r]` from it.
  void move_rows(const void* in, const std::vector<uint64_t>& sent, void* out, const std::vector<uint64_t>& received,
                 uint64_t row_bytes) {
    std::vector<uint64_t> send_bytes(sent.size()), receive_bytes(received.size());
    for (size_t r = 0; r < sent.size(); ++r) {
      send_bytes[r] = sent[r] * row_bytes;
      receive_bytes[r] = received[r] * row_bytes;
    }
    comm().all_to_all_v(in, send_bytes, displacements_of(send_bytes), out, receive_bytes,
                        displacements_of(receive_bytes));
  }

  // Tokens received by the last dispatch; its rows are copied out, so reuse is safe.
  std::vector<float> received_rows_;
};

constexpr dpt_plugin_descriptor kWideEp = sdk::describe<sdk::ParallelAdapter<WideEp>>(
    "wideep", "0.1.0",
    "wide expert parallelism: all-to-all-v dispatch sending a token once per serving rank, combine weighted by the router");

}  // namespace

DOPANT_SDK_LIBRARY("dopant-wideep", "0.1.0", &kWideEp)
