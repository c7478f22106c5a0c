// The checks of a shared pool's frames (see pool_protocol.hpp).
#include "pool_protocol.hpp"

#include <dopant/sandbox.h>

namespace dopant::sandbox {

namespace {

bool known(PoolOp op) {
  switch (op) {
    case PoolOp::hello: case PoolOp::acquire: case PoolOp::release: case PoolOp::exec:
    case PoolOp::put: case PoolOp::get: case PoolOp::reset: case PoolOp::stats: return true;
  }
  return false;
}

bool carries_payload(PoolOp op) { return op == PoolOp::exec || op == PoolOp::put; }

std::string version_refusal(uint32_t magic, uint32_t version) {
  if (magic != kPoolMagic) return "not a frame of the sandbox pool protocol";
  if (version != kPoolVersion) {
    return "protocol version " + std::to_string(version) + " is not " + std::to_string(kPoolVersion);
  }
  return "";
}

}  // namespace

std::string request_refusal(const PoolRequest& request, const RequestContext& context) {
  if (std::string why = version_refusal(request.magic, request.version); !why.empty()) return why;
  const auto op = static_cast<PoolOp>(request.call.op);
  if (!context.greeted && op != PoolOp::hello) return "the first request must be hello";
  if (!known(op)) return "unknown request " + std::to_string(request.call.op);
  if (context.attached && !carries_payload(op)) return "a descriptor came with a request that carries no payload";
  if (request.call.strings_bytes > kPoolLargestStrings) return "strings larger than the bound";
  if (request.call.payload_bytes > kPoolLargestPayload) return "payload larger than the bound";
  if (request.call.payload_bytes != 0 && !carries_payload(op)) return "a payload on a request without one";
  if (request.call.payload_bytes > context.shared_bytes) {
    return "a payload of " + std::to_string(request.call.payload_bytes) + " bytes past the shared buffer's " +
           std::to_string(context.shared_bytes);
  }
  return "";
}

std::string strings_refusal(const PoolRequest& request, const std::string& joined, std::vector<std::string>& strings) {
  const size_t before = strings.size();
  if (!split_strings(joined, strings)) return "the request's last string is not NUL-terminated";
  const auto op = static_cast<PoolOp>(request.call.op);
  const bool carries_strings = op == PoolOp::exec || op == PoolOp::put || op == PoolOp::get;
  const size_t count = strings.size() - before;
  if (carries_strings ? !well_formed(request.call, count) : count != 0) return "the request's strings do not match its counts";
  return "";
}

std::string reply_refusal(const PoolReply& reply, const ReplyContext& context) {
  if (std::string why = version_refusal(reply.magic, reply.version); !why.empty()) return why;
  const Reply& call = reply.call;
  if (call.message_bytes > kPoolLargestMessage) return "error text larger than the bound";
  const bool may_attach = context.op == PoolOp::acquire || context.op == PoolOp::exec || context.op == PoolOp::get;
  if (context.attached && !may_attach) return "a descriptor came with a reply that carries no payload";
  if (context.op == PoolOp::stats) {
    const bool whole = call.code != DPT_OK || call.file_bytes == sizeof(dpt_sandbox_stats);
    return whole && call.stdout_bytes == 0 && call.stderr_bytes == 0 ? "" : "stats of a wrong size";
  }
  // Each is checked before the sum, so the sum of three values up to the buffer's size cannot wrap.
  const uint64_t room = context.shared_bytes;
  if (call.stdout_bytes > room || call.stderr_bytes > room || call.file_bytes > room ||
      call.stdout_bytes + call.stderr_bytes + call.file_bytes > room) {
    return "outputs past the shared buffer";
  }
  return "";
}

}  // namespace dopant::sandbox
