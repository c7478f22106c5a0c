// Copies of optimizer state through the host's copy service (CUDA copies on a GPU run, plain
// copies on a CPU run), each complete when it returns, and the initial master weights.
#pragma once

#include <dopant/host.h>

#include <cstdint>
#include <vector>

#include "dopant/adamw_kernels/kernels.hpp"

namespace dopant::adamw_common {

// Copies `bytes` from `src` (memory of `src_kind`) to `dst` (of `dst_kind`) on the default
// stream and waits for the copy.
void copy_now(const dpt_host* host, void* dst, dpt_memory_kind dst_kind, const void* src,
              dpt_memory_kind src_kind, uint64_t bytes);

// copy_now from host memory to device memory.
void upload(const dpt_host* host, void* device_dst, const void* host_src, uint64_t bytes);

// copy_now from device memory to host memory.
void download(const dpt_host* host, void* host_dst, const void* device_src, uint64_t bytes);

// The [count] elements of a bf16/fp16 parameter in device memory, widened exactly to fp32
// with `variant`: the initial master weights.
std::vector<float> download_widened(const dpt_host* host, adamw_kernels::Variant variant,
                                    adamw_kernels::ParamDtype dtype, const void* device_param,
                                    uint64_t count);

}  // namespace dopant::adamw_common
