// copy_now, upload, download (host->copy on the default stream, then a synchronize) and
// download_widened.
#include "dopant/adamw_common/state_copy.hpp"

#include <dopant/sdk/errors.hpp>

namespace dopant::adamw_common {

void copy_now(const dpt_host* host, void* dst, dpt_memory_kind dst_kind, const void* src,
              dpt_memory_kind src_kind, uint64_t bytes) {
  if (bytes == 0) return;
  sdk::check(host, host->copy(host, dst, dst_kind, src, src_kind, bytes, nullptr));
  sdk::check(host, host->stream_synchronize(host, nullptr));
}

void upload(const dpt_host* host, void* device_dst, const void* host_src, uint64_t bytes) {
  copy_now(host, device_dst, DPT_MEMORY_DEVICE, host_src, DPT_MEMORY_HOST, bytes);
}

void download(const dpt_host* host, void* host_dst, const void* device_src, uint64_t bytes) {
  copy_now(host, host_dst, DPT_MEMORY_HOST, device_src, DPT_MEMORY_DEVICE, bytes);
}

std::vector<float> download_widened(const dpt_host* host, adamw_kernels::Variant variant,
                                    adamw_kernels::ParamDtype dtype, const void* device_param,
                                    uint64_t count) {
  std::vector<uint16_t> narrow(count);
  download(host, narrow.data(), device_param, count * sizeof(uint16_t));
  std::vector<float> wide(count);
  adamw_kernels::widen_to_float(variant, dtype, narrow.data(), wide.data(), count);
  return wide;
}

}  // namespace dopant::adamw_common
