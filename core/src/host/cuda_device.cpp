// The CUDA device (built only when the toolkit is found): cudaMalloc device memory,
// cudaHostAlloc pinned memory, real streams and events, asynchronous copies.
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

cudaStream_t native(dpt_stream* stream) {
  return stream != nullptr ? static_cast<cudaStream_t>(stream->native) : nullptr;
}

class CudaDevice final : public DeviceBackend {
 public:
  explicit CudaDevice(int32_t index) : index_(index) { check(cudaSetDevice(index), "cudaSetDevice"); }
  std::string name() const override { return "cuda:" + std::to_string(index_); }
  bool is_gpu() const override { return true; }
  int32_t index() const override { return index_; }

  void* allocate_device(uint64_t bytes, uint64_t) override {
    void* pointer = nullptr;
    return cudaMalloc(&pointer, bytes == 0 ? 1 : bytes) == cudaSuccess ? pointer : nullptr;
  }
  void free_device(void* pointer) override { cudaFree(pointer); }
  void* allocate_pinned(uint64_t bytes, uint64_t) override {
    void* pointer = nullptr;
    return cudaHostAlloc(&pointer, bytes == 0 ? 1 : bytes, cudaHostAllocDefault) == cudaSuccess ? pointer
                                                                                                : nullptr;
  }
  void free_pinned(void* pointer) override { cudaFreeHost(pointer); }

  dpt_stream* create_stream() override {
    cudaStream_t stream = nullptr;
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    return new dpt_stream{stream};
  }
  void destroy_stream(dpt_stream* stream) override {
    if (stream == nullptr) return;
    cudaStreamDestroy(native(stream));
    delete stream;
  }
  void synchronize(dpt_stream* stream) override {
    check(stream != nullptr ? cudaStreamSynchronize(native(stream)) : cudaDeviceSynchronize(),
          "cudaStreamSynchronize");
  }
  void copy(void* dst, const void* src, uint64_t bytes, dpt_stream* stream) override {
    check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, native(stream)), "cudaMemcpyAsync");
    if (stream == nullptr) check(cudaStreamSynchronize(nullptr), "cudaStreamSynchronize");
  }
  dpt_event* create_event() override {
    cudaEvent_t event = nullptr;
    check(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), "cudaEventCreate");
    return new dpt_event{event};
  }
  void destroy_event(dpt_event* event) override {
    if (event == nullptr) return;
    cudaEventDestroy(static_cast<cudaEvent_t>(event->native));
    delete event;
  }
  void record(dpt_event* event, dpt_stream* stream) override {
    check(cudaEventRecord(static_cast<cudaEvent_t>(event->native), native(stream)), "cudaEventRecord");
  }
  void wait(dpt_stream* stream, dpt_event* event) override {
    check(cudaStreamWaitEvent(native(stream), static_cast<cudaEvent_t>(event->native), 0),
          "cudaStreamWaitEvent");
  }
  void synchronize(dpt_event* event) override {
    check(cudaEventSynchronize(static_cast<cudaEvent_t>(event->native)), "cudaEventSynchronize");
  }

 private:
  int32_t index_;
};

}  // namespace

std::unique_ptr<DeviceBackend> make_cuda_device(int32_t index) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    throw Error(DPT_UNAVAILABLE, "device kind `cuda` asked for, but no GPU is present");
  }
  if (index < 0 || index >= count) {
    throw Error(DPT_INVALID_ARGUMENT, "device index " + std::to_string(index) + " out of range: " +
                                          std::to_string(count) + " GPU(s) present");
  }
  return std::make_unique<CudaDevice>(index);
}

}  // namespace dopant
