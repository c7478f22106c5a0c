// Checks of "dopant.parallel/1" plugins on one rank (the host's world outside mpirun
// is `local`; multi-rank behaviour is tested under mpirun in tests/parallel). They assume
// only the kind's contract (abi/dopant/parallel.h):
//   - dispatch hands out every (token, k) row once, grouped by ascending expert, and combine
//     returns sum over k of weight * output, here for experts that scale by (expert + 1);
//   - two exchanges in flight combine, in reverse order, to what each gives alone; a
//     combined exchange is no longer accepted; release drops one;
//   - expert ids out of range, misshapen weights and top_k above the experts are refused;
//   - layout gives Megatron's tp groups and refuses sizes that do not divide the world;
//   - shard slices cover a dimension exactly once and refuse an uneven split.
#include <dopant/parallel.h>
#include <dopant/sdk/tensors.hpp>

#include "outcome.hpp"
#include "registry.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace dopant::conformance {

namespace {

constexpr uint32_t kExperts = 6, kTopK = 2, kHidden = 5;
constexpr int64_t kTokens = 7;

constexpr DLDataType kF32{kDLFloat, 32, 1}, kI32{kDLInt, 32, 1};

struct Inputs {
  std::vector<float> tokens = std::vector<float>(kTokens * kHidden);
  std::vector<int32_t> ids = std::vector<int32_t>(kTokens * kTopK);
  std::vector<float> weights = std::vector<float>(kTokens * kTopK);
  explicit Inputs(int seed) {
    for (size_t i = 0; i < tokens.size(); ++i) tokens[i] = static_cast<float>((i * 7 + seed) % 11) / 4.0f - 1.0f;
    for (int64_t t = 0; t < kTokens; ++t) {
      ids[t * kTopK] = static_cast<int32_t>((t + seed) % kExperts);
      ids[t * kTopK + 1] = static_cast<int32_t>((t + seed + 1 + t % 3) % kExperts);
      weights[t * kTopK] = 0.25f + 0.125f * static_cast<float>(t % 3);
      weights[t * kTopK + 1] = 1.0f - weights[t * kTopK];
    }
  }
  // sum over k of weight * (expert + 1) * token
  std::vector<float> expected() const {
    std::vector<float> out(kTokens * kHidden, 0.0f);
    for (int64_t t = 0; t < kTokens; ++t) {
      for (uint32_t k = 0; k < kTopK; ++k) {
        const float scale = weights[t * kTopK + k] * static_cast<float>(ids[t * kTopK + k] + 1);
        for (uint32_t h = 0; h < kHidden; ++h) out[t * kHidden + h] += scale * tokens[t * kHidden + h];
      }
    }
    return out;
  }
};

class Strategy {
 public:
  explicit Strategy(const Target& target) : plugin_(target) {}
  bool ok() const { return plugin_.ok(); }
  const dpt_parallel_v1& table() const { return plugin_.table<dpt_parallel_v1>(); }
  dpt_instance* handle() const { return plugin_.handle(); }

  std::string setup(uint32_t top_k = kTopK) {
    dpt_parallel_topology topology{};
    topology.struct_size = DPT_PARALLEL_TOPOLOGY_SIZE_1_5;
    topology.num_experts = kExperts;
    topology.top_k = top_k;
    topology.hidden = kHidden;
    return ok_or_message(table().setup(handle(), &topology));
  }

  // Dispatches `in` (weights shaped [tokens, weight_columns]); "" or the error.
  std::string dispatch(Inputs& in, dpt_dispatch_args& args, int64_t weight_columns = kTopK) {
    sdk::MatrixView tokens(in.tokens.data(), kF32, kTokens, kHidden), ids(in.ids.data(), kI32, kTokens, kTopK),
        weights(in.weights.data(), kF32, kTokens, weight_columns);
    args = dpt_dispatch_args{};
    args.struct_size = DPT_DISPATCH_ARGS_SIZE_1_5;
    args.tokens = &tokens.tensor;
    args.expert_ids = &ids.tensor;
    args.weights = &weights.tensor;
    return ok_or_message(table().dispatch(handle(), &args, nullptr));
  }

