// dopant SDK — SandboxAdapter<T>: the static dpt_sandbox_draft table of a C++ class. execute
// and release_result are [any-thread]: the class makes them safe to call concurrently.
//
//   class MySandbox {
//    public:
//     MySandbox(const dpt_host* host, const sdk::Config& config);
//     dpt_sandbox_result execute(const dpt_sandbox_request& request);
//     void release_result(const dpt_sandbox_result& result);
//   };
#pragma once

#include <dopant/draft/sandbox.h>

#include "errors.hpp"
#include "instance.hpp"
#include "structs.hpp"

namespace dopant::sdk {

template <typename T>
struct SandboxAdapter {
  using Table = dpt_sandbox_draft;
  static constexpr const char* kind = DPT_KIND_SANDBOX;

  static dpt_error* execute(dpt_instance* handle, const dpt_sandbox_request* request,
                            dpt_sandbox_result* out) noexcept {
    return call_instance<T>(handle, [&](T& self, const dpt_host*) {
      const dpt_sandbox_request widened =
          read_struct(request, DPT_SANDBOX_REQUEST_DRAFT_SIZE, "sandbox request");
      require(widened.argv != nullptr && widened.argv[0] != nullptr,
              "sandbox request: argv is empty");
      require(out != nullptr && out->struct_size >= DPT_SANDBOX_RESULT_DRAFT_SIZE,
              "sandbox result is NULL or too small");
      write_struct(out, self.execute(widened), DPT_SANDBOX_RESULT_DRAFT_SIZE, "sandbox result");
    });
  }
  static void release_result(dpt_instance* handle, dpt_sandbox_result* result) noexcept {
    if (handle == nullptr || result == nullptr) return;
    Instance<T>* instance = instance_of<T>(handle);
    guard_and_log(instance->host, "release_result", [&] {
      instance->object.release_result(
          read_struct(result, DPT_SANDBOX_RESULT_DRAFT_SIZE, "sandbox result"));
    });
  }

  static constexpr dpt_sandbox_draft table{DPT_SANDBOX_DRAFT_SIZE, &create_instance<T>,
                                        &destroy_instance<T>, &execute, &release_result};
};

}  // namespace dopant::sdk
