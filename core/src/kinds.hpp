// What the core knows about each kind: its id, the smallest table size it accepts (the size
// of its first release; for a draft kind, the draft's only size) and the size of the table this core was
// built with, and the slots a table must not leave NULL. Every kind table starts with
// the same three members (struct_size, create, destroy), which the core uses generically.
#pragma once

#include <dopant/abi.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace dopant {

// A function slot of a kind table, by name and byte offset.
struct TableSlot {
  const char* name;         // "step"
  size_t offset;
};

struct KindInfo {
  const char* id;           // "dopant.optimizer/1"
  const char* slot;         // "optimizer"
  size_t min_table_size;    // DPT_<KIND>_V1_SIZE_1_<first minor>
  size_t table_size;        // sizeof the current table
  bool draft;               // a draft kind ("dopant.<kind>.draft/0"): exact size only
  const TableSlot* required;  // slots the kind's header does not call optional
  size_t required_count;
};

// Why a table of `table_size` bytes cannot be read as `kind`, or "" when it can: a draft
// kind loads only at exactly its size; a released kind at its first release's size or more.
std::string table_size_problem(const KindInfo& kind, uint32_t table_size);

// nullptr when the core does not know the kind.
const KindInfo* find_kind(std::string_view id);

using CreateFn = dpt_error* (*)(const dpt_host*, const dpt_config*, dpt_instance**);
using DestroyFn = void (*)(dpt_instance*);

// The first required slot that `table` (widened to kind.table_size) leaves NULL, or nullptr.
const char* missing_required_slot(const KindInfo& kind, const void* table);

// The create and destroy slots of any kind table.
CreateFn table_create(const void* table);
DestroyFn table_destroy(const void* table);

}  // namespace dopant
