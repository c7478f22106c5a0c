// The megatron and wideep plugins under mpirun, each rank checking its own tokens. Every
// rank makes every rank's inputs from one seed (tokens per rank uneven), so it can compute
// the reference of its own tokens alone:
//   out[t] = sum over serving ranks d, ascending, of (sum over k served by d, in k order, of
//            weight[k] * expert(ids[k], x[t]))
// with the replica rule of docs/parallelism.md, restated here. Modes:
//   agree     top-2 over contiguous experts, then top-4 over a placement with replicas on
//             2-rank nodes: wideep equals the reference bit for bit (it sums in that order),
//             megatron too at top-2 (two nonzero partials add the same in any order) and
//             within 4 ulps of the sum's magnitude at top-4 (MPI's reduce-scatter picks
//             the order); both within that tolerance of the plain k-order sum; wideep's
//             dispatch sends each token once per serving peer; two dispatches in flight
//             combine, in reverse order, to what one at a time gives.
//   balance   top-2 of 16 experts routed with Zipf 1.2 popularity (p(e) ~ 1/(e+1)^1.2): wideep
//             on the placement dopant_expert_balance plans from one batch of every rank's
//             routing (4 + 1 slots per rank at 4 ranks) computes, on the next batch,
//             strictly lower max/mean rows per rank than on contiguous blocks, and both
//             combines equal the rank-ordered reference bit for bit.
//   mismatch  the last rank sets up with 16 experts, the others 8: every rank's setup fails
//             naming num_experts.
//   exit      rank 1 leaves after setup; the others' dispatch must fail or be ended by
//             mpirun, not hang (CMakeLists.txt checks the message and the time).
// Exits nonzero naming the first mismatch.
#include <dopant/comm.h>
#include <dopant/parallel.h>
#include <dopant/sdk/tensors.hpp>
#include <dopant/expert_balance/planner.hpp>
#include <dopant/moe_exchange/toy_experts.hpp>
#include <dopant/runtime.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

namespace moe = dopant::moe_exchange;

uint32_t g_rank = 0;

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "rank %u: %s\n", g_rank, what.c_str());
  std::fflush(stderr);
  _exit(1);
}

std::string take(dpt_error* error) {
  if (error == nullptr) return "";
  std::string message = dpt_error_get_message(error);
  dpt_error_destroy(error);
  return message;
}

struct Case {
  uint32_t experts = 8, top_k = 2, hidden = 12, ranks_per_node = 0;
  uint32_t tokens = 5;  // rank r routes tokens + 3 r tokens
  double zipf = 0;      // 0: experts drawn uniformly; else p(e) ~ 1/(e+1)^zipf
  std::vector<std::vector<uint32_t>> replicas;  // empty: contiguous
};

// The rule of docs/parallelism.md: own rank, else on the node (token mod count), else any.
uint32_t serving_rank(const Case& c, uint32_t ranks, uint32_t expert, uint32_t source, uint64_t token) {
  const std::vector<uint32_t> all =
      c.replicas.empty() ? std::vector<uint32_t>{static_cast<uint32_t>(uint64_t{expert} * ranks / c.experts)}
                         : c.replicas[expert];
  if (std::count(all.begin(), all.end(), source) != 0) return source;
  std::vector<uint32_t> near;
  for (uint32_t r : all) {
    if (c.ranks_per_node != 0 && r / c.ranks_per_node == source / c.ranks_per_node) near.push_back(r);
  }
  if (!near.empty()) return near[token % near.size()];
  return all[token % all.size()];
}

// Every rank's inputs, from one seed.
struct RankInput {
  std::vector<float> tokens;   // [n, hidden]
  std::vector<int32_t> ids;    // [n, top_k]
  std::vector<float> weights;  // [n, top_k]
  int64_t n = 0;
};

