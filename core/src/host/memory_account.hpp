// Accounting of one memory kind: current and peak bytes, live allocations and an optional
// capacity limit that turns an over-allocation into an out-of-memory error, as a GPU would.
#pragma once

#include <dopant/host.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

namespace dopant {

class MemoryAccount {
 public:
  explicit MemoryAccount(std::string place) : place_(std::move(place)) {}

  // Counts `bytes` against the limit. Throws Error(DPT_OUT_OF_MEMORY) naming the place, the
  // requested bytes and the bytes still available when the limit would be passed; the
  // refused request still counts towards the peak demand.
  void reserve(uint64_t bytes);
  // Takes back a reservation whose allocation failed.
  void unreserve(uint64_t bytes);
  // Remembers the size of a successful allocation so that forget() can return it.
  void record(void* pointer, uint64_t bytes);
  // Returns the bytes of `pointer` and stops counting them; 0 when it was not recorded.
  uint64_t forget(void* pointer);

  void set_limit(uint64_t bytes);
  void set_place(std::string place);
  void reset_peak();
  dpt_memory_stats stats() const;
  const std::string& place() const { return place_; }

 private:
  std::string place_;  // "device cpu:0", "pinned host", "host"
  mutable std::mutex lock_;
  uint64_t current_ = 0;
  uint64_t peak_ = 0;
  uint64_t peak_demand_ = 0;  // includes refused requests
  uint64_t limit_ = 0;
  std::unordered_map<void*, uint64_t> sizes_;
};

// "1.50 GiB"
std::string format_bytes(uint64_t bytes);

}  // namespace dopant
