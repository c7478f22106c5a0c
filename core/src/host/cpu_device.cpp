// The CPU device: "device" memory is host memory, streams and events are placeholders and
// copies complete before the call returns.
#include "device.hpp"

#include "error.hpp"

#include <cstdlib>
#include <cstring>

namespace dopant {

void* aligned_host_alloc(uint64_t bytes, uint64_t alignment) {
  if (alignment == 0) alignment = 256;
  if ((alignment & (alignment - 1)) != 0) return nullptr;
  const uint64_t rounded = (bytes + alignment - 1) / alignment * alignment;
  return std::aligned_alloc(alignment, rounded == 0 ? alignment : rounded);
}

namespace {

class CpuDevice final : public DeviceBackend {
 public:
  std::string name() const override { return "cpu:0"; }
  bool is_gpu() const override { return false; }
  int32_t index() const override { return 0; }

  void* allocate_device(uint64_t bytes, uint64_t alignment) override {
    return aligned_host_alloc(bytes, alignment);
  }
  void free_device(void* pointer) override { std::free(pointer); }
  void* allocate_pinned(uint64_t bytes, uint64_t alignment) override {
    return aligned_host_alloc(bytes, alignment);
  }
  void free_pinned(void* pointer) override { std::free(pointer); }

  dpt_stream* create_stream() override { return new dpt_stream{}; }
  void destroy_stream(dpt_stream* stream) override { delete stream; }
  void synchronize(dpt_stream*) override {}
  void copy(void* dst, const void* src, uint64_t bytes, dpt_stream*) override {
    if (bytes != 0) std::memmove(dst, src, bytes);
  }
  dpt_event* create_event() override { return new dpt_event{}; }
  void destroy_event(dpt_event* event) override { delete event; }
  void record(dpt_event*, dpt_stream*) override {}
  void wait(dpt_stream*, dpt_event*) override {}
  void synchronize(dpt_event*) override {}
};

}  // namespace

std::unique_ptr<DeviceBackend> make_cpu_device() { return std::make_unique<CpuDevice>(); }

#ifndef DOPANT_HAVE_CUDA
std::unique_ptr<DeviceBackend> make_cuda_device(int32_t) {
  throw Error(DPT_UNAVAILABLE, "device kind `cuda` asked for, but this dopant was built without CUDA");
}
#endif

}  // namespace dopant
