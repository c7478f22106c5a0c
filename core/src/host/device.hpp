// The device behind DPT_MEMORY_DEVICE, streams and events: a CPU backend (memory from the
// host heap, synchronous copies) and, when built with CUDA, a GPU backend.
#pragma once

#include <dopant/host.h>

#include <cstdint>
#include <memory>
#include <string>

// Concrete handles behind the opaque ABI types; `native` is the backend's own object
// (cudaStream_t / cudaEvent_t on CUDA, unused on CPU).
struct dpt_stream {
  void* native = nullptr;
};
struct dpt_event {
  void* native = nullptr;
};

namespace dopant {

class DeviceBackend {
 public:
  virtual ~DeviceBackend() = default;
  virtual std::string name() const = 0;  // "cpu:0", "cuda:0"
  virtual bool is_gpu() const = 0;
  virtual int32_t index() const = 0;

  // Raw allocations; nullptr on failure. Accounting is done by the caller.
  virtual void* allocate_device(uint64_t bytes, uint64_t alignment) = 0;
  virtual void free_device(void* pointer) = 0;
  virtual void* allocate_pinned(uint64_t bytes, uint64_t alignment) = 0;
  virtual void free_pinned(void* pointer) = 0;

  // Each throws Error on failure.
  virtual dpt_stream* create_stream() = 0;
  virtual void destroy_stream(dpt_stream* stream) = 0;
  virtual void synchronize(dpt_stream* stream) = 0;
  virtual void copy(void* dst, const void* src, uint64_t bytes, dpt_stream* stream) = 0;
  virtual dpt_event* create_event() = 0;
  virtual void destroy_event(dpt_event* event) = 0;
  virtual void record(dpt_event* event, dpt_stream* stream) = 0;
  virtual void wait(dpt_stream* stream, dpt_event* event) = 0;
  virtual void synchronize(dpt_event* event) = 0;
};

std::unique_ptr<DeviceBackend> make_cpu_device();
// Throws Error(DPT_UNAVAILABLE) when CUDA is not built in or no such GPU is present.
std::unique_ptr<DeviceBackend> make_cuda_device(int32_t index);

// Aligned host allocation shared by backends; alignment 0 means 256.
void* aligned_host_alloc(uint64_t bytes, uint64_t alignment);

}  // namespace dopant