  // Combines with experts that scale by (expert + 1); "" or the error.
  std::string combine(const dpt_dispatch_args& dispatched, std::vector<float>& out) {
    const DLTensor& rows = dispatched.expert_tokens;
    const auto* in = static_cast<const float*>(rows.data);
    const auto* per_slot = static_cast<const int64_t*>(dispatched.tokens_per_expert.data);
    const auto* experts = static_cast<const int32_t*>(dispatched.local_experts.data);
    std::vector<float> outputs(static_cast<size_t>(rows.shape[0] * kHidden));
    int64_t row = 0;
    for (int64_t slot = 0; slot < dispatched.tokens_per_expert.shape[0]; ++slot) {
      for (int64_t i = 0; i < per_slot[slot]; ++i, ++row) {
        for (uint32_t h = 0; h < kHidden; ++h) {
          outputs[row * kHidden + h] = static_cast<float>(experts[slot] + 1) * in[row * kHidden + h];
        }
      }
    }
    out.assign(kTokens * kHidden, NAN);
    sdk::MatrixView outputs_view(outputs.data(), kF32, rows.shape[0], kHidden), out_view(out.data(), kF32, kTokens, kHidden);
    dpt_combine_args args{};
    args.struct_size = DPT_COMBINE_ARGS_SIZE_1_5;
    args.exchange = dispatched.exchange;
    args.expert_outputs = &outputs_view.tensor;
    args.out = &out_view.tensor;
    return ok_or_message(table().combine(handle(), &args, nullptr));
  }

  // Combines an exchange already combined or released, whose views are gone, with outputs
  // of the `rows` it had: "" or the error.
  std::string combine_gone(dpt_parallel_exchange* exchange, int64_t rows) {
    std::vector<float> outputs(static_cast<size_t>(rows * kHidden)), out(kTokens * kHidden);
    sdk::MatrixView outputs_view(outputs.data(), kF32, rows, kHidden), out_view(out.data(), kF32, kTokens, kHidden);
    dpt_combine_args args{};
    args.struct_size = DPT_COMBINE_ARGS_SIZE_1_5;
    args.exchange = exchange;
    args.expert_outputs = &outputs_view.tensor;
    args.out = &out_view.tensor;
    return ok_or_message(table().combine(handle(), &args, nullptr));
  }

 private:
  PluginInstance plugin_;
};

void expect_near_all(const std::vector<float>& got, const std::vector<float>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5f * (1 + std::fabs(want[i]))) << "element " << i;
}

void check_dispatch_combine(const Target& target) {
  Strategy s(target);
  ASSERT_TRUE(s.ok());
  ASSERT_EQ("", s.setup());
  Inputs in(1);
  dpt_dispatch_args dispatched;
  ASSERT_EQ("", s.dispatch(in, dispatched));
  ASSERT_NE(dispatched.exchange, nullptr);
  ASSERT_EQ(dispatched.expert_tokens.shape[0], kTokens * kTopK) << "one rank computes every (token, k) row once";
  const auto* experts = static_cast<const int32_t*>(dispatched.local_experts.data);
  const auto* per_slot = static_cast<const int64_t*>(dispatched.tokens_per_expert.data);
  ASSERT_EQ(dispatched.local_experts.shape[0], kExperts) << "one rank holds every expert";
  for (uint32_t e = 0; e < kExperts; ++e) {
    EXPECT_EQ(experts[e], static_cast<int32_t>(e)) << "slots ascend by expert";
    int64_t routed = 0;
    for (int32_t id : in.ids) routed += id == static_cast<int32_t>(e);
    EXPECT_EQ(per_slot[e], routed) << "rows of expert " << e;
  }
  std::vector<float> out;
  ASSERT_EQ("", s.combine(dispatched, out));
  expect_near_all(out, in.expected());
}

void check_exchanges_in_flight(const Target& target) {
  Strategy s(target);
  ASSERT_TRUE(s.ok());
  ASSERT_EQ("", s.setup());
  Inputs a(1), b(4), c(2);
  dpt_dispatch_args first, second, dropped;
  ASSERT_EQ("", s.dispatch(a, first));
  ASSERT_EQ("", s.dispatch(b, second));
  ASSERT_EQ("", s.dispatch(c, dropped));
  const int64_t first_rows = first.expert_tokens.shape[0], dropped_rows = dropped.expert_tokens.shape[0];
  s.table().release(s.handle(), dropped.exchange);
  std::vector<float> out_b, out_a;
  ASSERT_EQ("", s.combine(second, out_b));
  ASSERT_EQ("", s.combine(first, out_a));
  expect_near_all(out_a, a.expected());
  expect_near_all(out_b, b.expected());
  EXPECT_NE("", s.combine_gone(first.exchange, first_rows)) << "an exchange already combined was accepted again";
  EXPECT_NE("", s.combine_gone(dropped.exchange, dropped_rows)) << "a released exchange was accepted";
}

