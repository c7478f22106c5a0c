// MemoryAccount: byte accounting with a capacity limit (see memory_account.hpp).
#include "memory_account.hpp"

#include "error.hpp"

#include <cstdio>

namespace dopant {

std::string format_bytes(uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024.0 && unit < 5) {
    value /= 1024.0;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.2f %s", value, units[unit]);
  return text;
}

void MemoryAccount::reserve(uint64_t bytes) {
  std::lock_guard<std::mutex> guard(lock_);
  const uint64_t demand = bytes > UINT64_MAX - current_ ? UINT64_MAX : current_ + bytes;
  if (demand > peak_demand_) peak_demand_ = demand;
  if (limit_ != 0 && (bytes > limit_ || current_ > limit_ - bytes)) {
    const uint64_t available = limit_ > current_ ? limit_ - current_ : 0;
    throw Error(DPT_OUT_OF_MEMORY,
                "out of memory on " + place_ + ": requested " + std::to_string(bytes) + " bytes (" +
                    format_bytes(bytes) + "), available " + std::to_string(available) + " bytes (" +
                    format_bytes(available) + ") of the " + std::to_string(limit_) + "-byte limit (" +
                    format_bytes(limit_) + ")");
  }
  current_ += bytes;
  if (current_ > peak_) peak_ = current_;
}

void MemoryAccount::unreserve(uint64_t bytes) {
  std::lock_guard<std::mutex> guard(lock_);
  current_ -= bytes;
}

void MemoryAccount::record(void* pointer, uint64_t bytes) {
  std::lock_guard<std::mutex> guard(lock_);
  sizes_[pointer] = bytes;
}

uint64_t MemoryAccount::forget(void* pointer) {
  std::lock_guard<std::mutex> guard(lock_);
  auto found = sizes_.find(pointer);
  if (found == sizes_.end()) return 0;
  const uint64_t bytes = found->second;
  sizes_.erase(found);
  current_ -= bytes;
  return bytes;
}

void MemoryAccount::set_limit(uint64_t bytes) {
  std::lock_guard<std::mutex> guard(lock_);
  limit_ = bytes;
}

void MemoryAccount::set_place(std::string place) {
  std::lock_guard<std::mutex> guard(lock_);
  place_ = std::move(place);
}

void MemoryAccount::reset_peak() {
  std::lock_guard<std::mutex> guard(lock_);
  peak_ = current_;
  peak_demand_ = current_;
}

dpt_memory_stats MemoryAccount::stats() const {
  std::lock_guard<std::mutex> guard(lock_);
  dpt_memory_stats out{};
  out.struct_size = sizeof out;
  out.current_bytes = current_;
  out.peak_bytes = peak_;
  out.limit_bytes = limit_;
  out.allocation_count = sizes_.size();
  out.peak_demand_bytes = peak_demand_;
  return out;
}

}  // namespace dopant
