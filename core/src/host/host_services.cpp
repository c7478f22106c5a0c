// HostServices: memory, device selection, logging and metrics of one runtime.
#include "host_services.hpp"

#include "error.hpp"

#include <cstdio>
#include <cstdlib>

namespace dopant {

HostServices::HostServices(uint32_t threads, dpt_log_level log_level)
    : device_(make_cpu_device()), pool_(threads), log_level_(log_level) {}

HostServices::~HostServices() = default;

void HostServices::set_device(const std::string& kind, int32_t index, uint64_t memory_limit) {
  if (device_memory_.stats().allocation_count != 0) {
    throw Error(DPT_INVALID_ARGUMENT, "cannot change the device while device memory is allocated");
  }
  // Pinned memory is freed by the backend that allocated it (cudaFreeHost, std::free).
  if (pinned_memory_.stats().allocation_count != 0) {
    throw Error(DPT_INVALID_ARGUMENT, "cannot change the device while pinned host memory is allocated");
  }
  if (kind == "cpu") {
    device_ = make_cpu_device();
  } else if (kind == "cuda") {
    device_ = make_cuda_device(index);
  } else {
    throw Error(DPT_INVALID_ARGUMENT, "unknown device kind `" + kind + "` (expected `cpu` or `cuda`)");
  }
  device_memory_.set_place("device " + device_->name());
  device_memory_.set_limit(memory_limit);
  reset_peaks();
}

MemoryAccount& HostServices::account(dpt_memory_kind kind) {
  switch (kind) {
    case DPT_MEMORY_DEVICE: return device_memory_;
    case DPT_MEMORY_PINNED_HOST: return pinned_memory_;
    case DPT_MEMORY_HOST: return host_memory_;
    default: throw Error(DPT_INVALID_ARGUMENT, "unknown memory kind " + std::to_string(kind));
  }
}

void* HostServices::allocate(dpt_memory_kind kind, uint64_t bytes, uint64_t alignment) {
  if (alignment != 0 && (alignment & (alignment - 1)) != 0) {
    throw Error(DPT_INVALID_ARGUMENT, "alignment " + std::to_string(alignment) + " is not a power of two");
  }
  MemoryAccount& memory = account(kind);
  memory.reserve(bytes);
  void* pointer = nullptr;
  switch (kind) {
    case DPT_MEMORY_DEVICE: pointer = device_->allocate_device(bytes, alignment); break;
    case DPT_MEMORY_PINNED_HOST: pointer = device_->allocate_pinned(bytes, alignment); break;
    default: pointer = aligned_host_alloc(bytes, alignment); break;
  }
  if (pointer == nullptr) {
    memory.unreserve(bytes);
    throw Error(DPT_OUT_OF_MEMORY, "out of memory on " + memory.place() + ": the allocation of " +
                                       std::to_string(bytes) + " bytes (" + format_bytes(bytes) + ") failed");
  }
  memory.record(pointer, bytes);
  return pointer;
}

void HostServices::release(dpt_memory_kind kind, void* pointer) {
  if (pointer == nullptr) return;
  MemoryAccount& memory = account(kind);
  memory.forget(pointer);
  switch (kind) {
    case DPT_MEMORY_DEVICE: device_->free_device(pointer); break;
    case DPT_MEMORY_PINNED_HOST: device_->free_pinned(pointer); break;
    default: std::free(pointer); break;
  }
}

void HostServices::reset_peaks() {
  device_memory_.reset_peak();
  pinned_memory_.reset_peak();
  host_memory_.reset_peak();
}

void HostServices::log(dpt_log_level level, const std::string& owner, const char* message) const {
  if (level < log_level_) return;
  static const char* names[] = {"trace", "debug", "info", "warning", "error"};
  const char* name = level >= DPT_LOG_TRACE && level <= DPT_LOG_ERROR ? names[level] : "log";
  std::fprintf(stderr, "dopant [%s] %s: %s\n", owner.c_str(), name, message != nullptr ? message : "");
}

void HostServices::add_metric(MetricRecord metric) {
  std::lock_guard<std::mutex> guard(metrics_lock_);
  metrics_.push_back(std::move(metric));
}

std::vector<MetricRecord> HostServices::metrics() const {
  std::lock_guard<std::mutex> guard(metrics_lock_);
  return metrics_;
}

void HostServices::clear_metrics() {
  std::lock_guard<std::mutex> guard(metrics_lock_);
  metrics_.clear();
}

}  // namespace dopant
