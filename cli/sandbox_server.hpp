// `dopant sandbox serve`: one sandbox pool served to other processes over a Unix socket
// (the protocol: plugins/sandbox/lib/pool_protocol.hpp; the threat model: docs/sandbox.md).
#pragma once

#include <dopant/sandbox.h>

#include <string>

namespace dopant::cli {

// Serves `pool` at `socket_path` until SIGINT, SIGTERM or SIGHUP, then drains: stops
// accepting, removes the socket file, lets every call in flight end (each is bounded by its
// timeout) and returns once every connection has given back its boxes, reset. A second
// signal ends dopant at once. A connection that ends gives back every box it held, reset,
// once its call in flight ends.
// The socket is made with mode 0600. An existing path is replaced only when it is a socket
// nobody listens on; anything else is refused, naming the path. Throws std::runtime_error.
void serve_sandbox_pool(const dpt_sandbox_v1& table, dpt_instance* pool, const std::string& socket_path);

}  // namespace dopant::cli
