// libFuzzer target for the checks a shared sandbox pool makes of every frame
// (plugins/sandbox/lib/pool_protocol.hpp), on the server's side and the client's. Input: one
// byte choosing the side and the connection's state, eight bytes of the shared buffer's size,
// then a header and (for a request) the strings after it. What is accepted must be within
// the bounds the server and client rely on: a payload and outputs inside the shared buffer,
// strings within their bound and as many as the request's counts say.
#include "pool_protocol.hpp"

#include <dopant/sandbox.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace dopant::sandbox;

namespace {

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "pool_frame_fuzzer: %s\n", what.c_str());
  std::abort();
}

void check_request(const uint8_t* data, size_t size, uint8_t state, uint64_t shared_bytes) {
  PoolRequest request;
  if (size < sizeof request) return;
  std::memcpy(&request, data, sizeof request);
  const RequestContext context{(state & 2) != 0, (state & 4) != 0, shared_bytes};
  if (!request_refusal(request, context).empty()) return;
  const Request& call = request.call;
  if (call.payload_bytes > shared_bytes || call.strings_bytes > kPoolLargestStrings) {
    fail("accepted a payload or strings past their bounds");
  }
  const auto op = static_cast<PoolOp>(call.op);
  if (context.attached && op != PoolOp::exec && op != PoolOp::put) fail("accepted a descriptor on a request without payload");
  // The server reads exactly strings_bytes after the header; fewer means the client went away.
  if (size - sizeof request < call.strings_bytes) return;
  const std::string joined(reinterpret_cast<const char*>(data + sizeof request), call.strings_bytes);
  std::vector<std::string> strings;
  if (!strings_refusal(request, joined, strings).empty()) return;
  if (op == PoolOp::exec && (call.argc == 0 || strings.size() != uint64_t{call.argc} + call.envc + 1)) {
    fail("accepted exec strings that do not match argc and envc");
  }
  if ((op == PoolOp::put || op == PoolOp::get) && strings.size() != 1) fail("accepted a path that is not one string");
}

void check_reply(const uint8_t* data, size_t size, uint8_t state, uint64_t shared_bytes) {
  PoolReply reply;
  if (size < sizeof reply) return;
  std::memcpy(&reply, data, sizeof reply);
  constexpr PoolOp kOps[] = {PoolOp::exec,  PoolOp::put,     PoolOp::get,     PoolOp::reset,
                             PoolOp::hello, PoolOp::acquire, PoolOp::release, PoolOp::stats};
  const PoolOp op = kOps[(state >> 3) % 8];  // the request this reply answers
  const ReplyContext context{op, (state & 4) != 0, shared_bytes};
  if (!reply_refusal(reply, context).empty()) return;
  const Reply& call = reply.call;
  if (call.message_bytes > kPoolLargestMessage) fail("accepted error text past its bound");
  if (op == PoolOp::stats) {
    if (call.code == DPT_OK && call.file_bytes != sizeof(dpt_sandbox_stats)) fail("accepted stats of a wrong size");
    return;
  }
  // The client reads outputs at offsets stdout_bytes and stdout_bytes + stderr_bytes of the buffer.
  const unsigned __int128 total = static_cast<unsigned __int128>(call.stdout_bytes) + call.stderr_bytes + call.file_bytes;
  if (total > shared_bytes) fail("accepted outputs past the shared buffer");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 9) return 0;
  const uint8_t state = data[0];
  uint64_t shared_bytes = 0;
  std::memcpy(&shared_bytes, data + 1, sizeof shared_bytes);
  shared_bytes %= kPoolLargestBuffer + 1;  // what SharedBuffer::adopt lets through
  if ((state & 1) == 0) check_request(data + 9, size - 9, state, shared_bytes);
  else check_reply(data + 9, size - 9, state, shared_bytes);
  return 0;
}
