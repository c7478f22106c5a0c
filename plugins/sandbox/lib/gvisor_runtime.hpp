// Boxes inside gVisor (`pbox` with runtime = "runsc"): each box is one gVisor sandbox,
// started with `runsc run` from an OCI bundle written here, whose process is the box's
// worker. gVisor is the boundary: the box's system calls reach gVisor's user-space kernel,
// not the host's. The bundle gives the box the same walls the native worker builds for itself:
// a read-only root of the configured binds (and the worker), gVisor's own /dev and /proc, a
// size-capped tmpfs workspace, and no network but loopback. The worker's socket is the
// sandbox's stdin and stdout (a memfd cannot cross into gVisor, so payloads travel inline).
//
// A pool has one folder under the temp folder: runsc's state, the empty read-only root
// (holding only mount points and the links the binds are on the host), and one bundle and
// log per box.
#pragma once

#include "box_settings.hpp"

#include <sys/types.h>

#include <atomic>
#include <string>

namespace dopant::sandbox {

class GvisorRuntime {
 public:
  // Finds `runsc` on PATH and makes the pool's folder. Throws sdk::Error naming the
  // parameter `runtime` when runsc is missing or the folder cannot be made.
  GvisorRuntime(const BoxSettings& settings, const std::string& worker_path);
  // Removes the pool's folder; every box must have been ended.
  ~GvisorRuntime();
  GvisorRuntime(const GvisorRuntime&) = delete;
  GvisorRuntime& operator=(const GvisorRuntime&) = delete;

  // Starts a sandbox whose process is the worker with `socket` as its stdin and stdout.
  // Returns the pid of `runsc run`, and the sandbox's name in `container`. Throws sdk::Error.
  pid_t start(int socket, std::string& container);
  // The end of what runsc and the worker wrote on stderr for `container`, to explain a box
  // that did not start.
  std::string log_of(const std::string& container) const;
  // Ends a sandbox whose socket the caller has closed: its worker exits at end of file and
  // gVisor with it; one still running after a second (a worker busy or taken over) is
  // killed with `runsc run`, and runsc's state of it deleted.
  void end(pid_t pid, const std::string& container);

 private:
  // The OCI config.json of every box of the pool.
  std::string bundle_config() const;

  const BoxSettings settings_;
  const std::string worker_path_;
  std::string runsc_;   // the executable
  std::string folder_;  // the pool's folder
  std::string config_;  // bundle_config(), written into each box's bundle
  std::atomic<uint64_t> next_{0};
};

}  // namespace dopant::sandbox
