// The table of known kinds, their required slots, and generic access to the create/destroy
// prefix of kind tables.
#include "kinds.hpp"

#include <cstring>

namespace dopant {
namespace {

// The generic prefix is valid only while every kind lays out these members identically.
#define DOPANT_SAME_PREFIX(T)                                                               \
  static_assert(offsetof(T, create) == offsetof(dpt_optimizer_v1, create), #T " create"); \
  static_assert(offsetof(T, destroy) == offsetof(dpt_optimizer_v1, destroy), #T " destroy")
DOPANT_SAME_PREFIX(dpt_router_v1);
DOPANT_SAME_PREFIX(dpt_parallel_v1);
DOPANT_SAME_PREFIX(dpt_sandbox_v1);
DOPANT_SAME_PREFIX(dpt_checkpoint_v1);
#undef DOPANT_SAME_PREFIX

#define DOPANT_SLOT(T, FIELD) TableSlot{#FIELD, offsetof(T, FIELD)}
// Every slot of a kind except those its header marks "Optional" (optimizer `memory`;
// sandbox and checkpoint have none): the engine and the conformance kit call these unguarded.
constexpr TableSlot kOptimizerSlots[] = {
    DOPANT_SLOT(dpt_optimizer_v1, create),       DOPANT_SLOT(dpt_optimizer_v1, destroy),
    DOPANT_SLOT(dpt_optimizer_v1, add_param_group), DOPANT_SLOT(dpt_optimizer_v1, step),
    DOPANT_SLOT(dpt_optimizer_v1, export_state), DOPANT_SLOT(dpt_optimizer_v1, import_state)};
constexpr TableSlot kRouterSlots[] = {DOPANT_SLOT(dpt_router_v1, create), DOPANT_SLOT(dpt_router_v1, destroy),
                                      DOPANT_SLOT(dpt_router_v1, route)};
constexpr TableSlot kParallelSlots[] = {
    DOPANT_SLOT(dpt_parallel_v1, create),   DOPANT_SLOT(dpt_parallel_v1, destroy),
    DOPANT_SLOT(dpt_parallel_v1, layout),   DOPANT_SLOT(dpt_parallel_v1, shard),
    DOPANT_SLOT(dpt_parallel_v1, setup),    DOPANT_SLOT(dpt_parallel_v1, dispatch),
    DOPANT_SLOT(dpt_parallel_v1, combine),  DOPANT_SLOT(dpt_parallel_v1, release)};
constexpr TableSlot kSandboxSlots[] = {
    DOPANT_SLOT(dpt_sandbox_v1, create), DOPANT_SLOT(dpt_sandbox_v1, destroy),
    DOPANT_SLOT(dpt_sandbox_v1, acquire), DOPANT_SLOT(dpt_sandbox_v1, release),
    DOPANT_SLOT(dpt_sandbox_v1, exec),    DOPANT_SLOT(dpt_sandbox_v1, put),
    DOPANT_SLOT(dpt_sandbox_v1, get),     DOPANT_SLOT(dpt_sandbox_v1, reset),
    DOPANT_SLOT(dpt_sandbox_v1, stats)};
constexpr TableSlot kCheckpointSlots[] = {
    DOPANT_SLOT(dpt_checkpoint_v1, create),          DOPANT_SLOT(dpt_checkpoint_v1, destroy),
    DOPANT_SLOT(dpt_checkpoint_v1, reader_open),     DOPANT_SLOT(dpt_checkpoint_v1, reader_list),
    DOPANT_SLOT(dpt_checkpoint_v1, reader_read),     DOPANT_SLOT(dpt_checkpoint_v1, reader_close),
    DOPANT_SLOT(dpt_checkpoint_v1, writer_begin),    DOPANT_SLOT(dpt_checkpoint_v1, writer_add),
    DOPANT_SLOT(dpt_checkpoint_v1, writer_finalize), DOPANT_SLOT(dpt_checkpoint_v1, writer_abort)};
#undef DOPANT_SLOT

#define DOPANT_SLOTS(array) array, sizeof(array) / sizeof(array[0])
constexpr KindInfo kKinds[] = {
    {DPT_KIND_OPTIMIZER, "optimizer", DPT_OPTIMIZER_V1_SIZE_1_0, sizeof(dpt_optimizer_v1), false,
     DOPANT_SLOTS(kOptimizerSlots)},
    {DPT_KIND_SANDBOX, "sandbox", DPT_SANDBOX_V1_SIZE_1_4, sizeof(dpt_sandbox_v1), false, DOPANT_SLOTS(kSandboxSlots)},
    {DPT_KIND_ROUTER, "router", DPT_ROUTER_V1_SIZE_1_5, sizeof(dpt_router_v1), false, DOPANT_SLOTS(kRouterSlots)},
    {DPT_KIND_PARALLEL, "parallel", DPT_PARALLEL_V1_SIZE_1_5, sizeof(dpt_parallel_v1), false,
     DOPANT_SLOTS(kParallelSlots)},
    {DPT_KIND_CHECKPOINT, "checkpoint", DPT_CHECKPOINT_V1_SIZE_1_6, sizeof(dpt_checkpoint_v1), false,
     DOPANT_SLOTS(kCheckpointSlots)},
};
#undef DOPANT_SLOTS

}  // namespace

const KindInfo* find_kind(std::string_view id) {
  for (const KindInfo& kind : kKinds) {
    if (id == kind.id) return &kind;
  }
  return nullptr;
}

std::string table_size_problem(const KindInfo& kind, uint32_t table_size) {
  if (kind.draft && table_size != kind.table_size) {
    return "kind table struct_size " + std::to_string(table_size) + " differs from this core's draft of `" + kind.id +
           "` (" + std::to_string(kind.table_size) + " bytes); a draft kind loads only at its exact size";
  }
  if (table_size < kind.min_table_size) {
    return "kind table struct_size " + std::to_string(table_size) + " is smaller than the smallest released size " +
           std::to_string(kind.min_table_size);
  }
  return "";
}

const char* missing_required_slot(const KindInfo& kind, const void* table) {
  for (size_t i = 0; i < kind.required_count; ++i) {
    void (*fn)(void);
    std::memcpy(&fn, static_cast<const char*>(table) + kind.required[i].offset, sizeof fn);
    if (fn == nullptr) return kind.required[i].name;
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
