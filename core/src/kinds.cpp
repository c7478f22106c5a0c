// The table of known kinds and generic access to the create/destroy prefix of kind tables.
#include "kinds.hpp"

#include <cstring>

namespace dopant {
namespace {

// The generic prefix is valid only while every kind lays out these members identically.
#define DOPANT_SAME_PREFIX(T)                                                               \
  static_assert(offsetof(T, create) == offsetof(dpt_optimizer_v1, create), #T " create"); \
  static_assert(offsetof(T, destroy) == offsetof(dpt_optimizer_v1, destroy), #T " destroy")
DOPANT_SAME_PREFIX(dpt_router_draft);
DOPANT_SAME_PREFIX(dpt_parallel_draft);
DOPANT_SAME_PREFIX(dpt_sandbox_draft);
DOPANT_SAME_PREFIX(dpt_checkpoint_draft);
#undef DOPANT_SAME_PREFIX

constexpr KindInfo kKinds[] = {
    {DPT_KIND_OPTIMIZER, "optimizer", DPT_OPTIMIZER_V1_SIZE_1_0, sizeof(dpt_optimizer_v1), false},
    // Draft kinds: no older sizes exist, so a table must have exactly the draft's size.
    {DPT_KIND_ROUTER, "router", sizeof(dpt_router_draft), sizeof(dpt_router_draft), true},
    {DPT_KIND_PARALLEL, "parallel", sizeof(dpt_parallel_draft), sizeof(dpt_parallel_draft), true},
    {DPT_KIND_SANDBOX, "sandbox", sizeof(dpt_sandbox_draft), sizeof(dpt_sandbox_draft), true},
    {DPT_KIND_CHECKPOINT, "checkpoint", sizeof(dpt_checkpoint_draft), sizeof(dpt_checkpoint_draft), true},
};

}  // namespace

const KindInfo* find_kind(std::string_view id) {
  for (const KindInfo& kind : kKinds) {
    if (id == kind.id) return &kind;
  }
  return nullptr;
}

CreateFn table_create(const void* table) {
  CreateFn fn;
  std::memcpy(&fn, static_cast<const char*>(table) + offsetof(dpt_optimizer_v1, create), sizeof fn);
  return fn;
}

DestroyFn table_destroy(const void* table) {
  DestroyFn fn;
  std::memcpy(&fn, static_cast<const char*>(table) + offsetof(dpt_optimizer_v1, destroy), sizeof fn);
  return fn;
}

}  // namespace dopant