std::vector<RankInput> make_inputs(const Case& c, uint32_t ranks, uint32_t seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f), weight(0.05f, 1.0f);
  std::vector<double> popularity(c.experts);
  for (uint32_t e = 0; e < c.experts; ++e) popularity[e] = 1.0 / std::pow(e + 1.0, c.zipf);
  std::discrete_distribution<int32_t> skewed(popularity.begin(), popularity.end());
  std::vector<RankInput> all(ranks);
  for (uint32_t r = 0; r < ranks; ++r) {
    RankInput& in = all[r];
    in.n = c.tokens + 3 * r;
    in.tokens.resize(in.n * c.hidden);
    for (float& x : in.tokens) x = value(random);
    for (int64_t t = 0; t < in.n; ++t) {
      std::vector<int32_t> experts;
      if (c.zipf == 0) {
        for (uint32_t e = 0; e < c.experts; ++e) experts.push_back(static_cast<int32_t>(e));
        std::shuffle(experts.begin(), experts.end(), random);
      } else {
        while (experts.size() < c.top_k) {  // distinct draws from the skewed popularity
          const int32_t e = skewed(random);
          if (std::count(experts.begin(), experts.end(), e) == 0) experts.push_back(e);
        }
      }
      for (uint32_t k = 0; k < c.top_k; ++k) {
        in.ids.push_back(experts[k]);
        in.weights.push_back(weight(random));
      }
    }
  }
  return all;
}

// The rank-ordered reference and the plain k-order sum of `source`'s tokens, and the
// bound on their difference: 4 ulps of the sum of magnitudes.
struct Reference {
  std::vector<float> ordered, plain, tolerance;
  uint64_t peer_rows = 0;  // tokens sent to other ranks, each once per serving peer
};

Reference reference(const Case& c, uint32_t ranks, uint32_t source, const RankInput& in) {
  Reference ref;
  const uint32_t hidden = c.hidden;
  ref.ordered.assign(in.n * hidden, 0.0f);
  ref.plain.assign(in.n * hidden, 0.0f);
  ref.tolerance.assign(in.n * hidden, 0.0f);
  std::vector<float> y(hidden);
  for (int64_t t = 0; t < in.n; ++t) {
    const float* x = in.tokens.data() + t * hidden;
    for (uint32_t d = 0; d < ranks; ++d) {
      std::vector<float> partial(hidden, 0.0f);
      bool served = false;
      for (uint32_t k = 0; k < c.top_k; ++k) {
        const auto e = static_cast<uint32_t>(in.ids[t * c.top_k + k]);
        if (serving_rank(c, ranks, e, source, static_cast<uint64_t>(t)) != d) continue;
        served = true;
        moe::toy_expert(e, x, y.data(), hidden);
        for (uint32_t h = 0; h < hidden; ++h) partial[h] += in.weights[t * c.top_k + k] * y[h];
      }
      if (!served) continue;
      if (d != source) ++ref.peer_rows;
      for (uint32_t h = 0; h < hidden; ++h) ref.ordered[t * hidden + h] += partial[h];
    }
    for (uint32_t k = 0; k < c.top_k; ++k) {
      moe::toy_expert(static_cast<uint32_t>(in.ids[t * c.top_k + k]), x, y.data(), hidden);
      for (uint32_t h = 0; h < hidden; ++h) {
        const float term = in.weights[t * c.top_k + k] * y[h];
        ref.plain[t * hidden + h] += term;
        ref.tolerance[t * hidden + h] += 4 * std::numeric_limits<float>::epsilon() * std::fabs(term);
      }
    }
  }
  return ref;
}

class Strategy {
 public:
  Strategy(dpt_runtime* runtime, const char* id) {
    const std::string error = take(dpt_plugin_instance_create(runtime, id, nullptr, &instance_));
    if (!error.empty()) die(std::string("create ") + id + ": " + error);
    table_ = static_cast<const dpt_parallel_v1*>(dpt_plugin_instance_table(instance_));
    name_ = id;
  }
  ~Strategy() { dpt_plugin_instance_destroy(instance_); }
  Strategy(const Strategy&) = delete;
  Strategy& operator=(const Strategy&) = delete;

