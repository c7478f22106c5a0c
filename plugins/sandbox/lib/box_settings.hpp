// What a box is made of, shared by the `spawn` and `pbox` plugins: the parameters both
// declare, and the settings read from them, which travel to the worker on its command line.
#pragma once

#include <dopant/sdk/sdk.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace dopant::sandbox {

// Where a box's worker runs: in namespaces of its own on the host kernel (native), or inside
// gVisor's user-space kernel (runsc, `pbox` only; gvisor_runtime.hpp).
enum class Runtime { native, runsc };

struct BoxSettings {
  Runtime runtime = Runtime::native;
  std::vector<std::string> binds;  // absolute host paths, bound read-only at the same path
  uint64_t workspace_bytes = 0;    // size cap of the workspace tmpfs
  uint64_t memory_bytes = 0;       // RLIMIT_AS of each command; the box's memory cgroup
  uint64_t cpu_seconds = 0;        // RLIMIT_CPU
  uint64_t file_bytes = 0;         // RLIMIT_FSIZE
  uint64_t open_files = 0;         // RLIMIT_NOFILE
  uint64_t processes = 0;          // RLIMIT_NPROC of the box's user; the box's pids cgroup
  uint64_t output_cap = 0;         // bytes kept of stdout and of stderr
  uint64_t timeout_ms = 0;         // default timeout of exec
};

// The parameters of both plugins, in the order of the array below.
inline constexpr dpt_param_decl kBoxParams[] = {
    sdk::string_param("binds", "/usr,/bin,/lib,/lib64,/etc/alternatives,/etc/ld.so.cache",
                      "comma-separated absolute host paths bound read-only into each box; "
                      "missing ones are skipped"),
    sdk::size_param("workspace_size", "64MiB", "size cap of the writable workspace").range("1MiB", "64GiB").unit("B"),
    sdk::size_param("memory", "1GiB", "address space of each process (RLIMIT_AS), and memory of the box as a whole where cgroups allow").range("16MiB", "1TiB").unit("B"),
    sdk::int_param("cpu_seconds", "60", "CPU time of each process (RLIMIT_CPU)").range("1", "86400").unit("s"),
    sdk::size_param("file_size", "64MiB", "largest file a process may write (RLIMIT_FSIZE)").range("1KiB", "64GiB").unit("B"),
    sdk::int_param("open_files", "256", "open files of each process (RLIMIT_NOFILE)").range("16", "65536"),
    sdk::int_param("processes", "64", "processes of the box's user (RLIMIT_NPROC), and of the box where cgroups allow").range("4", "4096"),
    sdk::size_param("output_cap", "1MiB", "bytes kept of stdout and of stderr; the rest is dropped and flagged")
        .range("1KiB", "1GiB")
        .unit("B"),
    sdk::int_param("timeout_ms", "10000", "default timeout of exec").range("1", "86400000").unit("ms"),
};

// Reads the parameters above; refuses a bind that is not an absolute path, naming `binds`.
BoxSettings read_box_settings(const sdk::Config& config);

// The settings as worker arguments, and back (the worker refuses malformed ones). The
// runtime comes first, as `native` or `runsc`.
std::vector<std::string> settings_to_args(const BoxSettings& settings);
bool settings_from_args(int argc, char** argv, BoxSettings& settings);

}  // namespace dopant::sandbox
