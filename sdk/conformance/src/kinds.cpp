// The kinds of ABI 1.x, as the conformance kit checks them.
#include "kinds.hpp"

#include <cstring>

namespace dopant::conformance {

namespace {

#define DPT_SLOT(TABLE, FIELD) Slot{#FIELD, offsetof(TABLE, FIELD)}

const std::vector<KindInfo>& kinds() {
  static const std::vector<KindInfo> all = {
      {DPT_KIND_OPTIMIZER, DPT_OPTIMIZER_V1_SIZE_1_0,
       {DPT_SLOT(dpt_optimizer_v1, create), DPT_SLOT(dpt_optimizer_v1, destroy),
        DPT_SLOT(dpt_optimizer_v1, add_param_group), DPT_SLOT(dpt_optimizer_v1, step),
        DPT_SLOT(dpt_optimizer_v1, export_state), DPT_SLOT(dpt_optimizer_v1, import_state)},
       offsetof(dpt_optimizer_v1, destroy)},
      {DPT_KIND_ROUTER, DPT_ROUTER_V1_SIZE_1_5,
       {DPT_SLOT(dpt_router_v1, create), DPT_SLOT(dpt_router_v1, destroy),
        DPT_SLOT(dpt_router_v1, route)},
       offsetof(dpt_router_v1, destroy)},
      {DPT_KIND_PARALLEL, DPT_PARALLEL_V1_SIZE_1_5,
       {DPT_SLOT(dpt_parallel_v1, create), DPT_SLOT(dpt_parallel_v1, destroy),
        DPT_SLOT(dpt_parallel_v1, layout), DPT_SLOT(dpt_parallel_v1, shard),
        DPT_SLOT(dpt_parallel_v1, setup), DPT_SLOT(dpt_parallel_v1, dispatch),
        DPT_SLOT(dpt_parallel_v1, combine), DPT_SLOT(dpt_parallel_v1, release)},
       offsetof(dpt_parallel_v1, destroy)},
      {DPT_KIND_SANDBOX, DPT_SANDBOX_V1_SIZE_1_4,
       {DPT_SLOT(dpt_sandbox_v1, create), DPT_SLOT(dpt_sandbox_v1, destroy),
        DPT_SLOT(dpt_sandbox_v1, acquire), DPT_SLOT(dpt_sandbox_v1, release),
        DPT_SLOT(dpt_sandbox_v1, exec), DPT_SLOT(dpt_sandbox_v1, put),
        DPT_SLOT(dpt_sandbox_v1, get), DPT_SLOT(dpt_sandbox_v1, reset),
        DPT_SLOT(dpt_sandbox_v1, stats)},
       offsetof(dpt_sandbox_v1, destroy)},
      {DPT_KIND_CHECKPOINT, DPT_CHECKPOINT_V1_SIZE_1_6,
       {DPT_SLOT(dpt_checkpoint_v1, create), DPT_SLOT(dpt_checkpoint_v1, destroy),
        DPT_SLOT(dpt_checkpoint_v1, reader_open), DPT_SLOT(dpt_checkpoint_v1, reader_list),
        DPT_SLOT(dpt_checkpoint_v1, reader_read), DPT_SLOT(dpt_checkpoint_v1, reader_close),
        DPT_SLOT(dpt_checkpoint_v1, writer_begin), DPT_SLOT(dpt_checkpoint_v1, writer_add),
        DPT_SLOT(dpt_checkpoint_v1, writer_finalize), DPT_SLOT(dpt_checkpoint_v1, writer_abort)},
       offsetof(dpt_checkpoint_v1, destroy)},
  };
  return all;
}

#undef DPT_SLOT

}  // namespace

const KindInfo* find_kind(const char* id) {
  if (id == nullptr) return nullptr;
  for (const KindInfo& kind : kinds()) {
    if (std::strcmp(kind.id, id) == 0) return &kind;
  }
  return nullptr;
}

std::string known_kind_ids() {
  std::string text;
  for (const KindInfo& kind : kinds()) text += (text.empty() ? "" : ", ") + std::string(kind.id);
  return text;
}

}  // namespace dopant::conformance
