// The protocol of a pool shared between processes (`dopant sandbox serve`, and `pbox` with
// `server` set), over a Unix stream socket, and the checks both sides make of every frame.
// One connection holds boxes; a frame is a PoolRequest (client) or a PoolReply (server)
// header, then inline bytes: a request's NUL-terminated strings (exec: argv, env, cwd; put
// and get: the path), a reply's error text (a stats reply: then its dpt_sandbox_stats).
// Payloads never travel inline: exec's stdin and put's file, and a reply's stdout, stderr and
// get's file (one after the other), lie at offset 0 of the connection's shared buffer
// (shared_buffer.hpp), a sealed memfd both sides keep mapped. The server attaches one to the
// reply of the connection's first acquire (SCM_RIGHTS); a side that needs more room attaches
// a larger one to its exec or put request, or its exec or get reply, which replaces the old
// one on both sides. Every size is checked against the buffer, so a client cannot make the
// server read or write outside it, and a buffer not sealed against shrinking is refused.
// Every frame carries the magic and version; the first request of a connection is `hello`.
// Boxes are named by numbers the server gives out per connection, never by addresses.
// A frame that breaks these rules, or is larger than the bounds below, is answered with
// DPT_INVALID_ARGUMENT and the connection is closed; the server then resets and releases
// every box the connection held, as it does when a client goes away.
#pragma once

#include "worker_protocol.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace dopant::sandbox {

inline constexpr uint32_t kPoolMagic = 0x58425044;  // "DPBX" on a little-endian machine
inline constexpr uint32_t kPoolVersion = 2;         // 1: payloads inline on the socket

// exec, put, get and reset keep their worker protocol numbers (Op); call.op holds one of these.
enum class PoolOp : uint32_t { exec = 1, put = 2, get = 3, reset = 4, hello = 16, acquire, release, stats };

struct PoolRequest {
  uint32_t magic = kPoolMagic;
  uint32_t version = kPoolVersion;
  uint64_t box = 0;  // the box of every op but hello, acquire and stats
  Request call;      // op; exec/put/get: counts, strings_bytes and payload_bytes (in the buffer)
};

struct PoolReply {
  uint32_t magic = kPoolMagic;
  uint32_t version = kPoolVersion;
  uint64_t box = 0;  // acquire: the new box
  Reply call;        // stats: file_bytes of dpt_sandbox_stats follow inline
};

// Bounds of a frame: strings of a request, error text of a reply, each payload, and the
// shared buffer a side accepts from the other.
inline constexpr uint64_t kPoolLargestStrings = 1 << 20;
inline constexpr uint64_t kPoolLargestMessage = 1 << 20;
inline constexpr uint64_t kPoolLargestPayload = uint64_t{1} << 30;
inline constexpr uint64_t kPoolLargestBuffer = uint64_t{4} << 30;

// What the server knows of a connection when a request header arrives.
struct RequestContext {
  bool greeted = false;       // hello was answered
  bool attached = false;      // a descriptor came with the header
  uint64_t shared_bytes = 0;  // the shared buffer's size, the attached one's when there is one
};

// Why `request` breaks the protocol, or "": magic and version, hello first, a known op, a
// descriptor only on exec and put, strings and payload within the bounds, a payload only on
// exec and put and within the shared buffer.
std::string request_refusal(const PoolRequest& request, const RequestContext& context);

// Why `joined`, the strings_bytes after a request's header, do not fit it, or ""; on success
// the strings are appended to `strings`.
std::string strings_refusal(const PoolRequest& request, const std::string& joined, std::vector<std::string>& strings);

// What the client knows when a reply header arrives.
struct ReplyContext {
  PoolOp op = PoolOp::hello;  // of the request answered
  bool attached = false;      // a descriptor came with the header
  uint64_t shared_bytes = 0;  // as RequestContext's
};

// Why `reply` breaks the protocol, or "": magic and version, error text within its bound, a
// descriptor only on acquire, exec and get, and outputs within the shared buffer (a stats
// reply: exactly one dpt_sandbox_stats inline).
std::string reply_refusal(const PoolReply& reply, const ReplyContext& context);

}  // namespace dopant::sandbox
