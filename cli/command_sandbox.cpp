// `dopant sandbox exec` and `dopant sandbox bench`: a sandbox plugin by hand.
//
// exec creates a pool of the plugin (`pbox` unless --plugin says otherwise) from its
// parameters (--set NAME=VALUE), acquires one box, runs the command after `--` in it and
// passes its stdout, stderr and exit status through: the status itself, 128 + N for a
// command ended by signal N, 124 when it ran past its timeout (as timeout(1) does). With
// --stdin the CLI's standard input becomes the command's.
//
// serve makes one pool of the plugin the same way and serves it to other processes at
// --socket PATH until SIGINT or SIGTERM (sandbox_server.hpp); `pbox` with `server = PATH`
// is its client.
//
// bench runs the sandbox-transfer workload as an A/B session (`dopant ab`) of `spawn`
// against `pbox`, and against `pbox` in gVisor when `runsc` is installed; the A/B options
// (--repetitions, --json ...) are passed on.
#include "ab_command.hpp"
#include "commands.hpp"
#include "sandbox_server.hpp"
#include "temporary_run_file.hpp"

#include <dopant/sandbox.h>
#include <dopant/support/text.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace dopant::cli {
namespace {

constexpr const char* kUsage =
    "usage: dopant sandbox exec [--plugin NAME] [--set NAME=VALUE]... [--stdin] -- CMD [ARGS...]\n"
    "       dopant sandbox serve --socket PATH [--plugin NAME] [--set NAME=VALUE]...\n"
    "       dopant sandbox bench [dopant ab options]";

// A parameter value as TOML: numbers and booleans as they are, anything else as a string.
std::string toml_value(const std::string& text) {
  const bool number = !text.empty() && text.find_first_not_of("0123456789.eE+-") == std::string::npos &&
                      text.find_first_of("0123456789") != std::string::npos;
  if (number || text == "true" || text == "false") return text;
  std::string quoted = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') quoted += '\\';
    if (static_cast<unsigned char>(c) < 0x20) throw std::invalid_argument("--set: control character in a value");
    quoted += c;
  }
  return quoted + "\"";
}

// --set NAME=VALUE words as the TOML text of a plugin's parameters.
std::string params_text(const std::vector<std::string>& settings) {
  std::string text;
  for (const std::string& setting : settings) {
    const size_t equals = setting.find('=');
    const std::string name = setting.substr(0, equals);
    if (equals == std::string::npos || name.empty() ||
        name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") != std::string::npos) {
      throw std::invalid_argument("--set: " + quote_name(setting) + " is not NAME=VALUE");
    }
    text += name + " = " + toml_value(setting.substr(equals + 1)) + "\n";
  }
  return text;
}

using InstancePtr = std::unique_ptr<dpt_plugin_instance, void (*)(dpt_plugin_instance*)>;

// An instance of `plugin`, which must be a sandbox, from --set parameters.
InstancePtr sandbox_instance(dpt_runtime* runtime, const std::string& plugin, const std::string& params) {
  const dpt_plugin_info* info = dpt_runtime_find_plugin(runtime, plugin.c_str());
  if (info == nullptr) throw std::invalid_argument("--plugin: no plugin " + quote_name(plugin) + " is loaded");
  if (std::string(info->descriptor->kind) != DPT_KIND_SANDBOX) {
    throw std::invalid_argument("--plugin: " + quote_name(plugin) + " is not a sandbox plugin");
  }
  dpt_config* config = nullptr;
  throw_if_error(dpt_plugin_params_parse(runtime, plugin.c_str(), params.c_str(), "--set", &config));
  dpt_plugin_instance* created = nullptr;
  dpt_error* error = dpt_plugin_instance_create(runtime, plugin.c_str(), config, &created);
  dpt_plugin_params_destroy(config);
  throw_if_error(error, plugin);
  return InstancePtr(created, dpt_plugin_instance_destroy);
}

void write_all(int fd, const void* data, uint64_t bytes) {
  const char* at = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t wrote = write(fd, at, bytes);
    if (wrote <= 0) return;  // a closed pipe: the output is not wanted
    at += wrote;
    bytes -= static_cast<uint64_t>(wrote);
  }
}

