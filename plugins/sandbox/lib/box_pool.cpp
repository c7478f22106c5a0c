// The pool of boxes shared by `spawn` and `pbox` (see box_pool.hpp).
#include "box_pool.hpp"

#include "isolation.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>

namespace dopant::sandbox {

namespace {

constexpr int kStartMs = 10000;     // for a worker to build its box and say ready
constexpr int kFileOpMs = 60000;    // for put, get and reset
constexpr int kExecGraceMs = 5000;  // past an exec's timeout, for the worker to kill and reply
constexpr uint64_t kLargestMessage = 1 << 20;  // error text of a reply

// The worker executable, next to the plugin library that holds this code.
std::string worker_next_to_this_library() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<const void*>(&worker_next_to_this_library), &info) == 0 || info.dli_fname == nullptr) {
    sdk::fail(DPT_INTERNAL, "cannot tell where the sandbox plugin was loaded from");
  }
  const std::string path = std::filesystem::path(info.dli_fname).parent_path() / "dopant-sandbox-worker";
  if (access(path.c_str(), X_OK) != 0) sdk::fail(DPT_NOT_FOUND, "sandbox worker `" + path + "` is missing");
  return path;
}

[[noreturn]] void fail_unavailable(const std::string& what) { sdk::fail(DPT_UNAVAILABLE, what); }

}  // namespace

BoxPool::BoxPool(const BoxSettings& settings, PoolMode mode, uint64_t warm_boxes)
    : settings_(settings), mode_(mode), worker_path_(worker_next_to_this_library()) {
  if (settings_.runtime == Runtime::runsc) {
    sdk::require(mode_ == PoolMode::warm, "parameter `runtime`: \"runsc\" needs a warm pool");
    gvisor_ = std::make_unique<GvisorRuntime>(settings_, worker_path_);
  } else {
    cgroup_enforced_ = BoxCgroup(settings_.memory_bytes, settings_.processes).enforced();
  }
  for (uint64_t i = 0; mode_ == PoolMode::warm && i < warm_boxes; ++i) idle_.push_back(new_box());
  if (mode_ == PoolMode::per_call) {  // fail at create, not at the first call, when boxes cannot be built
    Worker trial = start_worker(nullptr);
    end_worker(trial);
  }
}

BoxPool::~BoxPool() {
  const std::lock_guard<std::mutex> lock(mutex_);
  auto end = [this](Box& box) {
    end_worker(box.worker);
    if (!box.host_folder.empty()) std::filesystem::remove_all(box.host_folder);
  };
  for (auto& box : idle_) end(*box);
  for (auto& [raw, box] : in_use_) end(*box);
}

BoxPool::Worker BoxPool::start_worker(const Box* box) {
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    sdk::fail(DPT_RESOURCE_EXHAUSTED, std::string("socketpair: ") + std::strerror(errno));
  }
  Worker worker;
  worker.socket = fds[0];
  try {
    worker.pid = gvisor_ != nullptr ? gvisor_->start(fds[1], worker.container)
                                    : start_isolated_worker(worker_path_, settings_, fds[1],
                                                            box != nullptr ? box->host_folder : "");
  } catch (...) {
    for (int fd : fds) close(fd);
    throw;
  }
  close(fds[1]);
  if (box != nullptr && box->cgroup != nullptr && !box->cgroup->attach(worker.pid)) {
    end_worker(worker);
    sdk::fail(DPT_PERMISSION_DENIED, "cannot move a box's worker into its control groups");
  }
  Reply ready;
  int fd = -1;
  std::string message;
  bool answered = receive_header(worker.socket, &ready, sizeof ready, &fd, kStartMs);
  if (fd >= 0) close(fd);
  if (answered && ready.code != 0) {
    message.resize(ready.message_bytes);
    answered = receive_bytes(worker.socket, message.data(), message.size());
  }
  if (!answered || ready.code != 0) {
    if (!answered) message = "a box's worker ended before it was ready (" + worker_path_ + ")";
    if (gvisor_ != nullptr) {
      message = "parameter `runtime` = \"runsc\": a box did not start in gVisor: " + message +
                "; runsc said: " + gvisor_->log_of(worker.container);
    }
    end_worker(worker);
    sdk::fail(answered ? dpt_code_known_or_internal(ready.code) : DPT_UNAVAILABLE, message);
  }
  ++started_;
  return worker;
}

