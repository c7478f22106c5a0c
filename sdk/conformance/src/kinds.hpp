// What the conformance kit knows about each kind: its id, the size of its first released table,
// where its mandatory slots sit (create and destroy included), and where destroy sits.
#pragma once

#include <dopant/abi.h>

#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

namespace dopant::conformance {

struct Slot {
  const char* name;
  size_t offset;
};

struct KindInfo {
  const char* id;            // "dopant.optimizer/1"
  size_t min_table_size;     // struct_size the kind's first released table has at least
  std::vector<Slot> mandatory;  // slots that may not be NULL, create and destroy included
  size_t destroy_offset;
};

// The kind with that id, or nullptr.
const KindInfo* find_kind(const char* id);

// Every kind id, for messages.
std::string known_kind_ids();

using DestroyFn = void (*)(dpt_instance*);
using AnySlot = void (*)();

// The function pointer stored at `offset` of a kind table.
template <typename Fn>
Fn slot_at(const void* table, size_t offset) {
  Fn fn = nullptr;
  std::memcpy(&fn, static_cast<const char*>(table) + offset, sizeof fn);
  return fn;
}

}  // namespace dopant::conformance