int sandbox_exec(const Options& options, std::vector<std::string> words, std::vector<std::string> command) {
  const std::string plugin = take_flag_value(words, "--plugin").value_or("pbox");
  const std::string params = params_text(take_flag_values(words, "--set"));
  const bool forward_stdin = take_flag(words, "--stdin");
  if (!words.empty()) throw std::invalid_argument("sandbox exec: unexpected " + quote_name(words[0]) + "\n" + kUsage);
  if (command.empty()) throw std::invalid_argument("sandbox exec: no command after `--`\n" + std::string(kUsage));
  std::string input;
  if (forward_stdin) input.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());

  Runtime runtime(options);
  const InstancePtr instance = sandbox_instance(runtime.get(), plugin, params);
  const auto& table = *static_cast<const dpt_sandbox_v1*>(dpt_plugin_instance_table(instance.get()));
  dpt_instance* handle = dpt_plugin_instance_handle(instance.get());
  dpt_sandbox_acquire_args acquired = DPT_SANDBOX_ACQUIRE_ARGS_INIT;
  throw_if_error(table.acquire(handle, &acquired), plugin);
  std::vector<const char*> argv;
  for (const std::string& word : command) argv.push_back(word.c_str());
  argv.push_back(nullptr);
  dpt_sandbox_exec_args exec = DPT_SANDBOX_EXEC_ARGS_INIT;
  exec.box = acquired.box;
  exec.argv = argv.data();
  exec.stdin_data = input.data();
  exec.stdin_bytes = input.size();
  dpt_error* failed = table.exec(handle, &exec);
  if (failed == nullptr) {
    write_all(STDOUT_FILENO, exec.stdout_data, exec.stdout_bytes);
    write_all(STDERR_FILENO, exec.stderr_data, exec.stderr_bytes);
  }
  const dpt_sandbox_box_args release{DPT_SANDBOX_BOX_ARGS_SIZE_1_4, nullptr, acquired.box};
  if (dpt_error* error = table.release(handle, &release)) dpt_error_destroy(error);
  throw_if_error(failed, plugin);
  if (exec.stdout_truncated != 0 || exec.stderr_truncated != 0) {
    std::fprintf(stderr, "dopant: the command's output passed `output_cap` and was cut\n");
  }
  if (exec.timed_out != 0) {
    std::fprintf(stderr, "dopant: the command ran past its timeout and was killed\n");
    return 124;
  }
  if (exec.killed_for_memory != 0) std::fprintf(stderr, "dopant: the command was killed by the box's memory limit\n");
  return exec.signal != 0 ? 128 + exec.signal : exec.exit_code;
}

int sandbox_serve(const Options& options, std::vector<std::string> words) {
  const std::optional<std::string> socket_path = take_flag_value(words, "--socket");
  const std::string plugin = take_flag_value(words, "--plugin").value_or("pbox");
  const std::string params = params_text(take_flag_values(words, "--set"));
  if (!words.empty()) throw std::invalid_argument("sandbox serve: unexpected " + quote_name(words[0]) + "\n" + kUsage);
  if (!socket_path) throw std::invalid_argument("sandbox serve: --socket PATH is required\n" + std::string(kUsage));
  Runtime runtime(options);
  const InstancePtr instance = sandbox_instance(runtime.get(), plugin, params);
  const auto& table = *static_cast<const dpt_sandbox_v1*>(dpt_plugin_instance_table(instance.get()));
  serve_sandbox_pool(table, dpt_plugin_instance_handle(instance.get()), *socket_path);
  return 0;  // the instance's destruction ends every worker
}

// The A/B of `dopant sandbox bench`: the sandbox-transfer workload, spawn against pbox.
std::string bench_run_file() {
  return "[run]\nworkload = \"sandbox-transfer\"\nrepetitions = 3\n\n[device]\nkind = \"cpu\"\n\n"
      "[workload]\nround_trips = 50\nexecs = 50\n\n[sandbox]\nplugin = \"spawn\"\nworkspace_size = \"128MiB\"\n\n"
      "[variants.pbox.sandbox]\nplugin = \"pbox\"\nworkspace_size = \"128MiB\"\n";
}

int sandbox_bench(const Options& options, const std::vector<std::string>& ab_options) {
  const suite::TemporaryRunFile run_file(bench_run_file());
  std::vector<std::string> args = {run_file.path()};
  args.insert(args.end(), ab_options.begin(), ab_options.end());
  return ab::command_ab(args, "/proc/self/exe", options.plugin_paths);
}

}  // namespace

int command_sandbox(const Options& options) {
  std::vector<std::string> words(options.words.begin() + 1, options.words.end());
  const auto dash = std::find(words.begin(), words.end(), "--");
  std::vector<std::string> command(dash == words.end() ? dash : dash + 1, words.end());
  words.erase(dash, words.end());
  if (words.empty()) throw std::invalid_argument(kUsage);
  const std::string sub = words[0];
  words.erase(words.begin());
  if (sub == "exec") return sandbox_exec(options, words, command);
  if (sub == "serve" && command.empty()) return sandbox_serve(options, words);
  if (sub == "bench" && command.empty()) return sandbox_bench(options, words);
  throw std::invalid_argument("sandbox: unknown subcommand " + quote_name(sub) + "\n" + kUsage);
}

}  // namespace dopant::cli
