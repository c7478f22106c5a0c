// The protocol between a pool and a box's worker, over a Unix stream socketpair.
//
// A request is a Request header, then `strings_bytes` of NUL-terminated strings (exec: argv,
// then env, then cwd; put and get: the path), then the payload (put: the file; exec: stdin).
// A reply is a Reply header, then `message_bytes` of error text, then stdout, stderr and the
// file of a get, in that order. A payload travels one of two ways, chosen by the pool per
// request and used by the reply too: inline on the socket after the header (kInline), or at
// offset 0 of the box's shared buffer (kShared, shared_buffer.hpp), so large payloads are
// never copied through the socket. A memfd attached to a kShared message (SCM_RIGHTS) is the
// sender's new, larger shared buffer, which replaces the old one on both sides.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dopant::sandbox {

enum class Op : uint32_t { exec = 1, put = 2, get = 3, reset = 4 };

inline constexpr uint32_t kInline = 0, kShared = 1;

struct Request {
  uint32_t op = 0;
  uint32_t transport = kInline;  // how the payload travels, and how the reply's should
  uint64_t timeout_ms = 0;
  uint32_t mode = 0;             // put: permission bits
  uint32_t argc = 0;             // exec: strings that are argv; then envc for env
  uint32_t envc = 0;
  uint32_t has_env = 0;          // exec: 0 means the worker's default environment
  uint64_t strings_bytes = 0;
  uint64_t payload_bytes = 0;
};

inline constexpr uint32_t kTimedOut = 1, kStdoutTruncated = 2, kStderrTruncated = 4;
inline constexpr uint32_t kKilledForMemory = 8;  // set by a shared pool's server (pool_protocol.hpp)

struct Reply {
  int32_t code = 0;              // a dpt_code; 0 for success
  int32_t exit_code = -1;
  int32_t signal = 0;
  uint32_t flags = 0;            // k* bits above
  uint64_t message_bytes = 0;
  uint64_t stdout_bytes = 0;
  uint64_t stderr_bytes = 0;
  uint64_t file_bytes = 0;
};

// A memfd holding `pieces` one after the other; throws std::runtime_error.
int memfd_of(const std::vector<std::pair<const void*, uint64_t>>& pieces);

// Sends a header with `fd` attached (-1: none), then the `pieces` inline. Returns false when
// the peer is gone.
bool send_message(int socket, const void* header, size_t header_bytes, int fd,
                  const std::vector<std::pair<const void*, uint64_t>>& inline_pieces);

// Receives a header and the fd attached to it (-1 when none). Returns false on end of file
// or error. `deadline_ms` < 0 waits forever; on timeout sets *timed_out.
bool receive_header(int socket, void* header, size_t header_bytes, int* fd, int deadline_ms = -1,
                    bool* timed_out = nullptr);

// The strings of a NULL-terminated list (NULL: none), each ended by NUL; counts them.
std::string strings_of(const char* const* list, uint32_t& count);

// The NUL-terminated strings of `joined`, appended to `out`; false when the last one is not
// terminated.
bool split_strings(const std::string& joined, std::vector<std::string>& out);

// Whether a request of its op carries `strings` strings (exec: argv, env and cwd).
bool well_formed(const Request& request, size_t strings);

// Reads exactly `bytes` inline bytes. Returns false on end of file or error.
bool receive_bytes(int socket, void* data, uint64_t bytes);

}  // namespace dopant::sandbox
