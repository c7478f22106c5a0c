// Helper of safetensors_interrupt_test: installs dopant's interrupt cleanup, as the dopant
// executable does, begins a safetensors writer at argv[1], writes one shard's worth and the
// start of the next, prints "ready" and waits to be signalled.
#include "dopant/safetensors/writer.hpp"

#include <dopant/sdk/tensors.hpp>
#include <dopant/support/child_processes.hpp>

#include <unistd.h>

#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  dopant::install_interrupt_cleanup();
  std::vector<float> values(256, 1.0f);  // [256] fp32, 1 KiB
  int64_t shape[] = {256}, strides[] = {1};
  const DLTensor tensor{values.data(), {kDLCPU, 0}, 1, dopant::sdk::kFloat32, shape, strides, 0};
  dopant::safetensors::Writer writer(argv[1], 1024, {}, nullptr);
  writer.add("a", tensor);
  writer.add("b", tensor);  // closes the first shard
  std::printf("ready\n");
  std::fflush(stdout);
  pause();
  return 0;
}
