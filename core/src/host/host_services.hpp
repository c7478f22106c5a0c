// Everything behind the dpt_host table of one runtime: memory accounts per kind, the
// device backend, the thread pool, the metric sink, the log and the cancellation flag.
#pragma once

#include "device.hpp"
#include "memory_account.hpp"
#include "thread_pool.hpp"

#include <dopant/comm/communicator.hpp>

#include <dopant/host.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace dopant {

struct MetricRecord {
  std::string name;
  double value;
  std::string unit;
  dpt_better better;
};

class HostServices {
 public:
  HostServices(uint32_t threads, dpt_log_level log_level);
  ~HostServices();

  // Selects the device; only while no device or pinned memory is allocated. Resets peaks.
  void set_device(const std::string& kind, int32_t index, uint64_t memory_limit);
  DeviceBackend& device() { return *device_; }

  // Throws Error(DPT_OUT_OF_MEMORY) past the kind's limit or when the backend fails.
  void* allocate(dpt_memory_kind kind, uint64_t bytes, uint64_t alignment);
  void release(dpt_memory_kind kind, void* pointer);
  MemoryAccount& account(dpt_memory_kind kind);
  void reset_peaks();

  ThreadPool& pool() { return pool_; }

  void log(dpt_log_level level, const std::string& owner, const char* message) const;
  dpt_log_level log_level() const { return log_level_; }

  void add_metric(MetricRecord metric);
  std::vector<MetricRecord> metrics() const;
  void clear_metrics();

  std::atomic<bool> cancelled{false};

  // The backend of the world communicator: "auto", "local", "mpi" or "nccl" (a run file's
  // [run] comm; world_communicator.cpp, docs/parallelism.md). Refuses now, with Error, what
  // cannot work here; once the world is made, only the same backend again.
  void set_comm(const std::string& backend);
  // The run's world communicator, made on first use with the chosen backend (default
  // "auto"). Throws Error or comm::CommError.
  comm::Communicator& world_communicator();

 private:
  std::unique_ptr<DeviceBackend> device_;
  MemoryAccount device_memory_{"device cpu:0"};
  MemoryAccount pinned_memory_{"pinned host memory"};
  MemoryAccount host_memory_{"host memory"};
  ThreadPool pool_;
  dpt_log_level log_level_;
  mutable std::mutex metrics_lock_;
  std::vector<MetricRecord> metrics_;
  std::mutex world_lock_;
  std::string comm_backend_ = "auto";
  std::unique_ptr<comm::Communicator> world_;
};

// Who a host table speaks for: the runtime's services and the owner named in logs.
struct HostContext {
  HostServices* services;
  std::string owner;  // plugin id, library id or "runtime"
};

// The table of a host extension by id (host_comm.cpp), or NULL.
const void* host_extension(const char* id);

// Fills a host table whose host_data points at `context` (which must outlive it).
dpt_host make_host_table(HostContext* context);

}  // namespace dopant
