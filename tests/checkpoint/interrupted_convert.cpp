// Helper of convert_interrupt_test: installs dopant's interrupt cleanup and an
// InterruptGrace, as `dopant convert` does, and converts the qwen2_stacked fixture (argv[1])
// to argv[2] with `stream`, one tensor per task. At its first progress report it prints
// "ready" and waits for a signal; the cancel predicate must then stop the conversion, which
// prints the error's code ("cancelled 11") before the grace lets the signal end the process.
#include <dopant/megatron_hf/convert.hpp>
#include <dopant/megatron_hf/mapping.hpp>
#include <dopant/megatron_hf/source.hpp>
#include <dopant/safetensors/writer.hpp>
#include <dopant/sdk/errors.hpp>
#include <dopant/support/child_processes.hpp>

#include <chrono>
#include <cstdio>
#include <thread>

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  dopant::install_interrupt_cleanup();
  namespace mhf = dopant::megatron_hf;
  const auto source = mhf::open_megatron(argv[1]);
  mhf::ModelArgs args;
  args.model = mhf::Model::kQwen2;
  args.heads = 4;
  args.query_groups = 2;
  args.vocab_size = 10;
  const auto plan = mhf::plan_hf(source->listing(), args);
  const dopant::InterruptGrace grace(10);
  mhf::ConvertOptions options;
  options.block_bytes = 1;
  options.progress = [](uint64_t, uint64_t) {
    static bool waited = false;
    if (waited) return;
    waited = true;
    std::printf("ready\n");
    std::fflush(stdout);
    while (!dopant::InterruptGrace::requested()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  };
  options.is_cancelled = dopant::InterruptGrace::requested;
  try {
    dopant::safetensors::Writer writer(argv[2], 512, {{"format", "pt"}}, nullptr);
    mhf::convert(*source, plan, writer, options);
    writer.finalize();
    std::printf("finished\n");
  } catch (const dopant::sdk::Error& e) {
    std::printf("cancelled %d\n", static_cast<int>(e.code()));
  }
  std::fflush(stdout);
  return 0;
}