void BoxPool::end_worker(Worker& worker) {
  if (worker.socket >= 0) close(worker.socket);
  if (worker.pid > 0 && gvisor_ != nullptr) {
    gvisor_->end(worker.pid, worker.container);
  } else if (worker.pid > 0) {
    kill(worker.pid, SIGKILL);  // pid 1 of its namespace: everything in the box goes with it
    waitpid(worker.pid, nullptr, 0);
  }
  worker = Worker{};
}

std::unique_ptr<BoxPool::Box> BoxPool::new_box() {
  auto box = std::make_unique<Box>();
  if (gvisor_ == nullptr) box->cgroup = std::make_unique<BoxCgroup>(settings_.memory_bytes, settings_.processes);
  if (mode_ == PoolMode::warm) {
    box->worker = start_worker(box.get());
    return box;
  }
  std::string pattern = std::filesystem::temp_directory_path() / "dopant-spawn-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) sdk::fail(DPT_RESOURCE_EXHAUSTED, std::string("mkdtemp: ") + std::strerror(errno));
  box->host_folder = pattern;
  if (chown(pattern.c_str(), box_user_on_host(), box_user_on_host()) != 0 && geteuid() == 0) {
    std::filesystem::remove_all(pattern);
    sdk::fail(DPT_PERMISSION_DENIED, "cannot give a workspace folder to the box's user");
  }
  return box;
}

BoxPool::Box& BoxPool::checked(dpt_sandbox_box* handle, const char* what) {
  const std::lock_guard<std::mutex> lock(mutex_);
  const auto found = in_use_.find(reinterpret_cast<Box*>(handle));
  if (found == in_use_.end()) sdk::fail(DPT_INVALID_ARGUMENT, std::string(what) + ": `box` is not an acquired box of this pool");
  return *found->second;
}

dpt_sandbox_box* BoxPool::acquire() {
  std::unique_ptr<Box> box;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (!idle_.empty()) {
      box = std::move(idle_.back());
      idle_.pop_back();
    }
  }
  if (box == nullptr) box = new_box();
  Box* raw = box.get();
  const std::lock_guard<std::mutex> lock(mutex_);
  in_use_.emplace(raw, std::move(box));
  return reinterpret_cast<dpt_sandbox_box*>(raw);
}

void BoxPool::release(dpt_sandbox_box* handle) {
  checked(handle, "release args");
  std::unique_ptr<Box> box;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    const auto found = in_use_.find(reinterpret_cast<Box*>(handle));
    box = std::move(found->second);
    in_use_.erase(found);
  }
  box->outputs = nullptr;
  if (mode_ == PoolMode::per_call) {
    std::filesystem::remove_all(box->host_folder);
    return;
  }
  try {
    reset(*box);
  } catch (const sdk::Error&) {
    end_worker(box->worker);  // a box that cannot be wiped is not handed out again
    ++replaced_;
    box = new_box();
  }
  const std::lock_guard<std::mutex> lock(mutex_);
  idle_.push_back(std::move(box));
}

void BoxPool::reset(dpt_sandbox_box* handle) { reset(checked(handle, "reset args")); }

void BoxPool::reset(Box& box) {
  box.outputs = nullptr;
  if (mode_ == PoolMode::per_call) {
    for (const auto& entry : std::filesystem::directory_iterator(box.host_folder)) {
      std::filesystem::remove_all(entry.path());
    }
    return;
  }
  Request request;
  request.op = static_cast<uint32_t>(Op::reset);
  call(box, request, "", nullptr, kFileOpMs);
  box.buffer.shrink_after_reset();  // as the worker does
}