  std::string setup(const Case& c) {
    std::vector<uint32_t> offsets{0}, ranks;
    for (const auto& replicas : c.replicas) {
      ranks.insert(ranks.end(), replicas.begin(), replicas.end());
      offsets.push_back(static_cast<uint32_t>(ranks.size()));
    }
    dpt_parallel_topology topology{};
    topology.struct_size = sizeof topology;
    topology.num_experts = c.experts;
    topology.top_k = c.top_k;
    topology.hidden = c.hidden;
    topology.ranks_per_node = c.ranks_per_node;
    topology.placement_offsets = c.replicas.empty() ? nullptr : offsets.data();
    topology.placement_ranks = c.replicas.empty() ? nullptr : ranks.data();
    return take(table_->setup(handle(), &topology));
  }

  dpt_dispatch_args dispatch(const Case& c, RankInput& in) {
    dopant::sdk::MatrixView tokens(in.tokens.data(), {kDLFloat, 32, 1}, in.n, c.hidden);
    dopant::sdk::MatrixView ids(in.ids.data(), {kDLInt, 32, 1}, in.n, c.top_k);
    dopant::sdk::MatrixView weights(in.weights.data(), {kDLFloat, 32, 1}, in.n, c.top_k);
    dpt_dispatch_args args{};
    args.struct_size = sizeof args;
    args.tokens = &tokens.tensor;
    args.expert_ids = &ids.tensor;
    args.weights = &weights.tensor;
    const std::string error = take(table_->dispatch(handle(), &args, nullptr));
    if (!error.empty()) die(name_ + " dispatch: " + error);
    return args;
  }

  std::vector<float> combine(const Case& c, const dpt_dispatch_args& dispatched, int64_t tokens) {
    std::vector<float> outputs = moe::run_toy_experts(dispatched);
    dopant::sdk::MatrixView rows(outputs.data(), {kDLFloat, 32, 1}, dispatched.expert_tokens.shape[0], c.hidden);
    std::vector<float> out(tokens * c.hidden, NAN);
    dopant::sdk::MatrixView out_view(out.data(), {kDLFloat, 32, 1}, tokens, c.hidden);
    dpt_combine_args args{};
    args.struct_size = sizeof args;
    args.exchange = dispatched.exchange;
    args.expert_outputs = &rows.tensor;
    args.out = &out_view.tensor;
    const std::string error = take(table_->combine(handle(), &args, nullptr));
    if (!error.empty()) die(name_ + " combine: " + error);
    return out;
  }

  std::vector<float> run(const Case& c, RankInput& in) { return combine(c, dispatch(c, in), in.n); }

 private:
  dpt_instance* handle() const { return dpt_plugin_instance_handle(instance_); }
  dpt_plugin_instance* instance_ = nullptr;
  const dpt_parallel_v1* table_ = nullptr;
  std::string name_;
};

std::string digits(float value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", static_cast<double>(value));
  return text;
}

void expect_equal(const std::vector<float>& got, const std::vector<float>& want, const std::string& what) {
  for (size_t i = 0; i < want.size(); ++i) {
    if (got[i] != want[i]) die(what + ": element " + std::to_string(i) + " is " + digits(got[i]) + ", expected exactly " +
                               digits(want[i]));
  }
}

void expect_close(const std::vector<float>& got, const std::vector<float>& want, const std::vector<float>& tolerance,
                  const std::string& what) {
  for (size_t i = 0; i < want.size(); ++i) {
    if (!(std::fabs(got[i] - want[i]) <= tolerance[i])) {
      die(what + ": element " + std::to_string(i) + " is " + digits(got[i]) + ", expected " + digits(want[i]) +
          " within " + digits(tolerance[i]));
    }
  }
}

