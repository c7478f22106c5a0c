// The pool behind both sandbox plugins: boxes handed out by acquire, driven over the worker
// protocol, given back by release. Two ways to run a box:
//   Warm (pbox): each box is one long-lived worker; payloads travel in the box's shared
//     buffer (shared_buffer.hpp), a memfd both sides keep mapped; release wipes
//     the workspace and keeps the worker for the next acquire. A worker that dies or stops
//     answering is killed, replaced by a fresh one, and counted in boxes_replaced.
//     With runtime runsc, the worker runs inside gVisor (gvisor_runtime.hpp) and payloads
//     travel inline through its socket instead: a memfd cannot cross into gVisor.
//   PerCall (spawn): every call starts a new isolated worker, as a hosted provider does, and
//     ends it after the reply; the workspace is a host folder bound into each of them, and
//     payloads travel inline through the socket.
// Calls on different boxes run concurrently; calls on one box are serialized by the caller.
#pragma once

#include "box_cgroup.hpp"
#include "box_settings.hpp"
#include "gvisor_runtime.hpp"
#include "shared_buffer.hpp"
#include "worker_protocol.hpp"

#include <sys/types.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace dopant::sandbox {

enum class PoolMode { warm, per_call };

// The sandbox kind's calls on a pool, whoever runs its boxes: a BoxPool of this process or a
// PoolClient of a shared one (pool_client.hpp). Each call throws sdk::Error.
class Pool {
 public:
  virtual ~Pool() = default;
  virtual dpt_sandbox_box* acquire() = 0;
  virtual void release(dpt_sandbox_box* box) = 0;
  virtual void exec(dpt_sandbox_exec_args& args) = 0;
  virtual void put(const dpt_sandbox_put_args& args) = 0;
  virtual void get(dpt_sandbox_get_args& args) = 0;
  virtual void reset(dpt_sandbox_box* box) = 0;
  virtual dpt_sandbox_stats stats() = 0;
};

class BoxPool : public Pool {
 public:
  // Starts `warm_boxes` boxes now (warm mode). Throws sdk::Error when the worker is missing
  // or a box cannot be built on this machine.
  BoxPool(const BoxSettings& settings, PoolMode mode, uint64_t warm_boxes);
  ~BoxPool() override;
  BoxPool(const BoxPool&) = delete;
  BoxPool& operator=(const BoxPool&) = delete;

  dpt_sandbox_box* acquire() override;
  void release(dpt_sandbox_box* box) override;
  void exec(dpt_sandbox_exec_args& args) override;
  void put(const dpt_sandbox_put_args& args) override;
  void get(dpt_sandbox_get_args& args) override;
  void reset(dpt_sandbox_box* box) override;
  dpt_sandbox_stats stats() override;

 private:
  struct Worker {
    pid_t pid = -1;  // the worker, or `runsc run` of its sandbox
    int socket = -1;
    std::string container;  // runsc: the sandbox's name
  };
  struct Box {
    Worker worker;                // warm: the box's worker; per call: none between calls
    std::unique_ptr<BoxCgroup> cgroup;  // every worker of the box joins it; none under runsc
    std::string host_folder;      // per call: the workspace on the host
    SharedBuffer buffer;          // warm: kShared payloads of both directions
    std::string inline_outputs;   // per call: the last reply's stdout, stderr and file
    const char* outputs = nullptr;  // the last reply's stdout, stderr and file, in one of the two
  };
  struct Answer {
    Reply reply;
    std::string message;
  };

  Box& checked(dpt_sandbox_box* handle, const char* what);
  void reset(Box& box);
  // Starts a worker for `box` (nullptr: a trial worker outside any box).
  Worker start_worker(const Box* box);
  void end_worker(Worker& worker);
  std::unique_ptr<Box> new_box();
  // Sends one request to the box's worker and reads its reply into box.outputs. A worker
  // that fails to answer is replaced (warm) and the call fails with DPT_UNAVAILABLE; a reply
  // with an error code is thrown as that error.
  Answer call(Box& box, const Request& request, const std::string& strings, const void* payload,
              int wait_ms);
  // One request to `worker` of `box` and its reply; false when the worker did not answer
  // or broke the protocol.
  bool exchange(Worker& worker, Box& box, const Request& request, const std::string& strings, const void* payload,
                int wait_ms, Answer& answer);

  // The most a reply of a box may carry (stdout, stderr and a file), bounding what the pool
  // accepts from a worker.
  uint64_t largest_reply() const;

  const BoxSettings settings_;
  const PoolMode mode_;
  const std::string worker_path_;
  std::unique_ptr<GvisorRuntime> gvisor_;  // runtime runsc only
  uint32_t cgroup_enforced_ = 0;  // DPT_SANDBOX_CGROUP_* bits this machine allows
  std::mutex mutex_;
  std::vector<std::unique_ptr<Box>> idle_;
  std::unordered_map<Box*, std::unique_ptr<Box>> in_use_;
  std::atomic<uint64_t> started_{0}, replaced_{0}, execs_{0}, timeouts_{0};
};

}  // namespace dopant::sandbox
