// The adapter for older minors: copies a struct of the size its producer wrote into a
// zeroed struct of the size this core knows, so engine code sees one version only and
// slots an older plugin did not have read as NULL ("not provided").
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>

namespace dopant {

// A heap copy of `current_size` bytes: the first min(struct_size, current_size) bytes of
// `source`, zeros after, and struct_size rewritten to `current_size`.
inline std::unique_ptr<uint64_t[]> widen_struct(const void* source, size_t current_size) {
  uint32_t given = 0;
  std::memcpy(&given, source, sizeof given);
  const size_t words = (current_size + sizeof(uint64_t) - 1) / sizeof(uint64_t);
  auto copy = std::make_unique<uint64_t[]>(words);  // zeroed, pointer-aligned
  std::memcpy(copy.get(), source, given < current_size ? given : current_size);
  const uint32_t widened = static_cast<uint32_t>(current_size);
  std::memcpy(copy.get(), &widened, sizeof widened);
  return copy;
}

template <typename T>
const T* as(const std::unique_ptr<uint64_t[]>& storage) {
  return reinterpret_cast<const T*>(storage.get());
}

}  // namespace dopant
