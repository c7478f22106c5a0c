// Moving optimizer state between host vectors and the run's device memory through the host's
// copy service (CUDA copies on a GPU run, plain copies on a CPU run), each call complete
// when it returns.
#pragma once

#include <dopant/host.h>

#include <cstdint>
#include <vector>

namespace dopant::adamw_plugin {

// Copies `bytes` from host memory to device memory and waits for the copy.
void upload(const dpt_host* host, void* device_dst, const void* host_src, uint64_t bytes);

// Copies `bytes` from device memory to host memory and waits for the copy.
void download(const dpt_host* host, void* host_dst, const void* device_src, uint64_t bytes);

// [count] fp32 values from device memory.
std::vector<float> download_floats(const dpt_host* host, const float* device_src,
                                   uint64_t count);

}  // namespace dopant::adamw_plugin