void check_agreement(dpt_runtime* runtime, const Case& c, uint32_t ranks, bool megatron_exact, const char* label) {
  std::vector<RankInput> inputs = make_inputs(c, ranks, 7 + c.top_k);
  RankInput& mine = inputs[g_rank];
  const Reference ref = reference(c, ranks, g_rank, mine);
  Strategy megatron(runtime, "megatron"), wideep(runtime, "wideep");
  for (Strategy* s : {&megatron, &wideep}) {
    if (std::string error = s->setup(c); !error.empty()) die(std::string(label) + " setup: " + error);
  }
  const std::string at = std::string(label) + " on " + std::to_string(ranks) + " rank(s)";
  const dpt_dispatch_args sent = wideep.dispatch(c, mine);
  const uint64_t row_bytes = c.hidden * 4 + c.top_k * 8;
  const uint64_t expected_bytes = (ranks - 1) * 8 + ref.peer_rows * row_bytes;
  if (sent.bytes_sent != expected_bytes) {
    die(at + ": wideep sent " + std::to_string(sent.bytes_sent) + " bytes, not once per serving peer (" +
        std::to_string(expected_bytes) + ")");
  }
  const std::vector<float> wide = wideep.combine(c, sent, mine.n);
  expect_equal(wide, ref.ordered, at + ": wideep vs the rank-ordered reference");
  expect_close(wide, ref.plain, ref.tolerance, at + ": wideep vs the k-order sum");
  const std::vector<float> mega = megatron.run(c, mine);
  if (megatron_exact) expect_equal(mega, ref.ordered, at + ": megatron vs the rank-ordered reference");
  expect_close(mega, ref.plain, ref.tolerance, at + ": megatron vs the k-order sum");

  // Two dispatches in flight on one instance, the second's inputs different, combined in
  // reverse order.
  std::vector<RankInput> others = make_inputs(c, ranks, 99);
  const std::vector<float> second_alone = wideep.run(c, others[g_rank]);
  const dpt_dispatch_args first = wideep.dispatch(c, mine);
  const dpt_dispatch_args second = wideep.dispatch(c, others[g_rank]);
  expect_equal(wideep.combine(c, second, others[g_rank].n), second_alone, at + ": second of two in flight");
  expect_equal(wideep.combine(c, first, mine.n), wide, at + ": first of two in flight");
}

// Rows of expert input each rank computes under wideep on `c`, max over mean across ranks;
// dies unless every rank's combine equals the rank-ordered reference bit for bit.
double wideep_rows_max_over_mean(dpt_runtime* runtime, const Case& c, std::vector<RankInput>& inputs,
                                 const char* label) {
  const dpt_host* host = dpt_runtime_host(runtime);
  const auto* comm = static_cast<const dpt_host_comm_v1*>(host->get_extension(host, DPT_HOST_COMM));
  dpt_comm* world = nullptr;
  if (!take(comm->world(host, &world)).empty()) die("no world communicator");
  const auto ranks = static_cast<uint32_t>(inputs.size());
  Strategy wideep(runtime, "wideep");
  if (std::string error = wideep.setup(c); !error.empty()) die(std::string(label) + " setup: " + error);
  RankInput& mine = inputs[g_rank];
  const dpt_dispatch_args sent = wideep.dispatch(c, mine);
  const double rows = static_cast<double>(sent.expert_tokens.shape[0]);
  expect_equal(wideep.combine(c, sent, mine.n), reference(c, ranks, g_rank, mine).ordered,
               std::string(label) + ": wideep vs the rank-ordered reference");
  std::vector<double> all(ranks);
  std::vector<uint64_t> counts(ranks, sizeof rows), displacements(ranks);
  for (uint32_t r = 0; r < ranks; ++r) displacements[r] = r * sizeof rows;
  if (std::string error = take(comm->all_gather_v(host, world, &rows, all.data(), counts.data(), displacements.data()));
      !error.empty()) {
    die("all_gather_v: " + error);
  }
  double total = 0;
  for (double r : all) total += r;
  return *std::max_element(all.begin(), all.end()) / (total / ranks);
}

