// dopant-sandbox-worker: the process that is a box. Started by the pool as pid 1 of fresh
// namespaces (isolation.cpp) with its socket on fd 3 and, as first argument, the host folder
// of a workspace kept on the host (empty for a tmpfs workspace); or, with runtime runsc, as
// the process of a gVisor sandbox (gvisor_runtime.hpp) with its socket as stdin and stdout,
// where gVisor has made the box's root and the worker only mounts the workspace. It builds
// the box's root, says ready, then serves requests
// (worker_protocol.hpp) until the socket closes, which ends the box: pid 1 exiting kills
// every process left in its namespace.
//
// exec runs one command as the box's unprivileged user, confined, with stdin from a memfd
// and stdout and stderr read through pipes up to the output cap (the rest is read and
// dropped, so a flood never blocks). When the command exits or its timeout passes, every
// other process of the box is killed too, so nothing it started outlives the call.
#include "box_settings.hpp"
#include "isolation.hpp"
#include "shared_buffer.hpp"
#include "workspace_paths.hpp"
#include "worker_protocol.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

namespace dopant::sandbox {
namespace {

constexpr int kSocket = 3;

struct Context {
  BoxSettings settings;
  bool host_workspace = false;
  // Readable when a child ended: a signalfd of SIGCHLD, which the worker blocks. (pidfd_open
  // would name the child alone, but gVisor does not have it.)
  int child_exits = -1;
  SharedBuffer buffer;  // kShared payloads of both directions
  // kInline payloads of both directions, kept from one request to the next: in gVisor
  // every first touch of a fresh page is a trapped fault, and these are the large buffers.
  std::string inline_request, inline_reply;
};

// What one request brought: its strings and its payload, which lies in the shared buffer
// (kShared) or in the context's inline_request.
struct Incoming {
  Request request;
  std::vector<std::string> strings;
  const char* payload = nullptr;
};

// What a reply carries after its header.
struct Outgoing {
  Reply reply;
  std::string message;
  std::string out, err;
  int file_fd = -1;  // get: the file, sent whole
  Outgoing() = default;
  Outgoing(const Outgoing&) = delete;
  Outgoing& operator=(const Outgoing&) = delete;
  ~Outgoing() {
    if (file_fd >= 0) close(file_fd);
  }
  // Replaces whatever was gathered by an error.
  void fail(dpt_code code, const std::string& text) {
    if (file_fd >= 0) close(file_fd);
    file_fd = -1;
    out.clear();
    err.clear();
    reply = Reply{};
    reply.code = code;
    message = text;
  }
};

// Kills and reaps every other process of the box. The kill is repeated before each wait, so
// a process forked while a sweep was under way (a fork bomb's) is caught by the next one.
void kill_everything_else() {
  for (;;) {
    kill(-1, SIGKILL);
    if (waitpid(-1, nullptr, 0) < 0 && errno == ECHILD) return;
  }
}

int workspace_root() {
  const int fd = open(kWorkspace, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) sdk::fail(DPT_INTERNAL, std::string("workspace is gone: ") + std::strerror(errno));
  return fd;
}

// Runs argv[0] as a path, or looks it up in PATH of `env` when it has no slash.
[[noreturn]] void exec_command(char* const* argv, char* const* env) {
  const std::string name = argv[0];
  if (name.find('/') != std::string::npos) {
    execve(argv[0], argv, env);
  } else {
    std::string path = "/usr/bin:/bin";
    for (char* const* entry = env; *entry != nullptr; ++entry) {
      if (std::strncmp(*entry, "PATH=", 5) == 0) path = *entry + 5;
    }
    int first_error = ENOENT;
    size_t start = 0;
    while (start <= path.size()) {
      const size_t end = std::min(path.find(':', start), path.size());
      const std::string candidate = path.substr(start, end - start) + "/" + name;
      execve(candidate.c_str(), argv, env);
      if (errno != ENOENT && first_error == ENOENT) first_error = errno;
      start = end + 1;
    }
    errno = first_error;
  }
  throw errno;
}

// A command's standard input: a memfd of its own, so the next request may reuse the buffer.
int stdin_of(const Incoming& in) {
  if (in.request.payload_bytes > 0) return memfd_of({{in.payload, in.request.payload_bytes}});
  return open("/dev/null", O_RDONLY | O_CLOEXEC);
}

// Reads what is there into `sink`, up to `cap`; drops and flags the rest. False at EOF.
bool read_capped(int fd, std::string& sink, uint64_t cap, bool& truncated) {
  char buffer[65536];
  const ssize_t got = read(fd, buffer, sizeof buffer);
  if (got < 0) return errno == EINTR || errno == EAGAIN;
  if (got == 0) return false;
  const uint64_t room = cap > sink.size() ? cap - sink.size() : 0;
  sink.append(buffer, std::min<uint64_t>(room, static_cast<uint64_t>(got)));
  if (static_cast<uint64_t>(got) > room) truncated = true;
  return true;
}

void run_exec(const Context& context, Incoming& in, Outgoing& out) {
  const Request& request = in.request;
  std::vector<char*> argv, env;
  for (uint32_t i = 0; i < request.argc; ++i) argv.push_back(in.strings[i].data());
  argv.push_back(nullptr);
  std::string defaults[] = {"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/workspace", "TMPDIR=/workspace"};
  if (request.has_env != 0) {
    for (uint32_t i = 0; i < request.envc; ++i) env.push_back(in.strings[request.argc + i].data());
  } else {
    for (std::string& entry : defaults) env.push_back(entry.data());
  }
  env.push_back(nullptr);
  const std::string& cwd = in.strings[request.argc + request.envc];
  const int root = workspace_root();
  int folder = -1;
  try {
    folder = open_in_workspace(root, cwd.empty() ? "." : cwd.c_str(), O_RDONLY | O_DIRECTORY, 0, true, "cwd");
  } catch (...) {
    close(root);
    throw;
  }
  close(root);
  const int input = stdin_of(in);
  int out_pipe[2], err_pipe[2], status_pipe[2];
  if (input < 0 || pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0 ||
      pipe2(status_pipe, O_CLOEXEC) != 0) {
    sdk::fail(DPT_RESOURCE_EXHAUSTED, std::string("pipes for a command: ") + std::strerror(errno));
  }
  const auto start = std::chrono::steady_clock::now();
  const pid_t child = fork();
  if (child == 0) {
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);  // the worker's blocked SIGCHLD is not the command's
    int error = 0;
    if (dup2(input, 0) < 0 || dup2(out_pipe[1], 1) < 0 || dup2(err_pipe[1], 2) < 0 || fchdir(folder) != 0) {
      error = errno;
    }
    if (error == 0) error = confine_command(context.settings);
    if (error == 0) {
      try {
        exec_command(argv.data(), env.data());
      } catch (int exec_error) {
        error = exec_error;
      }
    }
    (void)!write(status_pipe[1], &error, sizeof error);
    _exit(127);
  }
  for (int fd : {input, folder, out_pipe[1], err_pipe[1], status_pipe[1]}) close(fd);
  if (child < 0) {
    for (int fd : {out_pipe[0], err_pipe[0], status_pipe[0]}) close(fd);
    sdk::fail(DPT_RESOURCE_EXHAUSTED, std::string("fork: ") + std::strerror(errno));
  }
  int exec_error = 0;
  const bool failed = read(status_pipe[0], &exec_error, sizeof exec_error) == sizeof exec_error;
  close(status_pipe[0]);
  pollfd fds[3] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}, {context.child_exits, POLLIN, 0}};
  bool truncated[2] = {false, false};
  std::string* sinks[2] = {&out.out, &out.err};
  const uint64_t timeout_ms = request.timeout_ms != 0 ? request.timeout_ms : context.settings.timeout_ms;
  const auto deadline = start + std::chrono::milliseconds(timeout_ms);
  bool timed_out = false, child_done = false;
  int status = 0;
  while (fds[0].fd >= 0 || fds[1].fd >= 0 || !child_done) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    int wait_ms = child_done || timed_out ? -1 : static_cast<int>(std::max<int64_t>(0, std::min<int64_t>(left.count(), 1 << 30)));
    if (!child_done && !timed_out && left.count() <= 0) {
      timed_out = true;
      kill(-1, SIGKILL);
      wait_ms = -1;
    }
    if (poll(fds, 3, wait_ms) < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd >= 0 && fds[i].revents != 0 &&
          !read_capped(fds[i].fd, *sinks[i], context.settings.output_cap, truncated[i])) {
        close(fds[i].fd);
        fds[i].fd = -1;
      }
    }
    if (fds[2].fd >= 0 && fds[2].revents != 0) {
      signalfd_siginfo drained[16];
      (void)!read(fds[2].fd, drained, sizeof drained);
      if (waitpid(child, &status, WNOHANG) == child) {
        child_done = true;
        fds[2].fd = -1;
        kill(-1, SIGKILL);  // what the command left running would hold the pipes open
      }
    }
  }
  if (!child_done) waitpid(child, &status, 0);
  kill_everything_else();
  if (failed) sdk::fail(DPT_NOT_FOUND, "cannot run `" + in.strings[0] + "`: " + std::strerror(exec_error));
  out.reply.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  out.reply.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  out.reply.flags = (timed_out ? kTimedOut : 0) | (truncated[0] ? kStdoutTruncated : 0) |
                    (truncated[1] ? kStderrTruncated : 0);
}

