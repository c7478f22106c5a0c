// dopant — the command line: version, plugin listing and description, conformance checks,
// runs of TOML-configured workloads, and checkpoint inspection.
#include "ab_command.hpp"
#include "commands.hpp"
#include "plan_command.hpp"
#include "suite_command.hpp"

#include <dopant/support/child_processes.hpp>

#include <cstdio>
#include <stdexcept>
#include <string>

namespace {

void print_usage() {
  std::printf(
      "usage: dopant [--plugin-path DIR]... [--log-level LEVEL] [--threads N] [COMMAND]\n"
      "\n"
      "commands:\n"
      "  (none) | suite [--scale F] [--repetitions N] [--only KIND]\n"
      "                                the built-in suite: one headline A/B per kind\n"
      "  --version                     print the dopant version and ABI version\n"
      "  plugins list [--json]         list loaded plugins\n"
      "  plugins describe NAME         show a plugin's parameters\n"
      "  check PLUGIN_OR_PATH          run the conformance kit on a plugin or a library\n"
      "  run FILE [--variant NAME] [--repetitions N] [--json OUT]\n"
      "                                run one configuration of a TOML run file\n"
      "  ab FILE [--repetitions N] [--json|--csv|--markdown|--svg OUT] ...\n"
      "                                A/B of the base configuration against each variant\n"
      "  plan memory FILE [--json OUT] per-GPU peak memory of a training configuration\n"
      "  inspect CHECKPOINT            tensors, dtypes, shapes and stored chunks of a checkpoint\n"
      "  convert --from megatron --to hf --model M SRC DST [--strategy stream|gather] ...\n"
      "                                a Megatron checkpoint as Hugging Face safetensors\n"
      "  layout --world N [--tp T] [--pp P] [--ep E] [--cp C] [--dp D] [--etp X] [--order O] [--json]\n"
      "                                Megatron's rank coordinates and groups, dense and expert\n"
      "  sandbox exec [--plugin NAME] [--set NAME=VALUE]... [--stdin] -- CMD [ARGS...]\n"
      "                                run one command in a sandbox box, output and status passed through\n"
      "  sandbox serve --socket PATH [--plugin NAME] [--set NAME=VALUE]...\n"
      "                                serve one sandbox pool to other processes (pbox: server = PATH)\n"
      "  sandbox bench [ab options]    A/B of sandbox transfers: spawn against pbox\n"
      "  replay inspect FILE           header, shape, expert range and checksum of a routing replay payload\n"
      "  replay convert --from C --to C --experts E [--layers L --top-k K] IN OUT\n"
      "                                a routing replay payload from one codec (sglang, packed) to the other\n"
      "\n"
      "Plugins are searched in --plugin-path folders, DOPANT_PLUGIN_PATH, and the install dir.\n");
}

}  // namespace

int main(int argc, char** argv) {
  using namespace dopant::cli;
  dopant::install_interrupt_cleanup();  // before any thread: see child_processes.hpp
  try {
    const Options options = parse_options(argc, argv);
    if (options.words.empty()) return dopant::suite::command_suite({}, "/proc/self/exe", options.plugin_paths);
    const std::string& command = options.words[0];
    if (command == "--help" || command == "help") {
      print_usage();
      return 0;
    }
    if (command == "suite") {
      return dopant::suite::command_suite({options.words.begin() + 1, options.words.end()}, "/proc/self/exe",
                                          options.plugin_paths);
    }
    if (command == "--version" || command == "version") {
      std::printf("dopant %s (ABI %u.%u)\n", dpt_version(), dpt_abi_major(), dpt_abi_minor());
      return 0;
    }
    if (command == "plugins") return command_plugins(options);
    if (command == "run") return command_run(options);
    if (command == "check") return command_check(options);
    if (command == "inspect") return command_inspect(options);
    if (command == "layout") return command_layout(options);
    if (command == "convert") return command_convert(options);
    if (command == "sandbox") return command_sandbox(options);
    if (command == "replay") return command_replay(options);
    if (command == "ab") {
      return dopant::ab::command_ab({options.words.begin() + 1, options.words.end()}, "/proc/self/exe",
                                    options.plugin_paths);
    }
    if (command == "plan") {
      return dopant::planner::command_plan({options.words.begin() + 1, options.words.end()});
    }
    throw std::invalid_argument("unknown command `" + command + "` (see `dopant --help`)");
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "dopant: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dopant: error: %s\n", e.what());
    return 1;
  }
}
