// answer_layout and answer_shard: the layout slot over dopant::layout, and shard specs in
// Megatron's conventions (column-parallel splits the output dim 0, row-parallel the input,
// the last dim; vocab-parallel embeddings take ceil(vocab / shards) rows each; stacked
// experts split dim 0).
#include "dopant/moe_exchange/layout_answers.hpp"

#include <dopant/sdk/errors.hpp>
#include <dopant/support/rank_layout.hpp>

#include <stdexcept>
#include <string>

namespace dopant::moe_exchange {
namespace {

// The expert layout's dimensions as this kind names them (etp, edp) in Megatron's names.
std::string megatron_names(const std::string& names, bool expert) {
  if (!expert) return names;
  std::string out;
  size_t start = 0;
  while (start <= names.size()) {
    const size_t end = std::min(names.find('-', start), names.size());
    const std::string part = names.substr(start, end - start);
    out += (out.empty() ? "" : "-") + (part == "etp" ? std::string("tp") : part == "edp" ? std::string("dp") : part);
    start = end + 1;
  }
  return out;
}

}  // namespace

void answer_layout(dpt_parallel_layout_args& args) {
  sdk::require(args.sizes != nullptr && args.groups != nullptr, "layout: sizes and groups must be non-NULL");
  sdk::require(args.sizes->struct_size >= DPT_PARALLEL_SIZES_SIZE_1_5, "layout: sizes struct is too small");
  const dpt_parallel_sizes& given = *args.sizes;
  layout::ParallelSizes sizes;
  sizes.world = given.world;
  sizes.tp = given.tp;
  sizes.pp = given.pp;
  sizes.cp = given.cp;
  sizes.ep = given.ep;
  if (given.dp != 0) sizes.dp = given.dp;
  if (given.etp != 0) sizes.etp = given.etp;
  if (given.order != nullptr) sizes.order = given.order;
  try {
    const layout::RankLayouts layouts = layout::make_rank_layouts(sizes);
    const layout::RankGrid& grid = args.expert != 0 ? layouts.expert : layouts.dense;
    if (args.rank >= grid.world()) {
      sdk::fail(DPT_INVALID_ARGUMENT, "layout: rank " + std::to_string(args.rank) + " is not below world " +
                                          std::to_string(grid.world()));
    }
    const std::vector<layout::RankGroup> groups = grid.groups(megatron_names(args.groups, args.expert != 0));
    args.group_count = static_cast<uint32_t>(groups.size());
    args.group_size = static_cast<uint32_t>(groups.front().size());
    size_t written = 0;
    for (uint32_t g = 0; g < groups.size(); ++g) {
      for (uint32_t p = 0; p < groups[g].size(); ++p) {
        if (groups[g][p] == args.rank) {
          args.group = g;
          args.position = p;
        }
        if (args.ranks != nullptr) args.ranks[written++] = groups[g][p];
      }
    }
  } catch (const std::invalid_argument& e) {
    sdk::fail(DPT_INVALID_ARGUMENT, std::string("layout: ") + e.what());
  }
}

void answer_shard(dpt_parallel_shard_args& args) {
  sdk::require(args.ndim >= 1 && args.global_shape != nullptr && args.offset != nullptr && args.extent != nullptr,
               "shard: ndim >= 1, global_shape, offset and extent are required");
  sdk::require(args.shards >= 1 && args.index < args.shards, "shard: index " + std::to_string(args.index) +
                                                                 " is not below shards " + std::to_string(args.shards));
  for (int32_t d = 0; d < args.ndim; ++d) {
    sdk::require(args.global_shape[d] >= 0, "shard: global_shape[" + std::to_string(d) + "] is negative");
    args.offset[d] = 0;
    args.extent[d] = args.global_shape[d];
  }
  int32_t dim = 0;
  switch (args.split) {
    case DPT_SHARD_REPLICATED:
      return;
    case DPT_SHARD_COLUMN:
    case DPT_SHARD_EXPERT:
    case DPT_SHARD_VOCAB:
      dim = 0;
      break;
    case DPT_SHARD_ROW:
      dim = args.ndim - 1;
      break;
    default:
      sdk::fail(DPT_INVALID_ARGUMENT, "shard: unknown split kind " + std::to_string(args.split));
  }
  const int64_t length = args.global_shape[dim];
  const auto shards = static_cast<int64_t>(args.shards);
  if (args.split == DPT_SHARD_VOCAB) {
    const int64_t per_shard = (length + shards - 1) / shards;  // ceil: the padded partition
    const int64_t offset = std::min(length, per_shard * args.index);
    args.offset[dim] = offset;
    args.extent[dim] = std::min(per_shard, length - offset);
    return;
  }
  if (length % shards != 0) {
    sdk::fail(DPT_INVALID_ARGUMENT, "shard: dim " + std::to_string(dim) + " of length " + std::to_string(length) +
                                        " does not divide into " + std::to_string(shards) + " shards");
  }
  args.offset[dim] = length / shards * args.index;
  args.extent[dim] = length / shards;
}

}  // namespace dopant::moe_exchange
