// pinned_copy_probe [MIB]: the copy bandwidth an offloaded optimizer step can use at best,
// measured on the current GPU with MIB MiB (default 1024) per direction between pinned host
// memory (cudaHostAlloc) and device memory: host to device alone, device to host alone, and
// both at once on two non-blocking streams, the way the offload pipeline's load and store
// streams run. Each figure is the median of 5 timed repetitions after one warm-up, in
// bytes per second (for `both`, the bytes of both directions over the time both took).
// Prints one `name value` line per figure.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

void check(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return;
  std::fprintf(stderr, "pinned_copy_probe: %s: %s\n", what, cudaGetErrorString(status));
  std::exit(1);
}

struct Buffers {
  void* host = nullptr;    // [bytes] pinned
  void* device = nullptr;  // [bytes]
};

// Seconds one run of `queue` takes on the GPU: from an event before its copies (every
// stream waits for it) to an event after the last of them (the first stream waits for all).
template <typename Queue>
double timed(const std::vector<cudaStream_t>& streams, Queue queue) {
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  check(cudaEventRecord(start, streams[0]), "cudaEventRecord");
  for (size_t s = 1; s < streams.size(); ++s) {
    check(cudaStreamWaitEvent(streams[s], start, 0), "cudaStreamWaitEvent");
  }
  queue();
  for (size_t s = 1; s < streams.size(); ++s) {
    cudaEvent_t done;
    check(cudaEventCreateWithFlags(&done, cudaEventDisableTiming), "cudaEventCreate");
    check(cudaEventRecord(done, streams[s]), "cudaEventRecord");
    check(cudaStreamWaitEvent(streams[0], done, 0), "cudaStreamWaitEvent");
    check(cudaEventDestroy(done), "cudaEventDestroy");
  }
  check(cudaEventRecord(stop, streams[0]), "cudaEventRecord");
  check(cudaEventSynchronize(stop), "cudaEventSynchronize");
  float milliseconds = 0;
  check(cudaEventElapsedTime(&milliseconds, start, stop), "cudaEventElapsedTime");
  check(cudaEventDestroy(start), "cudaEventDestroy");
  check(cudaEventDestroy(stop), "cudaEventDestroy");
  return milliseconds / 1e3;
}

// Bytes per second: `bytes` over the median of 5 timed runs, after one warm-up run.
template <typename Queue>
double rate(double bytes, const std::vector<cudaStream_t>& streams, Queue queue) {
  timed(streams, queue);
  std::vector<double> seconds;
  for (int repetition = 0; repetition < 5; ++repetition) seconds.push_back(timed(streams, queue));
  std::sort(seconds.begin(), seconds.end());
  return bytes / seconds[seconds.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const size_t mib = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1024;
  const size_t bytes = mib << 20;
  if (bytes == 0) {
    std::fprintf(stderr, "usage: pinned_copy_probe [MIB]\n");
    return 2;
  }
  Buffers load, store;
  for (Buffers* b : {&load, &store}) {
    check(cudaHostAlloc(&b->host, bytes, cudaHostAllocDefault), "cudaHostAlloc");
    check(cudaMalloc(&b->device, bytes), "cudaMalloc");
  }
  std::vector<cudaStream_t> streams(2);
  for (cudaStream_t& s : streams) {
    check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
  }
  const auto h2d = [&] {
    check(cudaMemcpyAsync(load.device, load.host, bytes, cudaMemcpyHostToDevice, streams[0]),
          "cudaMemcpyAsync");
  };
  const auto d2h = [&] {
    check(cudaMemcpyAsync(store.host, store.device, bytes, cudaMemcpyDeviceToHost, streams[1]),
          "cudaMemcpyAsync");
  };
  std::printf("bytes_per_direction %zu\n", bytes);
  std::printf("h2d_bytes_per_second %.6e\n", rate(bytes, {streams[0]}, h2d));
  std::printf("d2h_bytes_per_second %.6e\n", rate(bytes, {streams[1]}, d2h));
  std::printf("both_bytes_per_second %.6e\n", rate(2.0 * bytes, streams, [&] {
                h2d();
                d2h();
              }));
  for (cudaStream_t s : streams) cudaStreamDestroy(s);
  for (Buffers* b : {&load, &store}) {
    cudaFreeHost(b->host);
    cudaFree(b->device);
  }
  return 0;
}
