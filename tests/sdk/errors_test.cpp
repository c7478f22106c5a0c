// The SDK's error wrapper: each exception kind becomes the right code and message, and
// check() turns a host error back into an exception.
#include <dopant/sdk/errors.hpp>

#include "test_runtime.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace sdk = dopant::sdk;

namespace {

template <typename Body>
TakenError guarded(const dpt_host* host, Body body) {
  return take_error(host, sdk::guard(host, body));
}

TEST(SdkErrors, NoExceptionMeansNoError) {
  TestRuntime runtime;
  bool ran = false;
  EXPECT_EQ(sdk::guard(runtime.host(), [&] { ran = true; }), nullptr);
  EXPECT_TRUE(ran);
}

TEST(SdkErrors, SdkErrorKeepsItsCodeAndMessage) {
  TestRuntime runtime;
  const TakenError e = guarded(runtime.host(), [] { throw sdk::Error(DPT_NOT_FOUND, "no such tensor"); });
  EXPECT_EQ(e.code, DPT_NOT_FOUND);
  EXPECT_EQ(e.message, "no such tensor");
}

TEST(SdkErrors, RequireFailsWithInvalidArgument) {
  TestRuntime runtime;
  const TakenError e = guarded(runtime.host(), [] { sdk::require(1 > 2, "one is not above two"); });
  EXPECT_EQ(e.code, DPT_INVALID_ARGUMENT);
  EXPECT_EQ(e.message, "one is not above two");
  EXPECT_EQ(guarded(runtime.host(), [] { sdk::require(true, "unused"); }).code, DPT_OK);
}

TEST(SdkErrors, BadAllocBecomesOutOfMemory) {
  TestRuntime runtime;
  const TakenError e = guarded(runtime.host(), [] { throw std::bad_alloc(); });
  EXPECT_EQ(e.code, DPT_OUT_OF_MEMORY);
  EXPECT_FALSE(e.message.empty());
}

TEST(SdkErrors, StandardExceptionBecomesInternalWithItsMessage) {
  TestRuntime runtime;
  const TakenError e = guarded(runtime.host(), [] { throw std::out_of_range("index 9 of 3"); });
  EXPECT_EQ(e.code, DPT_INTERNAL);
  EXPECT_EQ(e.message, "index 9 of 3");
}

TEST(SdkErrors, UnknownExceptionBecomesInternal) {
  TestRuntime runtime;
  const TakenError e = guarded(runtime.host(), [] { throw 42; });
  EXPECT_EQ(e.code, DPT_INTERNAL);
  EXPECT_EQ(e.message, "unknown exception");
}

TEST(SdkErrors, CheckThrowsTheHostErrorsCodeAndMessage) {
  TestRuntime runtime;
  const dpt_host* host = runtime.host();
  EXPECT_NO_THROW(sdk::check(host, nullptr));
  try {
    sdk::check(host, host->error(host, DPT_DEADLINE_EXCEEDED, "took too long"));
    FAIL() << "check did not throw";
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), DPT_DEADLINE_EXCEEDED);
    EXPECT_STREQ(e.what(), "took too long");
  }
}

TEST(SdkErrors, ErrorsSurviveARoundTripThroughCheckAndGuard) {
  TestRuntime runtime;
  const dpt_host* host = runtime.host();
  const TakenError e = guarded(host, [host] {
    sdk::check(host, host->error(host, DPT_PERMISSION_DENIED, "read-only file system"));
  });
  EXPECT_EQ(e.code, DPT_PERMISSION_DENIED);
  EXPECT_EQ(e.message, "read-only file system");
}

}  // namespace
