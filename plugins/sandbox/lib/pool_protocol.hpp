// The protocol of a pool shared between processes (`dopant sandbox serve`, and `pbox` with
// `server` set), over a Unix stream socket. One connection holds boxes; a frame is a
// PoolRequest (client) or a PoolReply (server) header, then the bytes the worker protocol
// puts after its Request and Reply (worker_protocol.hpp): a request's NUL-terminated strings
// and payload, a reply's error text, stdout, stderr and file, always inline on the socket.
// Every frame carries the magic and version; the first request of a connection is `hello`.
// Boxes are named by numbers the server gives out per connection, never by addresses.
// A frame that breaks these rules, or is larger than the bounds below, is answered with
// DPT_INVALID_ARGUMENT and the connection is closed; the server then resets and releases
// every box the connection held, as it does when a client goes away.
#pragma once

#include "worker_protocol.hpp"

#include <cstdint>

namespace dopant::sandbox {

inline constexpr uint32_t kPoolMagic = 0x58425044;  // "DPBX" on a little-endian machine
inline constexpr uint32_t kPoolVersion = 1;

// exec, put, get and reset keep their worker protocol numbers (Op); call.op holds one of these.
enum class PoolOp : uint32_t { exec = 1, put = 2, get = 3, reset = 4, hello = 16, acquire, release, stats };

struct PoolRequest {
  uint32_t magic = kPoolMagic;
  uint32_t version = kPoolVersion;
  uint64_t box = 0;  // the box of every op but hello, acquire and stats
  Request call;      // op, and for exec/put/get: counts and sizes as the worker protocol's
};

struct PoolReply {
  uint32_t magic = kPoolMagic;
  uint32_t version = kPoolVersion;
  uint64_t box = 0;  // acquire: the new box
  Reply call;        // stats: file_bytes of dpt_sandbox_stats follow
};

// Bounds of a frame: strings of a request, error text of a reply, and each payload.
inline constexpr uint64_t kPoolLargestStrings = 1 << 20;
inline constexpr uint64_t kPoolLargestMessage = 1 << 20;
inline constexpr uint64_t kPoolLargestPayload = uint64_t{1} << 30;

}  // namespace dopant::sandbox
