// dopant SDK — reading and writing sized ABI structs. Inputs are copied into a zeroed
// struct of this SDK's size, touching no byte beyond the caller's struct_size, and keep the
// caller's struct_size (capped at this SDK's), so DPT_HAS_FIELD on the copy still tells a
// field the caller did not send from one it set to zero; outputs are written only up to
// the struct_size the caller set.
#pragma once

#include <dopant/base.h>

#include "errors.hpp"

#include <algorithm>
#include <cstring>
#include <string>

namespace dopant::sdk {

namespace detail {
[[noreturn]] inline void too_small(const char* what, uint32_t size, size_t min_size) {
  fail(DPT_INVALID_ARGUMENT, std::string(what) + " has struct_size " + std::to_string(size) +
                                 ", below the minimum " + std::to_string(min_size));
}
}  // namespace detail

// A copy of `*in` widened to this SDK's layout: fields the caller did not have are zero,
// and struct_size is the caller's, capped at sizeof(Struct). Throws DPT_INVALID_ARGUMENT
// when `in` is NULL or smaller than `min_size`.
template <typename Struct>
Struct read_struct(const Struct* in, size_t min_size, const char* what) {
  if (in == nullptr) fail(DPT_INVALID_ARGUMENT, std::string(what) + " is NULL");
  if (in->struct_size < min_size) detail::too_small(what, in->struct_size, min_size);
  Struct copy{};
  if (in->struct_size >= sizeof(Struct)) {
    // The common case, a caller of this SDK's minor or a later one: one fixed-size copy.
    // struct_size is rewritten only when it must be capped; rewriting it always would make
    // the compiler copy from byte 4 on, in stores that the loads of the fields straddle
    // (a store-forwarding stall that doubled the cost of a call).
    std::memcpy(static_cast<void*>(&copy), in, sizeof(Struct));
    if (in->struct_size > sizeof(Struct)) copy.struct_size = static_cast<uint32_t>(sizeof(Struct));
  } else {
    std::memcpy(static_cast<void*>(&copy), in, in->struct_size);  // struct_size comes along
  }
  return copy;
}

// Writes `value` into `*out` up to the struct_size the caller put in `out`, which is kept.
// Throws DPT_INVALID_ARGUMENT when `out` is NULL or smaller than `min_size`.
template <typename Struct>
void write_struct(Struct* out, const Struct& value, size_t min_size, const char* what) {
  if (out == nullptr) fail(DPT_INVALID_ARGUMENT, std::string(what) + " is NULL");
  const uint32_t size = out->struct_size;
  if (size < min_size) detail::too_small(what, size, min_size);
  std::memcpy(static_cast<void*>(out), &value, std::min<size_t>(size, sizeof(Struct)));
  out->struct_size = size;
}

}  // namespace dopant::sdk
