// The client side of a shared pool (see pool_client.hpp).
#include "pool_client.hpp"

#include <dopant/sdk/sdk.hpp>

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>

namespace dopant::sandbox {

namespace {

namespace sdk = dopant::sdk;

PoolRequest request_of(PoolOp op, uint64_t box = 0) {
  PoolRequest request;
  request.call.op = static_cast<uint32_t>(op);
  request.box = box;
  return request;
}

}  // namespace

PoolClient::Connection::~Connection() {
  if (socket >= 0) close(socket);
}

PoolClient::PoolClient(std::string socket_path) : socket_path_(std::move(socket_path)) {
  sdk::require(!socket_path_.empty() && socket_path_.size() < sizeof(sockaddr_un{}.sun_path),
               "parameter `server`: `" + socket_path_ + "` is not a socket path");
  connect_and_greet();
}

std::unique_ptr<PoolClient::Connection> PoolClient::connect_and_greet() const {
  auto connection = std::make_unique<Connection>();
  connection->socket = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (connection->socket < 0) sdk::fail(DPT_RESOURCE_EXHAUSTED, std::string("socket: ") + std::strerror(errno));
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, socket_path_.c_str(), socket_path_.size() + 1);
  if (connect(connection->socket, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    sdk::fail(DPT_UNAVAILABLE, "parameter `server`: cannot connect to `" + socket_path_ + "`: " + std::strerror(errno));
  }
  call(*connection, request_of(PoolOp::hello), "", nullptr);
  return connection;
}

PoolClient::Connection& PoolClient::checked(dpt_sandbox_box* handle, const char* what) {
  const std::lock_guard<std::mutex> lock(mutex_);
  const auto found = boxes_.find(reinterpret_cast<Connection*>(handle));
  sdk::require(found != boxes_.end(), std::string(what) + ": `box` is not a box of this pool in use");
  return *found->second;
}

PoolReply PoolClient::call(Connection& connection, PoolRequest request, const std::string& strings,
                           const void* payload, dpt_sandbox_stats* stats) const {
  request.call.strings_bytes = strings.size();
  const uint64_t payload_bytes = request.call.payload_bytes;
  if (payload_bytes > kPoolLargestPayload) {  // the server would refuse it and drop the box's connection
    sdk::fail(DPT_RESOURCE_EXHAUSTED, "a payload of " + std::to_string(payload_bytes) +
                                          " bytes is larger than a shared pool takes (1 GiB)");
  }
  int attached = -1;
  if (payload_bytes > connection.buffer.capacity()) {  // the server adopts the larger buffer with this request
    try {
      connection.buffer = SharedBuffer::create(payload_bytes);
    } catch (const std::runtime_error& e) {
      sdk::fail(DPT_RESOURCE_EXHAUSTED, e.what());
    }
    attached = connection.buffer.fd();
  }
  if (payload_bytes > 0) std::memmove(connection.buffer.data(), payload, payload_bytes);  // may be a get's own bytes
  if (!send_message(connection.socket, &request, sizeof request, attached, {{strings.data(), strings.size()}})) {
    sdk::fail(DPT_UNAVAILABLE, "the sandbox server at `" + socket_path_ + "` is gone");
  }
  PoolReply reply;
  int fd = -1;
  if (!receive_header(connection.socket, &reply, sizeof reply, &fd)) {
    sdk::fail(DPT_UNAVAILABLE, "the sandbox server at `" + socket_path_ + "` closed the connection");
  }
  const char* bad_buffer = nullptr;
  if (fd >= 0) {
    SharedBuffer adopted = SharedBuffer::adopt(fd, kPoolLargestBuffer, &bad_buffer);
    if (bad_buffer == nullptr) connection.buffer = std::move(adopted);
  }
  const auto op = static_cast<PoolOp>(request.call.op);
  const std::string why =
      bad_buffer != nullptr ? bad_buffer : reply_refusal(reply, {op, fd >= 0, connection.buffer.capacity()});
  if (!why.empty()) {
    sdk::fail(DPT_UNAVAILABLE, "the sandbox server at `" + socket_path_ + "` broke the protocol (version " +
                                   std::to_string(kPoolVersion) + "): " + why);
  }
  std::string message(reply.call.message_bytes, '\0');
  const bool inline_stats = op == PoolOp::stats && reply.call.code == DPT_OK;
  if (!receive_bytes(connection.socket, message.data(), message.size()) ||
      (inline_stats && !receive_bytes(connection.socket, stats, sizeof *stats))) {
    sdk::fail(DPT_UNAVAILABLE, "the sandbox server at `" + socket_path_ + "` closed the connection mid-reply");
  }
  if (reply.call.code != DPT_OK) sdk::fail(static_cast<dpt_code>(reply.call.code), message);
  return reply;
}

dpt_sandbox_box* PoolClient::acquire() {
  std::unique_ptr<Connection> connection = connect_and_greet();
  connection->box = call(*connection, request_of(PoolOp::acquire), "", nullptr).box;
  Connection* raw = connection.get();
  const std::lock_guard<std::mutex> lock(mutex_);
  boxes_.emplace(raw, std::move(connection));
  return reinterpret_cast<dpt_sandbox_box*>(raw);
}

void PoolClient::release(dpt_sandbox_box* handle) {
  Connection& connection = checked(handle, "release args");
  std::unique_ptr<Connection> owned;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    const auto found = boxes_.find(&connection);
    owned = std::move(found->second);
    boxes_.erase(found);
  }
  // The server also releases a box whose connection closes; asking first reports its errors.
  call(*owned, request_of(PoolOp::release, owned->box), "", nullptr);
}