void check_balance(dpt_runtime* runtime, uint32_t ranks) {
  Case contiguous;
  contiguous.experts = 16;
  contiguous.hidden = 8;
  contiguous.tokens = 200;
  contiguous.zipf = 1.2;
  std::vector<int64_t> load(contiguous.experts, 0);  // rows per expert in the observed batch
  for (const RankInput& in : make_inputs(contiguous, ranks, 11)) {
    for (int32_t e : in.ids) ++load[static_cast<size_t>(e)];
  }
  const uint32_t slots = (contiguous.experts + ranks - 1) / ranks + 1;
  const dopant::expert_balance::TopologyArrays planned =
      dopant::expert_balance::plan_placement(load, ranks, slots).topology_arrays();
  Case balanced = contiguous;
  for (uint32_t e = 0; e < balanced.experts; ++e) {
    balanced.replicas.emplace_back(planned.ranks.begin() + planned.offsets[e],
                                   planned.ranks.begin() + planned.offsets[e + 1]);
  }
  std::vector<RankInput> next = make_inputs(contiguous, ranks, 12);
  const double blocks = wideep_rows_max_over_mean(runtime, contiguous, next, "contiguous");
  const double even = wideep_rows_max_over_mean(runtime, balanced, next, "balanced");
  if (!(even < blocks)) {
    die("balanced placement computes max/mean " + std::to_string(even) + " rows per rank, not below contiguous " +
        std::to_string(blocks));
  }
  std::printf("rank %u: max/mean rows per rank %.3f contiguous, %.3f balanced\n", g_rank, blocks, even);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) die("usage: dopant_moe_exchange_mpi PLUGIN_DIR agree|balance|mismatch|exit");
  const std::string mode = argv[2];
  dpt_runtime* runtime = nullptr;
  const dpt_runtime_options options{DPT_RUNTIME_OPTIONS_SIZE_1_0, argv[1], 1, DPT_LOG_WARN, 1};
  if (std::string error = take(dpt_runtime_create(&options, &runtime)); !error.empty()) die(error);
  const dpt_host* host = dpt_runtime_host(runtime);
  const auto* comm = static_cast<const dpt_host_comm_v1*>(host->get_extension(host, DPT_HOST_COMM));
  dpt_comm* world = nullptr;
  if (comm == nullptr || !take(comm->world(host, &world)).empty()) die("no world communicator");
  g_rank = comm->rank(host, world);
  const uint32_t ranks = comm->size(host, world);

  if (mode == "agree") {
    check_agreement(runtime, Case{}, ranks, true, "top-2, contiguous");
    Case replicated;
    replicated.top_k = 4;
    replicated.ranks_per_node = 2;
    for (uint32_t e = 0; e < replicated.experts; ++e) {
      // Experts 0 and 1 (the hot ones) on every rank; the rest in contiguous blocks.
      std::vector<uint32_t> on;
      if (e < 2) {
        for (uint32_t r = 0; r < ranks; ++r) on.push_back(r);
      } else {
        on.push_back((e - 2) * ranks / (replicated.experts - 2));
      }
      replicated.replicas.push_back(on);
    }
    check_agreement(runtime, replicated, ranks, ranks <= 2, "top-4, replicas");
    std::printf("rank %u: megatron and wideep agree with the reference\n", g_rank);
  } else if (mode == "balance") {
    check_balance(runtime, ranks);
  } else if (mode == "mismatch") {
    Case c;
    if (g_rank == ranks - 1) c.experts = 16;
    for (const char* id : {"megatron", "wideep"}) {
      Strategy s(runtime, id);
      const std::string error = s.setup(c);
      const std::string expected = "num_experts is 8 on rank 0 but 16 on rank " + std::to_string(ranks - 1);
      if (error.find(expected) == std::string::npos) die(std::string(id) + ": setup gave `" + error + "`");
    }
    std::printf("rank %u: refused as it should\n", g_rank);
  } else if (mode == "exit") {
    Case c;
    Strategy wideep(runtime, "wideep");
    if (std::string error = wideep.setup(c); !error.empty()) die("setup: " + error);
    if (g_rank == 1) _exit(0);
    std::vector<RankInput> inputs = make_inputs(c, ranks, 3);
    wideep.run(c, inputs[g_rank]);  // dies naming the failed collective
    die("dispatch and combine completed without rank 1");
  } else {
    die("unknown mode " + mode);
  }
  dpt_runtime_destroy(runtime);
  return 0;
}
