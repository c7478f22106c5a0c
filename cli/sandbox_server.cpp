// The server of a shared sandbox pool (see sandbox_server.hpp): one thread per connection,
// each holding the boxes its client acquired and its shared buffer, and giving the boxes back
// when the connection ends; at SIGINT or SIGTERM it drains the connections and returns.
#include "sandbox_server.hpp"

#include "pool_protocol.hpp"
#include "shared_buffer.hpp"

#include <dopant/runtime.h>
#include <dopant/support/child_processes.hpp>

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <list>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace dopant::cli {
namespace {

using namespace dopant::sandbox;

constexpr size_t kMostConnections = 256;  // more are answered with an error and closed
constexpr int kReapMs = 1000;             // how often finished connections are joined

std::string errno_text() { return std::strerror(errno); }

// What a call came to: DPT_OK, or the code and message of its error.
struct Outcome {
  int32_t code = DPT_OK;
  std::string message;
};

// The outcome of a call that returned `error`, which is freed.
Outcome outcome_of(dpt_error* error) {
  if (error == nullptr) return {};
  Outcome outcome{dpt_error_get_code(error), dpt_error_get_message(error)};
  dpt_error_destroy(error);
  return outcome;
}

// Sends a reply whose bytes all travel inline: error text, then `inline_bytes` (stats).
bool send_reply(int socket, PoolReply reply, const Outcome& outcome,
                const std::vector<std::pair<const void*, uint64_t>>& inline_bytes = {}) {
  reply.call.code = outcome.code;
  reply.call.message_bytes = outcome.message.size();
  std::vector<std::pair<const void*, uint64_t>> pieces{{outcome.message.data(), outcome.message.size()}};
  if (outcome.code == DPT_OK) pieces.insert(pieces.end(), inline_bytes.begin(), inline_bytes.end());
  return send_message(socket, &reply, sizeof reply, -1, pieces);
}

// One client's connection: the boxes it holds, by the numbers given out to it, and the
// shared buffer its payloads travel in.
class Connection {
 public:
  Connection(const dpt_sandbox_v1& table, dpt_instance* pool, int socket) : table_(table), pool_(pool), socket_(socket) {}
  ~Connection() { give_back_boxes(); }

  // Answers requests until the client goes or breaks the protocol.
  void serve() {
    for (;;) {
      PoolRequest request;
      int fd = -1;
      if (!receive_header(socket_, &request, sizeof request, &fd)) return;
      SharedBuffer attached;  // the client's new shared buffer, checked before it is used
      const char* bad_buffer = nullptr;
      if (fd >= 0) attached = SharedBuffer::adopt(fd, kPoolLargestBuffer, &bad_buffer);
      std::string why = bad_buffer != nullptr
                            ? bad_buffer
                            : request_refusal(request, {greeted_, fd >= 0, (fd >= 0 ? attached : buffer_).capacity()});
      std::string joined(why.empty() ? request.call.strings_bytes : 0, '\0');
      if (!receive_bytes(socket_, joined.data(), joined.size())) return;
      std::vector<std::string> strings;
      if (why.empty()) why = strings_refusal(request, joined, strings);
      if (!why.empty()) {
        send_reply(socket_, {}, {DPT_INVALID_ARGUMENT, "sandbox server: " + why + "; closing the connection"});
        return;
      }
      if (fd >= 0) buffer_ = std::move(attached);
      if (!answer(request, strings)) return;
    }
  }

 private:
  // Replies to acquire, exec or get with `outputs` one after the other at the start of the
  // shared buffer; when they do not fit, or the connection has none yet, a new one is attached.
  bool send_shared_reply(PoolReply reply, Outcome outcome, const std::vector<std::pair<const void*, uint64_t>>& outputs) {
    int attached = -1;
    if (outcome.code == DPT_OK) {
      uint64_t total = 0;
      for (const auto& output : outputs) total += output.second;
      try {
        if (total > buffer_.capacity() || buffer_.empty()) {  // acquire brings the connection's first
          buffer_ = SharedBuffer::create(total);
          attached = buffer_.fd();
        }
        char* at = buffer_.data();
        for (const auto& [data, bytes] : outputs) {
          if (bytes > 0) std::memcpy(at, data, bytes);
          at += bytes;
        }
      } catch (const std::runtime_error& e) {
        outcome = {DPT_RESOURCE_EXHAUSTED, std::string("sandbox server: ") + e.what()};
        reply.call = Reply{};
      }
    }
    if (outcome.code != DPT_OK) reply.call.stdout_bytes = reply.call.stderr_bytes = reply.call.file_bytes = 0;
    reply.call.code = outcome.code;
    reply.call.message_bytes = outcome.message.size();
    return send_message(socket_, &reply, sizeof reply, attached, {{outcome.message.data(), outcome.message.size()}});
  }

  // Runs one well-formed request and replies; false when the client is gone.
  bool answer(const PoolRequest& request, const std::vector<std::string>& strings) {
    PoolReply reply;
    const auto op = static_cast<PoolOp>(request.call.op);
    if (op == PoolOp::hello) {
      greeted_ = true;
      return send_reply(socket_, reply, {});
    }
    if (op == PoolOp::stats) {
      dpt_sandbox_stats stats = DPT_SANDBOX_STATS_INIT;
      const Outcome outcome = outcome_of(table_.stats(pool_, &stats));
      reply.call.file_bytes = outcome.code == DPT_OK ? sizeof stats : 0;
      return send_reply(socket_, reply, outcome, {{&stats, sizeof stats}});
    }
    if (op == PoolOp::acquire) {
      dpt_sandbox_acquire_args args = DPT_SANDBOX_ACQUIRE_ARGS_INIT;
      const Outcome outcome = outcome_of(table_.acquire(pool_, &args));
      if (outcome.code == DPT_OK) {
        reply.box = next_box_++;
        boxes_.emplace(reply.box, args.box);
      }
      return send_shared_reply(reply, outcome, {});
    }
    const auto found = boxes_.find(request.box);
    if (found == boxes_.end()) {
      return send_reply(socket_, reply, {DPT_INVALID_ARGUMENT, "sandbox server: box " + std::to_string(request.box) +
                                                                   " is not held by this connection"});
    }
    dpt_sandbox_box* box = found->second;
    const dpt_sandbox_box_args box_args{DPT_SANDBOX_BOX_ARGS_SIZE_1_4, nullptr, box};
    switch (op) {
      case PoolOp::release: {
        boxes_.erase(found);
        return send_reply(socket_, reply, outcome_of(table_.release(pool_, &box_args)));
      }
      case PoolOp::reset: return send_reply(socket_, reply, outcome_of(table_.reset(pool_, &box_args)));
      case PoolOp::put: {
        dpt_sandbox_put_args args = DPT_SANDBOX_PUT_ARGS_INIT;
        args.box = box;
        args.path = strings[0].c_str();
        args.data = buffer_.data();
        args.bytes = request.call.payload_bytes;  // within the buffer: request_refusal
        args.mode = request.call.mode;
        return send_reply(socket_, reply, outcome_of(table_.put(pool_, &args)));
      }
      case PoolOp::get: {
        dpt_sandbox_get_args args = DPT_SANDBOX_GET_ARGS_INIT;
        args.box = box;
        args.path = strings[0].c_str();
        const Outcome outcome = outcome_of(table_.get(pool_, &args));
        reply.call.file_bytes = args.bytes;
        return send_shared_reply(reply, outcome, {{args.data, args.bytes}});
      }
      default: return exec(request.call, strings, box);
    }
  }

  bool exec(const Request& call, const std::vector<std::string>& strings, dpt_sandbox_box* box) {
    // strings: argv (argc), env (envc), cwd; "" cwd is the workspace.
    std::vector<const char*> argv, env;
    for (uint32_t i = 0; i < call.argc; ++i) argv.push_back(strings[i].c_str());
    argv.push_back(nullptr);
    for (uint32_t i = 0; i < call.envc; ++i) env.push_back(strings[call.argc + i].c_str());
    env.push_back(nullptr);
    const std::string& cwd = strings[call.argc + call.envc];
    dpt_sandbox_exec_args args = DPT_SANDBOX_EXEC_ARGS_INIT;
    args.box = box;
    args.argv = argv.data();
    args.env = call.has_env != 0 ? env.data() : nullptr;
    args.cwd = cwd.empty() ? nullptr : cwd.c_str();
    args.stdin_data = buffer_.data();
    args.stdin_bytes = call.payload_bytes;  // within the buffer: request_refusal
    args.timeout_ms = call.timeout_ms;
    const Outcome outcome = outcome_of(table_.exec(pool_, &args));
    PoolReply reply;
    reply.call.exit_code = args.exit_code;
    reply.call.signal = args.signal;
    reply.call.flags = (args.timed_out != 0 ? kTimedOut : 0) | (args.killed_for_memory != 0 ? kKilledForMemory : 0) |
                       (args.stdout_truncated != 0 ? kStdoutTruncated : 0) |
                       (args.stderr_truncated != 0 ? kStderrTruncated : 0);
    reply.call.stdout_bytes = args.stdout_bytes;
    reply.call.stderr_bytes = args.stderr_bytes;
    return send_shared_reply(reply, outcome, {{args.stdout_data, args.stdout_bytes}, {args.stderr_data, args.stderr_bytes}});
  }

  // Every box still held goes back to the pool clean: whatever it runs is killed first.
  void give_back_boxes() {
    for (const auto& [number, box] : boxes_) {
      const dpt_sandbox_box_args args{DPT_SANDBOX_BOX_ARGS_SIZE_1_4, nullptr, box};
      outcome_of(table_.reset(pool_, &args));
      outcome_of(table_.release(pool_, &args));
    }
    boxes_.clear();
  }

  const dpt_sandbox_v1& table_;
  dpt_instance* const pool_;
  const int socket_;
  bool greeted_ = false;
  SharedBuffer buffer_;  // empty until the first acquire
  uint64_t next_box_ = 1;
  std::unordered_map<uint64_t, dpt_sandbox_box*> boxes_;
};

// A socket listening at `path` with mode 0600; a stale socket there is replaced.
int listen_at(const std::string& path) {
  sockaddr_un address{};
  if (path.empty() || path.size() >= sizeof address.sun_path) {
    throw std::runtime_error("--socket: `" + path + "` is empty or longer than a socket path may be");
  }
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  const auto* raw = reinterpret_cast<const sockaddr*>(&address);
  struct stat existing {};
  if (lstat(path.c_str(), &existing) == 0) {
    if (!S_ISSOCK(existing.st_mode)) {
      throw std::runtime_error("--socket: `" + path + "` exists and is not a socket; not replacing it");
    }
    const int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const bool live = probe >= 0 && connect(probe, raw, sizeof address) == 0;
    if (probe >= 0) close(probe);
    if (live) throw std::runtime_error("--socket: a server already listens at `" + path + "`");
    if (unlink(path.c_str()) != 0) throw std::runtime_error("--socket: cannot remove the stale `" + path + "`: " + errno_text());
  }
  const int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listener < 0) throw std::runtime_error("socket: " + errno_text());
  const mode_t old_mask = umask(0177);  // the socket file is made 0600: only this user may connect
  const bool bound = bind(listener, raw, sizeof address) == 0;
  const int bind_error = errno;
  umask(old_mask);
  if (!bound || listen(listener, 64) != 0) {
    close(listener);
    throw std::runtime_error("--socket: cannot listen at `" + path + "`: " + std::strerror(bound ? errno : bind_error));
  }
  return listener;
}

struct Running {
  int socket = -1;
  std::atomic<bool> done{false};
  std::thread thread;
};

}  // namespace