bool BoxPool::exchange(Worker& worker, Box& box, const Request& request, const std::string& strings,
                       const void* payload, int wait_ms, Answer& answer) {
  std::vector<std::pair<const void*, uint64_t>> pieces = {{strings.data(), strings.size()}};
  int attached = -1;
  if (request.transport == kShared) {
    if (request.payload_bytes > box.buffer.capacity()) {
      box.buffer = SharedBuffer::create(request.payload_bytes);
      attached = box.buffer.fd();
    }
    if (request.payload_bytes > 0) std::memcpy(box.buffer.data(), payload, request.payload_bytes);
  } else {
    pieces.push_back({payload, request.payload_bytes});
  }
  if (!send_message(worker.socket, &request, sizeof request, attached, pieces)) return false;
  int fd = -1;
  if (!receive_header(worker.socket, &answer.reply, sizeof answer.reply, &fd, wait_ms)) return false;
  // The worker is on the box's side of the wall: its sizes and buffers are checked, never trusted.
  const Reply& reply = answer.reply;
  const uint64_t largest = largest_reply();
  bool sane = reply.message_bytes <= kLargestMessage && reply.stdout_bytes <= largest &&
              reply.stderr_bytes <= largest && reply.file_bytes <= largest;
  if (fd >= 0) {
    const char* why = nullptr;
    if (sane && request.transport == kShared) box.buffer = SharedBuffer::adopt(fd, 2 * largest, &why);
    else close(fd);
    sane = sane && !box.buffer.empty();
  }
  if (!sane) return false;
  answer.message.resize(reply.message_bytes);
  if (!receive_bytes(worker.socket, answer.message.data(), answer.message.size())) return false;
  const uint64_t total = reply.stdout_bytes + reply.stderr_bytes + reply.file_bytes;
  if (request.transport == kShared) {
    if (total > box.buffer.capacity()) return false;
    box.outputs = box.buffer.data();
    return true;
  }
  box.inline_outputs.assign(total, '\0');
  if (!receive_bytes(worker.socket, box.inline_outputs.data(), total)) return false;
  box.outputs = box.inline_outputs.data();
  return true;
}

BoxPool::Answer BoxPool::call(Box& box, const Request& request, const std::string& strings, const void* payload,
                              int wait_ms) {
  box.outputs = nullptr;
  Request sent = request;
  sent.transport = mode_ == PoolMode::warm && gvisor_ == nullptr ? kShared : kInline;
  sent.strings_bytes = strings.size();
  Answer answer;
  bool answered = false;
  if (mode_ == PoolMode::per_call) {
    Worker worker = start_worker(&box);
    answered = exchange(worker, box, sent, strings, payload, wait_ms, answer);
    end_worker(worker);
  } else {
    answered = exchange(box.worker, box, sent, strings, payload, wait_ms, answer);
  }
  if (!answered) {
    box.outputs = nullptr;
    if (mode_ == PoolMode::warm) {
      end_worker(box.worker);
      box.buffer = SharedBuffer{};  // the fresh worker starts without one
      ++replaced_;
      box.worker = start_worker(&box);
    }
    fail_unavailable("the box's worker stopped answering; it was killed and replaced by a fresh box with an "
                     "empty workspace");
  }
  if (answer.reply.code != 0) sdk::fail(dpt_code_known_or_internal(answer.reply.code), answer.message);
  return answer;
}

