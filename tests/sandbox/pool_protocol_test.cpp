// The checks of a shared pool's frames (pool_protocol.hpp): each refusal on its own, next to
// the frame it would otherwise accept, so each case fails when its check is dropped.
#include "pool_protocol.hpp"

#include <dopant/sandbox.h>

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace dopant::sandbox;

namespace {

constexpr uint64_t kBuffer = 1 << 20;

PoolRequest request_of(PoolOp op, uint64_t payload_bytes = 0) {
  PoolRequest request;
  request.call.op = static_cast<uint32_t>(op);
  request.call.payload_bytes = payload_bytes;
  return request;
}

std::string refusal(const PoolRequest& request, bool attached = false, bool greeted = true) {
  return request_refusal(request, {greeted, attached, kBuffer});
}

TEST(SandboxPoolProtocol, RequestHeaderRefusals) {
  EXPECT_EQ(refusal(request_of(PoolOp::put, kBuffer), true), "");  // a full buffer, attached
  PoolRequest request = request_of(PoolOp::hello);
  EXPECT_EQ(refusal(request, false, false), "");
  request.magic = 0x5a5a5a5a;
  EXPECT_EQ(refusal(request, false, false), "not a frame of the sandbox pool protocol");
  request = request_of(PoolOp::hello);
  request.version = 1;
  EXPECT_EQ(refusal(request, false, false), "protocol version 1 is not 2");
  EXPECT_EQ(refusal(request_of(PoolOp::acquire), false, false), "the first request must be hello");
  request = request_of(PoolOp::hello);
  request.call.op = 99;
  EXPECT_EQ(refusal(request), "unknown request 99");
  EXPECT_EQ(refusal(request_of(PoolOp::get), true), "a descriptor came with a request that carries no payload");
  request = request_of(PoolOp::get);
  request.call.strings_bytes = kPoolLargestStrings;
  EXPECT_EQ(refusal(request), "");
  request.call.strings_bytes = kPoolLargestStrings + 1;
  EXPECT_EQ(refusal(request), "strings larger than the bound");
  EXPECT_EQ(request_refusal(request_of(PoolOp::exec, kPoolLargestPayload + 1), {true, true, kPoolLargestBuffer}),
            "payload larger than the bound");
  EXPECT_EQ(refusal(request_of(PoolOp::get, 1)), "a payload on a request without one");
  EXPECT_EQ(refusal(request_of(PoolOp::put, kBuffer + 1)), "a payload of 1048577 bytes past the shared buffer's 1048576");
  EXPECT_EQ(request_refusal(request_of(PoolOp::exec, 1), {true, false, 0}),
            "a payload of 1 bytes past the shared buffer's 0");
}

std::string strings_refusal_of(PoolRequest request, const std::string& joined, size_t* count = nullptr) {
  std::vector<std::string> strings;
  const std::string why = strings_refusal(request, joined, strings);
  if (count != nullptr) *count = strings.size();
  return why;
}

TEST(SandboxPoolProtocol, StringRefusals) {
  PoolRequest exec = request_of(PoolOp::exec);
  exec.call.argc = 2;
  exec.call.envc = 1;
  const std::string joined("/bin/echo\0hi\0A=b\0\0", 18);
  size_t count = 0;
  EXPECT_EQ(strings_refusal_of(exec, joined, &count), "");
  EXPECT_EQ(count, 4u);  // argv, env, and an empty cwd
  EXPECT_EQ(strings_refusal_of(exec, joined.substr(0, 16)), "the request's last string is not NUL-terminated");
  exec.call.envc = 2;
  EXPECT_EQ(strings_refusal_of(exec, joined), "the request's strings do not match its counts");
  exec.call.argc = 0;
  exec.call.envc = 3;
  EXPECT_EQ(strings_refusal_of(exec, joined), "the request's strings do not match its counts");  // no argv[0]
  EXPECT_EQ(strings_refusal_of(request_of(PoolOp::get), std::string("a\0", 2)), "");
  EXPECT_EQ(strings_refusal_of(request_of(PoolOp::get), std::string("a\0b\0", 4)),
            "the request's strings do not match its counts");
  EXPECT_EQ(strings_refusal_of(request_of(PoolOp::acquire), ""), "");
  EXPECT_EQ(strings_refusal_of(request_of(PoolOp::acquire), std::string("x\0", 2)),
            "the request's strings do not match its counts");
}

TEST(SandboxPoolProtocol, ReplyRefusals) {
  PoolReply reply;
  reply.call.stdout_bytes = kBuffer / 2;
  reply.call.stderr_bytes = kBuffer / 4;
  reply.call.file_bytes = kBuffer / 4;
  EXPECT_EQ(reply_refusal(reply, {PoolOp::exec, true, kBuffer}), "");
  reply.call.file_bytes += 1;
  EXPECT_EQ(reply_refusal(reply, {PoolOp::exec, false, kBuffer}), "outputs past the shared buffer");
  reply.call = Reply{};
  reply.call.stdout_bytes = ~uint64_t{0};  // a sum that would wrap to within the buffer
  reply.call.stderr_bytes = 2;
  EXPECT_EQ(reply_refusal(reply, {PoolOp::exec, false, kBuffer}), "outputs past the shared buffer");
  reply.call = Reply{};
  reply.magic = 0;
  EXPECT_EQ(reply_refusal(reply, {PoolOp::hello, false, 0}), "not a frame of the sandbox pool protocol");
  reply.magic = kPoolMagic;
  reply.version = 3;
  EXPECT_EQ(reply_refusal(reply, {PoolOp::hello, false, 0}), "protocol version 3 is not 2");
  reply.version = kPoolVersion;
  reply.call.message_bytes = kPoolLargestMessage + 1;
  EXPECT_EQ(reply_refusal(reply, {PoolOp::put, false, kBuffer}), "error text larger than the bound");
  reply.call = Reply{};
  EXPECT_EQ(reply_refusal(reply, {PoolOp::acquire, true, kBuffer}), "");
  EXPECT_EQ(reply_refusal(reply, {PoolOp::put, true, kBuffer}), "a descriptor came with a reply that carries no payload");
  reply.call.file_bytes = sizeof(dpt_sandbox_stats);
  EXPECT_EQ(reply_refusal(reply, {PoolOp::stats, false, 0}), "");
  reply.call.file_bytes -= 1;
  EXPECT_EQ(reply_refusal(reply, {PoolOp::stats, false, 0}), "stats of a wrong size");
  reply.call.code = DPT_INTERNAL;  // a failed stats call carries only its error text
  EXPECT_EQ(reply_refusal(reply, {PoolOp::stats, false, 0}), "");
}

}  // namespace
