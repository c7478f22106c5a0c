// dopant SDK — SandboxAdapter<T>: the static dpt_sandbox_v1 table of a C++ class (a pool
// of boxes). Every slot but create and destroy is [any-thread] with one call at a time per
// box: the class makes calls on different boxes safe to run concurrently.
//
//   class MyPool {
//    public:
//     MyPool(const dpt_host* host, const sdk::Config& config);
//     dpt_sandbox_box* acquire();
//     void release(dpt_sandbox_box* box);
//     void exec(dpt_sandbox_exec_args& args);  // fills the out fields
//     void put(const dpt_sandbox_put_args& args);
//     void get(dpt_sandbox_get_args& args);    // fills data and bytes
//     void reset(dpt_sandbox_box* box);
//     dpt_sandbox_stats stats();
//   };
//
// The adapter checks the args (NULL, struct_size, box, argv, path) before the method runs,
// and on any error leaves the caller's output fields zero and its output pointers NULL.
#pragma once

#include <dopant/sandbox.h>

#include "errors.hpp"
#include "instance.hpp"
#include "structs.hpp"

#include <string>

namespace dopant::sdk {

namespace detail {
// The args of a box operation, widened, with its box checked.
template <typename Args>
Args read_box_args(const Args* args, size_t min_size, const char* what) {
  Args copy = read_struct(args, min_size, what);
  require(copy.box != nullptr, std::string(what) + ": `box` is NULL");
  return copy;
}

// Writes `copy`, its outputs already cleared, back to the caller before `fill` runs and again
// after, so a call that throws leaves the caller's outputs cleared, never half filled.
template <typename Args, typename Fill>
void fill_outputs(Args* caller, Args& copy, size_t min_size, const char* what, Fill&& fill) {
  write_struct(caller, copy, min_size, what);
  fill(copy);
  write_struct(caller, copy, min_size, what);
}
}  // namespace detail

template <typename T>
struct SandboxAdapter {
  using Table = dpt_sandbox_v1;
  static constexpr const char* kind = DPT_KIND_SANDBOX;

  static dpt_error* acquire(dpt_instance* handle, dpt_sandbox_acquire_args* args) noexcept {
    return call_instance<T>(handle, [&](T& self, const dpt_host*) {
      dpt_sandbox_acquire_args copy =
          read_struct(args, DPT_SANDBOX_ACQUIRE_ARGS_SIZE_1_4, "acquire args");
      copy.box = nullptr;
      detail::fill_outputs(args, copy, DPT_SANDBOX_ACQUIRE_ARGS_SIZE_1_4, "acquire args",
                           [&](dpt_sandbox_acquire_args& out) { out.box = self.acquire(); });
    });
  }
  static dpt_error* release(dpt_instance* handle, const dpt_sandbox_box_args* args) noexcept {
    return call_instance<T>(handle, [&](T& self, const dpt_host*) {
      self.release(detail::read_box_args(args, DPT_SANDBOX_BOX_ARGS_SIZE_1_4, "release args").box);
    });
  }
  static dpt_error* exec(dpt_instance* handle, dpt_sandbox_exec_args* args) noexcept {
    return call_instance<T>(handle, [&](T& self, const dpt_host*) {
      dpt_sandbox_exec_args copy =
          detail::read_box_args(args, DPT_SANDBOX_EXEC_ARGS_SIZE_1_4, "exec args");
      require(copy.argv != nullptr && copy.argv[0] != nullptr && copy.argv[0][0] != '\0',
              "exec args: `argv` is empty");
      clear_exec_outputs(copy);
      detail::fill_outputs(args, copy, DPT_SANDBOX_EXEC_ARGS_SIZE_1_4, "exec args",
                           [&](dpt_sandbox_exec_args& out) { self.exec(out); });
    });
  }
  static dpt_error* put(dpt_instance* handle, const dpt_sandbox_put_args* args) noexcept {
    return call_instance<T>(handle, [&](T& self, const dpt_host*) {
      const dpt_sandbox_put_args copy =
          detail::read_box_args(args, DPT_SANDBOX_PUT_ARGS_SIZE_1_4, "put args");
      require(copy.path != nullptr, "put args: `path` is NULL");
      require(copy.data != nullptr || copy.bytes == 0, "put args: `data` is NULL");
      self.put(copy);
    });
  }
  static dpt_error* get(dpt_instance* handle, dpt_sandbox_get_args* args) noexcept {
    return call_instance<T>(handle, [&](T& self, const dpt_host*) {
      dpt_sandbox_get_args copy =
          detail::read_box_args(args, DPT_SANDBOX_GET_ARGS_SIZE_1_4, "get args");
      require(copy.path != nullptr, "get args: `path` is NULL");
      copy.data = nullptr;
      copy.bytes = 0;
      detail::fill_outputs(args, copy, DPT_SANDBOX_GET_ARGS_SIZE_1_4, "get args",
                           [&](dpt_sandbox_get_args& out) { self.get(out); });
    });
  }
  static dpt_error* reset(dpt_instance* handle, const dpt_sandbox_box_args* args) noexcept {
    return call_instance<T>(handle, [&](T& self, const dpt_host*) {
      self.reset(detail::read_box_args(args, DPT_SANDBOX_BOX_ARGS_SIZE_1_4, "reset args").box);
    });
  }
  static dpt_error* stats(dpt_instance* handle, dpt_sandbox_stats* out) noexcept {
    return call_instance<T>(handle, [&](T& self, const dpt_host*) {
      require(out != nullptr, "stats: `out` is NULL");
      write_struct(out, self.stats(), DPT_SANDBOX_STATS_SIZE_1_4, "stats");
    });
  }

  static constexpr dpt_sandbox_v1 table{DPT_SANDBOX_V1_SIZE_1_4, &create_instance<T>,
                                           &destroy_instance<T>, &acquire, &release, &exec,
                                           &put, &get, &reset, &stats};

 private:
  static void clear_exec_outputs(dpt_sandbox_exec_args& args) {
    args.exit_code = -1;
    args.signal = 0;
    args.timed_out = 0;
    args.killed_for_memory = 0;
    args.stdout_truncated = 0;
    args.stderr_truncated = 0;
    args.stdout_data = nullptr;
    args.stdout_bytes = 0;
    args.stderr_data = nullptr;
    args.stderr_bytes = 0;
    args.wall_ns = 0;
  }
};

}  // namespace dopant::sdk