void check_bad_inputs_refused(const Target& target) {
  Strategy s(target);
  ASSERT_TRUE(s.ok());
  EXPECT_NE("", s.setup(kExperts + 1)) << "top_k above num_experts";
  ASSERT_EQ("", s.setup());
  Inputs in(1);
  dpt_dispatch_args args;
  in.ids[3] = static_cast<int32_t>(kExperts);
  EXPECT_NE("", s.dispatch(in, args)) << "expert id out of range";
  in.ids[3] = -1;
  EXPECT_NE("", s.dispatch(in, args)) << "negative expert id";
  Inputs shaped(1);
  EXPECT_NE("", s.dispatch(shaped, args, kTopK - 1)) << "weights [tokens, top_k - 1]";
}

void check_layout(const Target& target) {
  Strategy s(target);
  ASSERT_TRUE(s.ok());
  // Megatron, world 8, tp 2, pp 2, default order tp-cp-ep-dp-pp: tp groups are pairs.
  dpt_parallel_sizes sizes{DPT_PARALLEL_SIZES_SIZE_1_5, nullptr, 8, 2, 2, 0, 1, 1, 0, nullptr};
  std::vector<uint32_t> ranks(8, 99);
  dpt_parallel_layout_args args{};
  args.struct_size = DPT_PARALLEL_LAYOUT_ARGS_SIZE_1_5;
  args.sizes = &sizes;
  args.groups = "tp";
  args.rank = 5;
  args.ranks = ranks.data();
  ASSERT_EQ("", ok_or_message(s.table().layout(s.handle(), &args)));
  EXPECT_EQ(ranks, (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(args.group_size, 2u);
  EXPECT_EQ(args.group_count, 4u);
  EXPECT_EQ(args.group, 2u);
  EXPECT_EQ(args.position, 1u);
  args.groups = "pp";  // pp strides over tp*dp = 4
  ASSERT_EQ("", ok_or_message(s.table().layout(s.handle(), &args)));
  EXPECT_EQ(ranks, (std::vector<uint32_t>{0, 4, 1, 5, 2, 6, 3, 7}));
  sizes.world = 12;
  sizes.tp = 4;
  const Outcome refused = take(s.table().layout(s.handle(), &args));
  EXPECT_EQ(refused.code, DPT_INVALID_ARGUMENT);
  EXPECT_NE(refused.message.find("does not divide world 12"), std::string::npos) << refused.message;
}

void check_shards(const Target& target) {
  Strategy s(target);
  ASSERT_TRUE(s.ok());
  const int64_t shape[2] = {10, 6};
  for (const dpt_shard_split split : {DPT_SHARD_COLUMN, DPT_SHARD_ROW, DPT_SHARD_VOCAB, DPT_SHARD_REPLICATED}) {
    const uint32_t shards = split == DPT_SHARD_VOCAB ? 4 : 2;
    const int split_dim = split == DPT_SHARD_ROW ? 1 : 0;
    int64_t covered = 0;
    for (uint32_t index = 0; index < shards; ++index) {
      int64_t offset[2] = {-1, -1}, extent[2] = {-1, -1};
      dpt_parallel_shard_args args{DPT_PARALLEL_SHARD_ARGS_SIZE_1_5, nullptr, 2, shape, split, shards, index,
                                   offset, extent};
      ASSERT_EQ("", ok_or_message(s.table().shard(s.handle(), &args))) << "split " << split << " shard " << index;
      EXPECT_EQ(offset[1 - split_dim], 0);
      EXPECT_EQ(extent[1 - split_dim], shape[1 - split_dim]) << "the other dim is whole";
      if (split != DPT_SHARD_REPLICATED) {
        EXPECT_EQ(offset[split_dim], covered) << "split " << split << " shard " << index;
      }
      covered = split == DPT_SHARD_REPLICATED ? shape[split_dim] : covered + extent[split_dim];
    }
    EXPECT_EQ(covered, shape[split_dim]) << "split " << split << " covers its dim once";
  }
  int64_t offset[2], extent[2];
  dpt_parallel_shard_args uneven{DPT_PARALLEL_SHARD_ARGS_SIZE_1_5, nullptr, 2, shape, DPT_SHARD_COLUMN, 3, 0,
                                 offset, extent};
  EXPECT_EQ(take(s.table().shard(s.handle(), &uneven)).code, DPT_INVALID_ARGUMENT) << "10 rows into 3 shards";
}

}  // namespace

void register_parallel_checks(const Target& target) {
  add_check(target, "DispatchCombineWeighsExpertOutputs", [target] { check_dispatch_combine(target); });
  add_check(target, "ExchangesInFlightAreIndependent", [target] { check_exchanges_in_flight(target); });
  add_check(target, "BadInputsAreRefused", [target] { check_bad_inputs_refused(target); });
  add_check(target, "LayoutGivesMegatronGroups", [target] { check_layout(target); });
  add_check(target, "ShardsCoverEachDimOnce", [target] { check_shards(target); });
}

}  // namespace dopant::conformance