void serve_sandbox_pool(const dpt_sandbox_v1& table, dpt_instance* pool, const std::string& socket_path) {
  const int listener = listen_at(socket_path);
  remove_on_interrupt(socket_path);  // a second signal ends dopant at once, and still removes it
  int stop[2];
  if (pipe2(stop, O_CLOEXEC) != 0) {
    close(listener);
    throw std::runtime_error("pipe: " + errno_text());
  }
  defer_next_interrupt([signalled = stop[1]] { (void)!write(signalled, "x", 1); });
  std::fprintf(stderr, "dopant: serving the sandbox pool at %s\n", socket_path.c_str());
  std::list<Running> running;
  for (;;) {
    pollfd waiting[2] = {{listener, POLLIN, 0}, {stop[0], POLLIN, 0}};
    const int ready = poll(waiting, 2, kReapMs);
    for (auto at = running.begin(); at != running.end();) {  // join the connections that ended
      if (!at->done) {
        ++at;
        continue;
      }
      at->thread.join();
      close(at->socket);
      at = running.erase(at);
    }
    if (ready > 0 && (waiting[1].revents & POLLIN) != 0) break;
    if (ready <= 0) continue;
    const int client = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) continue;
    if (running.size() >= kMostConnections) {
      send_reply(client, {}, {DPT_RESOURCE_EXHAUSTED, "sandbox server: too many connections"});
      close(client);
      continue;
    }
    Running& slot = running.emplace_back();
    slot.socket = client;
    slot.thread = std::thread([&table, pool, &slot] {
      Connection(table, pool, slot.socket).serve();
      slot.done = true;
    });
  }
  // Drain: no new connections; each connection answers the call it is in (bounded by that
  // call's timeout), then reads end of file and gives its boxes back, reset.
  std::fprintf(stderr, "dopant: draining the sandbox pool at %s\n", socket_path.c_str());
  close(listener);
  unlink(socket_path.c_str());
  forget_on_interrupt(socket_path);
  for (Running& slot : running) shutdown(slot.socket, SHUT_RD);
  for (Running& slot : running) {
    slot.thread.join();
    close(slot.socket);
  }
  for (const int fd : stop) close(fd);
}

}  // namespace dopant::cli