void BoxPool::exec(dpt_sandbox_exec_args& args) {
  const auto start = std::chrono::steady_clock::now();
  Box& box = checked(args.box, "exec args");
  Request request;
  request.op = static_cast<uint32_t>(Op::exec);
  request.timeout_ms = args.timeout_ms != 0 ? args.timeout_ms : settings_.timeout_ms;
  std::string strings = strings_of(args.argv, request.argc);
  for (const char* const* entry = args.env; entry != nullptr && *entry != nullptr; ++entry) {
    sdk::require(std::strchr(*entry, '=') != nullptr, std::string("exec args: `env` entry `") + *entry + "` has no `=`");
  }
  strings += strings_of(args.env, request.envc);
  request.has_env = args.env != nullptr ? 1 : 0;
  strings.append(args.cwd != nullptr ? args.cwd : "").push_back('\0');
  request.payload_bytes = args.stdin_bytes;
  sdk::require(args.stdin_data != nullptr || args.stdin_bytes == 0, "exec args: `stdin_data` is NULL");
  const int wait_ms = static_cast<int>(std::min<uint64_t>(request.timeout_ms + kExecGraceMs, 1u << 30));
  const uint64_t memory_kills = box.cgroup != nullptr ? box.cgroup->memory_kills() : 0;
  const Answer answer = call(box, request, strings, args.stdin_data, wait_ms);
  ++execs_;
  if ((answer.reply.flags & kTimedOut) != 0) ++timeouts_;
  args.exit_code = answer.reply.exit_code;
  args.signal = answer.reply.signal;
  args.timed_out = (answer.reply.flags & kTimedOut) != 0 ? 1 : 0;
  args.killed_for_memory = box.cgroup != nullptr && box.cgroup->memory_kills() > memory_kills ? 1 : 0;
  args.stdout_truncated = (answer.reply.flags & kStdoutTruncated) != 0 ? 1 : 0;
  args.stderr_truncated = (answer.reply.flags & kStderrTruncated) != 0 ? 1 : 0;
  args.stdout_data = box.outputs;
  args.stdout_bytes = answer.reply.stdout_bytes;
  args.stderr_data = box.outputs == nullptr ? nullptr : box.outputs + answer.reply.stdout_bytes;
  args.stderr_bytes = answer.reply.stderr_bytes;
  args.wall_ns = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
}

void BoxPool::put(const dpt_sandbox_put_args& args) {
  Box& box = checked(args.box, "put args");
  Request request;
  request.op = static_cast<uint32_t>(Op::put);
  if (args.bytes > settings_.workspace_bytes) {  // spawn's host folder has no cap of its own
    sdk::fail(DPT_RESOURCE_EXHAUSTED, "put args: `bytes` (" + std::to_string(args.bytes) +
                                          ") is larger than the workspace (`workspace_size`)");
  }
  request.mode = args.mode;
  request.payload_bytes = args.bytes;
  call(box, request, std::string(args.path) + '\0', args.data, kFileOpMs);
}

void BoxPool::get(dpt_sandbox_get_args& args) {
  Box& box = checked(args.box, "get args");
  Request request;
  request.op = static_cast<uint32_t>(Op::get);
  const Answer answer = call(box, request, std::string(args.path) + '\0', nullptr, kFileOpMs);
  args.data = box.outputs;
  args.bytes = answer.reply.file_bytes;
}

uint64_t BoxPool::largest_reply() const {
  return std::max(settings_.workspace_bytes, settings_.file_bytes) + 2 * settings_.output_cap;
}

dpt_sandbox_stats BoxPool::stats() {
  dpt_sandbox_stats stats{};
  stats.struct_size = DPT_SANDBOX_STATS_SIZE_1_4;
  stats.enforced = enforced_isolation(settings_.runtime) | cgroup_enforced_ |
                   (mode_ == PoolMode::warm ? uint32_t{DPT_SANDBOX_WORKSPACE_CAP} : 0u);
  stats.boxes_started = started_;
  stats.boxes_replaced = replaced_;
  stats.execs = execs_;
  stats.timeouts = timeouts_;
  const std::lock_guard<std::mutex> lock(mutex_);
  stats.boxes_in_use = in_use_.size();
  stats.boxes_idle = idle_.size();
  return stats;
}

}  // namespace dopant::sandbox