void run_put(Incoming& in) {
  const int root = workspace_root();
  int fd = -1;
  try {
    // No O_TRUNC: a file that is replaced is overwritten in place and cut to length after,
    // so its pages are reused instead of freed and allocated again.
    fd = open_in_workspace(root, in.strings[0].c_str(), O_WRONLY | O_CREAT,
                           in.request.mode != 0 ? in.request.mode & 07777 : 0644, false, "path");
  } catch (...) {
    close(root);
    throw;
  }
  close(root);
  (void)!fchown(fd, kBoxUser, kBoxUser);  // fails, harmlessly, when only one uid is mapped
  fchmod(fd, in.request.mode != 0 ? in.request.mode & 0777 : 0644);
  for (uint64_t done = 0; done < in.request.payload_bytes;) {
    const ssize_t wrote = write(fd, in.payload + done, in.request.payload_bytes - done);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) {
      const int error = wrote < 0 ? errno : ENOSPC;
      close(fd);
      sdk::fail(error == ENOSPC || error == EFBIG ? DPT_RESOURCE_EXHAUSTED : DPT_INTERNAL,
                "put `" + in.strings[0] + "`: " + std::strerror(error));
    }
    done += static_cast<uint64_t>(wrote);
  }
  const int cut_error = ftruncate(fd, static_cast<off_t>(in.request.payload_bytes)) == 0 ? 0 : errno;
  close(fd);
  if (cut_error != 0) sdk::fail(DPT_INTERNAL, "put `" + in.strings[0] + "`: " + std::strerror(cut_error));
}

