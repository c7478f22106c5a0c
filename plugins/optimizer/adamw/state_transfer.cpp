// upload / download: host->copy on the default stream, then a synchronize.
#include "state_transfer.hpp"

#include <dopant/sdk/errors.hpp>

namespace dopant::adamw_plugin {

void upload(const dpt_host* host, void* device_dst, const void* host_src, uint64_t bytes) {
  if (bytes == 0) return;
  sdk::check(host, host->copy(host, device_dst, DPT_MEMORY_DEVICE, host_src, DPT_MEMORY_HOST,
                              bytes, nullptr));
  sdk::check(host, host->stream_synchronize(host, nullptr));
}

void download(const dpt_host* host, void* host_dst, const void* device_src, uint64_t bytes) {
  if (bytes == 0) return;
  sdk::check(host, host->copy(host, host_dst, DPT_MEMORY_HOST, device_src, DPT_MEMORY_DEVICE,
                              bytes, nullptr));
  sdk::check(host, host->stream_synchronize(host, nullptr));
}

std::vector<float> download_floats(const dpt_host* host, const float* device_src,
                                   uint64_t count) {
  std::vector<float> values(count);
  download(host, values.data(), device_src, count * sizeof(float));
  return values;
}

}  // namespace dopant::adamw_plugin