void PoolClient::exec(dpt_sandbox_exec_args& args) {
  const auto start = std::chrono::steady_clock::now();
  Connection& connection = checked(args.box, "exec args");
  PoolRequest request = request_of(PoolOp::exec, connection.box);
  request.call.timeout_ms = args.timeout_ms;
  std::string strings = strings_of(args.argv, request.call.argc);
  strings += strings_of(args.env, request.call.envc);
  request.call.has_env = args.env != nullptr ? 1 : 0;
  strings.append(args.cwd != nullptr ? args.cwd : "").push_back('\0');
  sdk::require(args.stdin_data != nullptr || args.stdin_bytes == 0, "exec args: `stdin_data` is NULL");
  request.call.payload_bytes = args.stdin_bytes;
  const Reply reply = call(connection, request, strings, args.stdin_data).call;
  args.exit_code = reply.exit_code;
  args.signal = reply.signal;
  args.timed_out = (reply.flags & kTimedOut) != 0 ? 1 : 0;
  args.killed_for_memory = (reply.flags & kKilledForMemory) != 0 ? 1 : 0;
  args.stdout_truncated = (reply.flags & kStdoutTruncated) != 0 ? 1 : 0;
  args.stderr_truncated = (reply.flags & kStderrTruncated) != 0 ? 1 : 0;
  args.stdout_data = connection.buffer.data();
  args.stdout_bytes = reply.stdout_bytes;
  args.stderr_data = connection.buffer.data() + reply.stdout_bytes;
  args.stderr_bytes = reply.stderr_bytes;
  args.wall_ns = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
}

void PoolClient::put(const dpt_sandbox_put_args& args) {
  Connection& connection = checked(args.box, "put args");
  PoolRequest request = request_of(PoolOp::put, connection.box);
  request.call.mode = args.mode;
  request.call.payload_bytes = args.bytes;
  call(connection, request, std::string(args.path) + '\0', args.data);
}

void PoolClient::get(dpt_sandbox_get_args& args) {
  Connection& connection = checked(args.box, "get args");
  const Reply reply =
      call(connection, request_of(PoolOp::get, connection.box), std::string(args.path) + '\0', nullptr).call;
  args.data = connection.buffer.data();
  args.bytes = reply.file_bytes;
}

void PoolClient::reset(dpt_sandbox_box* handle) {
  Connection& connection = checked(handle, "reset args");
  call(connection, request_of(PoolOp::reset, connection.box), "", nullptr);
}

dpt_sandbox_stats PoolClient::stats() {
  const std::unique_ptr<Connection> connection = connect_and_greet();
  dpt_sandbox_stats stats{};
  call(*connection, request_of(PoolOp::stats), "", nullptr, &stats);
  stats.struct_size = DPT_SANDBOX_STATS_SIZE_1_4;
  return stats;
}

}  // namespace dopant::sandbox