void run_get(Incoming& in, Outgoing& out) {
  const int root = workspace_root();
  try {
    out.file_fd = open_in_workspace(root, in.strings[0].c_str(), O_RDONLY, 0, false, "path");
  } catch (...) {
    close(root);
    throw;
  }
  close(root);
  struct stat info {};
  fstat(out.file_fd, &info);
  out.reply.file_bytes = static_cast<uint64_t>(info.st_size);
}

// Reads the request's strings, and its payload when it came inline; takes a new shared
// buffer the pool attached. False for a request that breaks the protocol.
bool read_request(Context& context, Incoming& in, int attached_fd) {
  if (attached_fd >= 0) {
    if (in.request.transport != kShared) {
      close(attached_fd);
      return false;
    }
    const char* why = nullptr;
    context.buffer = SharedBuffer::adopt(attached_fd, UINT64_MAX, &why);
    if (context.buffer.empty()) return false;
  }
  std::string strings(in.request.strings_bytes, '\0');
  if (!receive_bytes(kSocket, strings.data(), strings.size())) return false;
  if (!split_strings(strings, in.strings)) return false;
  if (in.request.transport == kInline) {
    context.inline_request.resize(in.request.payload_bytes);
    in.payload = context.inline_request.data();
    return receive_bytes(kSocket, context.inline_request.data(), context.inline_request.size());
  }
  in.payload = context.buffer.data();
  return in.request.payload_bytes <= context.buffer.capacity();
}

// Reads all `bytes` of a get's file into `to`; false when it has fewer.
bool read_file(int fd, char* to, uint64_t bytes) {
  for (uint64_t done = 0; done < bytes;) {
    const ssize_t got = pread(fd, to + done, bytes - done, static_cast<off_t>(done));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    done += static_cast<uint64_t>(got);
  }
  return true;
}

