// `pbox` with `server` set: the sandbox calls sent to a shared pool (`dopant sandbox serve`)
// over its socket (pool_protocol.hpp). Each acquired box is one connection of its own, so
// calls on different boxes run concurrently, and a client that dies gives its boxes back by
// closing their connections. Payloads travel in the connection's shared buffer: a put is one
// copy into it, and a get's file and an exec's output are read where the server wrote them.
#pragma once

#include "box_pool.hpp"
#include "pool_protocol.hpp"
#include "shared_buffer.hpp"

#include <dopant/sandbox.h>

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace dopant::sandbox {

class PoolClient final : public Pool {
 public:
  // Greets the server once, so that a wrong path or version fails at create. Throws sdk::Error.
  explicit PoolClient(std::string socket_path);

  dpt_sandbox_box* acquire() override;
  void release(dpt_sandbox_box* box) override;
  void exec(dpt_sandbox_exec_args& args) override;
  void put(const dpt_sandbox_put_args& args) override;
  void get(dpt_sandbox_get_args& args) override;
  void reset(dpt_sandbox_box* box) override;
  dpt_sandbox_stats stats() override;

 private:
  struct Connection {
    int socket = -1;
    uint64_t box = 0;     // the server's number of the box this connection holds
    SharedBuffer buffer;  // payloads of both directions; from the server at acquire
    Connection() = default;
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;
    ~Connection();
  };

  std::unique_ptr<Connection> connect_and_greet() const;
  Connection& checked(dpt_sandbox_box* handle, const char* what);
  // Sends one request, its payload (request.call.payload_bytes at `payload`) through the
  // shared buffer, and reads its reply: outputs in connection.buffer, a stats reply's bytes
  // into `stats`. A reply with an error code is thrown as that error, a broken connection or
  // protocol as DPT_UNAVAILABLE.
  PoolReply call(Connection& connection, PoolRequest request, const std::string& strings, const void* payload,
                 dpt_sandbox_stats* stats = nullptr) const;

  const std::string socket_path_;
  std::mutex mutex_;
  std::unordered_map<Connection*, std::unique_ptr<Connection>> boxes_;
};

}  // namespace dopant::sandbox
