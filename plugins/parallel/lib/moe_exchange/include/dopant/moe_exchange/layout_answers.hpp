// The parallel kind's two pure slots: a layout's groups and a rank's place in them (from
// dopant/support/rank_layout.hpp, Megatron's RankGenerator), and the slice of a parameter
// a shard holds. Both throw sdk::Error(DPT_INVALID_ARGUMENT) naming what is inconsistent.
#pragma once

#include <dopant/parallel.h>

namespace dopant::moe_exchange {

void answer_layout(dpt_parallel_layout_args& args);
void answer_shard(dpt_parallel_shard_args& args);

}  // namespace dopant::moe_exchange
