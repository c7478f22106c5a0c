// The CUDA device (built only when the toolkit is found): cudaMalloc device memory,
// cudaHostAlloc pinned memory, real streams and events, asynchronous copies. Every entry
// runs with the runtime's GPU current on the calling thread (host services are
// [any-thread], and a thread's current device is its own), and leaves no CUDA error
// latched behind a failure it has already reported.
#include "device.hpp"

#include "error.hpp"

#include <cuda_runtime_api.h>

namespace dopant {
namespace {

void check(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return;
  const dpt_code code = status == cudaErrorMemoryAllocation ? DPT_OUT_OF_MEMORY : DPT_INTERNAL;
  throw Error(code, std::string(what) + ": " + cudaGetErrorString(status));
}

// A failed allocation is reported as nullptr (the caller raises DPT_OUT_OF_MEMORY); the
// runtime's last error is cleared so that no later, unrelated cudaGetLastError sees it.
void* allocated_or_null(cudaError_t status, void* pointer) {
  if (status == cudaSuccess) return pointer;
  cudaGetLastError();
  return nullptr;
}

cudaStream_t native(dpt_stream* stream) {
  return stream != nullptr ? static_cast<cudaStream_t>(stream->native) : nullptr;
}

// Makes `device` the calling thread's current device for the scope and then restores the
// thread's previous one, so a host service called from a plugin's or the caller's thread
// works on the runtime's GPU and leaves that thread's own choice alone.
class DeviceScope {
 public:
  explicit DeviceScope(int device) {
    if (cudaGetDevice(&previous_) == cudaSuccess && previous_ == device) return;
    cudaGetLastError();  // a thread without a current device reports one; nothing is wrong
    check(cudaSetDevice(device), "cudaSetDevice");
    restore_ = true;
  }
  ~DeviceScope() {
    if (restore_) cudaSetDevice(previous_);
  }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int previous_ = 0;
  bool restore_ = false;
};

class CudaDevice final : public DeviceBackend {
 public:
  // Switching to the GPU once here makes a device that cannot be used fail set_device.
  explicit CudaDevice(int32_t index) : index_(index) { const DeviceScope scope(index_); }
  std::string name() const override { return "cuda:" + std::to_string(index_); }
  bool is_gpu() const override { return true; }
  int32_t index() const override { return index_; }

  void* allocate_device(uint64_t bytes, uint64_t) override {
    const DeviceScope scope(index_);
    void* pointer = nullptr;
    return allocated_or_null(cudaMalloc(&pointer, bytes == 0 ? 1 : bytes), pointer);
  }
  void free_device(void* pointer) override {
    const DeviceScope scope(index_);
    cudaFree(pointer);
  }
  void* allocate_pinned(uint64_t bytes, uint64_t) override {
    const DeviceScope scope(index_);
    void* pointer = nullptr;
    return allocated_or_null(cudaHostAlloc(&pointer, bytes == 0 ? 1 : bytes, cudaHostAllocDefault),
                             pointer);
  }
  void free_pinned(void* pointer) override {
    const DeviceScope scope(index_);
    cudaFreeHost(pointer);
  }

  dpt_stream* create_stream() override {
    const DeviceScope scope(index_);
    cudaStream_t stream = nullptr;
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    return new dpt_stream{stream};
  }
  void destroy_stream(dpt_stream* stream) override {
    if (stream == nullptr) return;
    const DeviceScope scope(index_);
    cudaStreamDestroy(native(stream));
    delete stream;
  }
  void synchronize(dpt_stream* stream) override {
    const DeviceScope scope(index_);
    check(stream != nullptr ? cudaStreamSynchronize(native(stream)) : cudaDeviceSynchronize(),
          "cudaStreamSynchronize");
  }
  void copy(void* dst, const void* src, uint64_t bytes, dpt_stream* stream) override {
    const DeviceScope scope(index_);
    check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, native(stream)), "cudaMemcpyAsync");
    if (stream == nullptr) check(cudaStreamSynchronize(nullptr), "cudaStreamSynchronize");
  }
  dpt_event* create_event() override {
    const DeviceScope scope(index_);
    cudaEvent_t event = nullptr;
    check(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), "cudaEventCreate");
    return new dpt_event{event};
  }
  void destroy_event(dpt_event* event) override {
    if (event == nullptr) return;
    const DeviceScope scope(index_);
    cudaEventDestroy(static_cast<cudaEvent_t>(event->native));
    delete event;
  }
  void record(dpt_event* event, dpt_stream* stream) override {
    const DeviceScope scope(index_);
    check(cudaEventRecord(static_cast<cudaEvent_t>(event->native), native(stream)), "cudaEventRecord");
  }
  void wait(dpt_stream* stream, dpt_event* event) override {
    const DeviceScope scope(index_);
    check(cudaStreamWaitEvent(native(stream), static_cast<cudaEvent_t>(event->native), 0),
          "cudaStreamWaitEvent");
  }
  void synchronize(dpt_event* event) override {
    const DeviceScope scope(index_);
    check(cudaEventSynchronize(static_cast<cudaEvent_t>(event->native)), "cudaEventSynchronize");
  }

 private:
  int32_t index_;
};

}  // namespace

std::unique_ptr<DeviceBackend> make_cuda_device(int32_t index) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    cudaGetLastError();
    throw Error(DPT_UNAVAILABLE, "device kind `cuda` asked for, but no GPU is present");
  }
  if (index < 0 || index >= count) {
    throw Error(DPT_INVALID_ARGUMENT, "device index " + std::to_string(index) + " out of range: " +
                                          std::to_string(count) + " GPU(s) present");
  }
  return std::make_unique<CudaDevice>(index);
}

}  // namespace dopant
