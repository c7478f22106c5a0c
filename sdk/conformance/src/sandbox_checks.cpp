// Checks of "dopant.sandbox.draft/0" plugins: `/bin/echo hi` exits 0 with "hi\n" on standard
// output, and the result can be released.
#include <dopant/draft/sandbox.h>

#include "outcome.hpp"
#include "registry.hpp"

#include <gtest/gtest.h>

#include <string>

namespace dopant::conformance {

namespace {

void check_echo(const Target& target) {
  PluginInstance sandbox(target);
  ASSERT_TRUE(sandbox.ok());
  const auto& table = sandbox.table<dpt_sandbox_draft>();
  const char* argv[] = {"/bin/echo", "hi", nullptr};
  const dpt_sandbox_request request{DPT_SANDBOX_REQUEST_DRAFT_SIZE, nullptr, argv, nullptr, 0,
                                    30000};
  dpt_sandbox_result result{};
  result.struct_size = DPT_SANDBOX_RESULT_DRAFT_SIZE;
  ASSERT_EQ("", ok_or_message(table.execute(sandbox.handle(), &request, &result)));
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.signal, 0);
  const std::string output(static_cast<const char*>(result.output),
                           result.output == nullptr ? 0 : result.output_bytes);
  EXPECT_EQ(output, "hi\n");
  table.release_result(sandbox.handle(), &result);
}

}  // namespace

void register_sandbox_checks(const Target& target) {
  add_check(target, "sandbox_echo", [target] { check_echo(target); });
}

}  // namespace dopant::conformance
