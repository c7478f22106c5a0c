// dopant SDK — Allocation: memory from host->alloc, owned by one C++ object and returned
// with host->free when it goes out of scope, so the core accounts it (and caps it).
#pragma once

#include <dopant/host.h>

#include "errors.hpp"

#include <cstdint>
#include <utility>

namespace dopant::sdk {

class Allocation {
 public:
  Allocation() = default;
  // Throws sdk::Error (DPT_OUT_OF_MEMORY over the capacity limit) when the host refuses.
  Allocation(const dpt_host* host, dpt_memory_kind kind, uint64_t bytes, uint64_t alignment = 0)
      : host_(host), kind_(kind), bytes_(bytes) {
    check(host, host->alloc(host, kind, bytes, alignment, &data_));
  }
  Allocation(Allocation&& other) noexcept { swap(other); }
  Allocation& operator=(Allocation&& other) noexcept {
    Allocation moved(std::move(other));
    swap(moved);
    return *this;
  }
  Allocation(const Allocation&) = delete;
  Allocation& operator=(const Allocation&) = delete;
  ~Allocation() {
    if (data_ != nullptr) host_->free(host_, kind_, data_);
  }

  void* data() const { return data_; }
  template <typename T>
  T* as() const { return static_cast<T*>(data_); }
  uint64_t bytes() const { return bytes_; }
  dpt_memory_kind kind() const { return kind_; }

 private:
  void swap(Allocation& other) noexcept {
    std::swap(host_, other.host_);
    std::swap(kind_, other.kind_);
    std::swap(bytes_, other.bytes_);
    std::swap(data_, other.data_);
  }

  const dpt_host* host_ = nullptr;
  dpt_memory_kind kind_ = DPT_MEMORY_HOST;
  uint64_t bytes_ = 0;
  void* data_ = nullptr;
};

}  // namespace dopant::sdk