// Sends the reply; with kShared, stdout, stderr and the file go into the shared buffer,
// replaced first by a larger one (attached to the reply) when they do not fit.
bool send_reply(Context& context, uint32_t transport, Outgoing& out) {
  out.reply.message_bytes = out.message.size();
  out.reply.stdout_bytes = out.out.size();
  out.reply.stderr_bytes = out.err.size();
  const uint64_t streams = out.out.size() + out.err.size();
  std::string& inline_bytes = context.inline_reply;
  char* at = nullptr;
  int attached = -1;
  if (transport == kShared) {
    if (streams + out.reply.file_bytes > context.buffer.capacity()) {
      try {
        context.buffer = SharedBuffer::create(streams + out.reply.file_bytes);
      } catch (const std::exception& error) {
        out.fail(DPT_RESOURCE_EXHAUSTED, error.what());  // leaves nothing to place
        return send_reply(context, transport, out);
      }
      attached = context.buffer.fd();
    }
    at = context.buffer.data();
  } else {
    inline_bytes.resize(streams + out.reply.file_bytes);
    at = inline_bytes.data();
  }
  if (streams > 0) {
    std::memcpy(at, out.out.data(), out.out.size());
    std::memcpy(at + out.out.size(), out.err.data(), out.err.size());
  }
  if (out.file_fd >= 0 && !read_file(out.file_fd, at + streams, out.reply.file_bytes)) return false;
  return send_message(kSocket, &out.reply, sizeof out.reply, attached,
                      {{out.message.data(), out.message.size()}, {inline_bytes.data(), inline_bytes.size()}});
}

int serve(Context& context) {
  for (;;) {
    Incoming in;
    int attached_fd = -1;
    if (!receive_header(kSocket, &in.request, sizeof in.request, &attached_fd)) return 0;
    if (!read_request(context, in, attached_fd) || !well_formed(in.request, in.strings.size())) return 2;
    Outgoing out;
    try {
      switch (static_cast<Op>(in.request.op)) {
        case Op::exec: run_exec(context, in, out); break;
        case Op::put: run_put(in); break;
        case Op::get: run_get(in, out); break;
        case Op::reset:
          kill_everything_else();
          if (!context.host_workspace) mount_fresh_workspace(context.settings);
          context.buffer.shrink_after_reset();
          for (std::string* kept : {&context.inline_request, &context.inline_reply}) {
            if (kept->capacity() > SharedBuffer::kKeptAfterReset) std::string().swap(*kept);
          }
          break;
      }
    } catch (const sdk::Error& error) {
      out.fail(error.code(), error.what());
    } catch (const std::exception& error) {
      out.fail(DPT_INTERNAL, error.what());
    }
    if (!send_reply(context, in.request.transport, out)) return 3;
  }
}

}  // namespace
}  // namespace dopant::sandbox

int main(int argc, char** argv) {
  using namespace dopant::sandbox;
  // A session and process group of its own: the group it was cloned in is its creator's,
  // spanning namespaces, and a command's kill(0, ...) would reach every box started there.
  setsid();
  Context context;
  if (argc < 2 || !settings_from_args(argc - 2, argv + 2, context.settings)) return 2;
  const bool in_gvisor = context.settings.runtime == Runtime::runsc;
  // Under gVisor the socket is stdin and stdout, and is used as fd 3. Those two stay open:
  // gVisor shuts a donated host socket down when one of its descriptors is closed. stderr
  // is runsc's log. Commands get their own stdin, stdout and stderr.
  if (in_gvisor && dup2(0, kSocket) != kSocket) return 2;
  // Never inherited by a command, which could otherwise speak the protocol to the pool.
  if (fcntl(kSocket, F_SETFD, FD_CLOEXEC) != 0) return 2;
  sigset_t child_signal;
  sigemptyset(&child_signal);
  sigaddset(&child_signal, SIGCHLD);
  sigprocmask(SIG_BLOCK, &child_signal, nullptr);
  context.child_exits = signalfd(-1, &child_signal, SFD_CLOEXEC | SFD_NONBLOCK);
  const std::string host_folder = argv[1];
  context.host_workspace = !host_folder.empty();
  Outgoing ready;
  try {
    if (context.child_exits < 0) dopant::sdk::fail(DPT_INTERNAL, std::string("signalfd: ") + std::strerror(errno));
    if (in_gvisor) {
      mount_fresh_workspace(context.settings);
    } else {
      enter_box_root(context.settings, host_folder);
    }
  } catch (const std::exception& error) {
    ready.fail(DPT_PERMISSION_DENIED, std::string("cannot build the box: ") + error.what());
  }
  if (!send_reply(context, kInline, ready) || ready.reply.code != 0) return 1;
  return serve(context);
}
