// `dopant sandbox serve`, the real CLI in a child, and `pbox` with `server` set as its client:
// exec, put and get give what a local pbox gives; two client processes at once; a client
// killed mid-exec leaves no box held and no process behind; a malformed frame is refused and
// only that client dropped; the socket is 0600; SIGTERM drains the server (a call in flight
// gets its result, then no worker remains, the socket is removed and it exits 0); a path
// that is not a stale socket is refused.
#include "pool_protocol.hpp"
#include "test_pool.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace fs = std::filesystem;
using namespace dopant::sandbox;

namespace {

constexpr auto kPatience = std::chrono::seconds(40);  // a deadline for slow machines, not a timing check

std::string read_text(const fs::path& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

int connect_to(const std::string& path) {
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
  if (connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0) return fd;
  close(fd);
  return -1;
}

// Waits until `done` holds or the patience runs out; returns whether it held.
template <typename Done>
bool eventually(Done done) {
  for (const auto end = std::chrono::steady_clock::now() + kPatience; std::chrono::steady_clock::now() < end;) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return done();
}

// Processes descending from `root` (not counting it), from /proc.
std::set<pid_t> descendant_pids(pid_t root) {
  std::vector<std::pair<pid_t, pid_t>> parent_of;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string stat = read_text(entry.path() / "stat");
    const size_t close_paren = stat.rfind(')');
    if (close_paren == std::string::npos) continue;
    std::istringstream rest(stat.substr(close_paren + 2));
    char state = 0;
    pid_t parent = 0;
    rest >> state >> parent;
    parent_of.emplace_back(std::stoi(name), parent);
  }
  std::set<pid_t> tree{root};
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& [pid, parent] : parent_of) {
      if (tree.count(parent) != 0 && tree.insert(pid).second) grew = true;
    }
  }
  tree.erase(root);
  return tree;
}

size_t descendants(pid_t root) { return descendant_pids(root).size(); }

// `dopant sandbox serve` in a child, on a socket in a fresh folder.
class Server {
 public:
  explicit Server(const std::string& extra = "") {
    char folder[] = "/tmp/dopant-sandbox-serve-XXXXXX";
    folder_ = mkdtemp(folder);
    socket_ = (folder_ / "pool.sock").string();
    pid_ = start(socket_, extra);
    ready_ = eventually([this] {
      const int fd = connect_to(socket_);
      if (fd >= 0) close(fd);
      return fd >= 0 || waitpid(pid_, nullptr, WNOHANG) == pid_;
    }) && kill(pid_, 0) == 0;
  }
  ~Server() {
    stop();
    fs::remove_all(folder_);
  }
  // Starts a server on `socket_path`, its stderr in the folder's serve.err.
  pid_t start(const std::string& socket_path, const std::string& extra) const {
    const std::string command = std::string("exec ") + DOPANT_CLI + " sandbox serve --socket " + socket_path +
                                " --set warm=2 " + extra + " 2>" + (folder_ / "serve.err").string();
    const pid_t pid = fork();
    if (pid == 0) {
      execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    return pid;
  }
  // SIGTERM; the server's exit status.
  int stop() {
    if (pid_ <= 0) return status_;
    kill(pid_, SIGTERM);
    waitpid(pid_, &status_, 0);
    pid_ = -1;
    return status_;
  }
  std::string params() const { return "server = \"" + socket_ + "\""; }
  const std::string& socket() const { return socket_; }
  const fs::path& folder() const { return folder_; }
  pid_t pid() const { return pid_; }
  bool ready() const { return ready_; }
  std::string errors() const { return read_text(folder_ / "serve.err"); }

 private:
  fs::path folder_;
  std::string socket_;
  pid_t pid_ = -1;
  int status_ = -1;
  bool ready_ = false;
};

dpt_sandbox_stats stats_of(const TestPool& pool) {
  dpt_sandbox_stats stats = DPT_SANDBOX_STATS_INIT;
  EXPECT_EQ("", take(pool.table().stats(pool.handle(), &stats)));
  return stats;
}

// What one episode on a box gives: put a file, run a command reading it and stdin, get it.
struct Episode {
  std::string out, err, file;
  int exit_code = 0;
  dpt_code refused = DPT_OK;  // a put to "../x"
  bool operator==(const Episode&) const = default;
};

Episode run_episode(const TestPool& pool, const std::string& data) {
  Episode episode;
  const dpt_sandbox_v1& table = pool.table();
  dpt_sandbox_acquire_args acquired = DPT_SANDBOX_ACQUIRE_ARGS_INIT;
  EXPECT_EQ("", take(table.acquire(pool.handle(), &acquired)));
  dpt_sandbox_put_args put = DPT_SANDBOX_PUT_ARGS_INIT;
  put.box = acquired.box;
  put.path = "in.bin";
  put.data = data.data();
  put.bytes = data.size();
  EXPECT_EQ("", take(table.put(pool.handle(), &put)));
  const char* argv[] = {"/bin/sh", "-c", "wc -c < in.bin; cat; echo err >&2; cp in.bin out.bin; exit 3", nullptr};
  dpt_sandbox_exec_args exec = DPT_SANDBOX_EXEC_ARGS_INIT;
  exec.box = acquired.box;
  exec.argv = argv;
  exec.stdin_data = "from stdin";
  exec.stdin_bytes = 10;
  EXPECT_EQ("", take(table.exec(pool.handle(), &exec)));
  episode.out.assign(static_cast<const char*>(exec.stdout_data), exec.stdout_bytes);
  episode.err.assign(static_cast<const char*>(exec.stderr_data), exec.stderr_bytes);
  episode.exit_code = exec.exit_code;
  dpt_sandbox_get_args get = DPT_SANDBOX_GET_ARGS_INIT;
  get.box = acquired.box;
  get.path = "out.bin";
  EXPECT_EQ("", take(table.get(pool.handle(), &get)));
  episode.file.assign(static_cast<const char*>(get.data), get.bytes);
  put.path = "../x";
  episode.refused = take_code(table.put(pool.handle(), &put));
  const dpt_sandbox_box_args release{DPT_SANDBOX_BOX_ARGS_SIZE_1_4, nullptr, acquired.box};
  EXPECT_EQ("", take(table.release(pool.handle(), &release)));
  return episode;
}

std::string pattern(size_t bytes, char seed) {
  std::string data(bytes, '\0');
  for (size_t i = 0; i < bytes; ++i) data[i] = static_cast<char>(seed + i * 131 % 251);
  return data;
}

TEST(SandboxServer, GivesWhatALocalPboxGives) {
  Server server;
  ASSERT_TRUE(server.ready()) << server.errors();
  TestPool local("pbox", "warm = 1");
  TestPool remote("pbox", server.params());
  ASSERT_EQ("", local.error());
  ASSERT_EQ("", remote.error());
  const std::string data = pattern(1 << 20, 'a');
  const Episode expected = run_episode(local, data);
  EXPECT_EQ(expected.file, data);  // the local pool itself against the bytes put
  EXPECT_EQ(expected.out, std::to_string(data.size()) + "\nfrom stdin");
  EXPECT_EQ(expected.refused, DPT_PERMISSION_DENIED);
  const Episode got = run_episode(remote, data);
  EXPECT_TRUE(got == expected) << "out `" << got.out << "` err `" << got.err << "` exit " << got.exit_code
                               << " file " << got.file.size() << " bytes, refused " << got.refused;
  const dpt_sandbox_stats stats = stats_of(remote);
  EXPECT_EQ(stats.boxes_in_use, 0u);
  EXPECT_GE(stats.execs, 1u);
  EXPECT_NE(stats.enforced & DPT_SANDBOX_PID_NS, 0u);
}

TEST(SandboxServer, ServesTwoClientProcessesAtOnce) {
  Server server;
  ASSERT_TRUE(server.ready()) << server.errors();
  std::vector<pid_t> clients;
  for (const char seed : {'x', 'y'}) {
    const pid_t pid = fork();
    if (pid == 0) {  // a client process of its own: its own runtime and connections
      const TestPool pool("pbox", server.params());
      const std::string data = pattern(256 << 10, seed);
      bool right = pool.error().empty();
      for (int round = 0; right && round < 5; ++round) {
        const Episode episode = run_episode(pool, data);
        right = episode.file == data && episode.exit_code == 3;
      }
      _exit(right ? 0 : 1);
    }
    clients.push_back(pid);
  }
  for (const pid_t pid : clients) {
    int status = -1;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "client " << pid << " status " << status;
  }
}

TEST(SandboxServer, AClientKilledMidExecLeaksNoBoxAndNoProcess) {
  Server server;
  ASSERT_TRUE(server.ready()) << server.errors();
  const TestPool observer("pbox", server.params());
  ASSERT_EQ("", observer.error());
  const size_t baseline = descendants(server.pid());
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t client = fork();
  if (client == 0) {
    const TestPool pool("pbox", server.params());
    dpt_sandbox_acquire_args first = DPT_SANDBOX_ACQUIRE_ARGS_INIT, second = DPT_SANDBOX_ACQUIRE_ARGS_INIT;
    if (!pool.error().empty() || pool.table().acquire(pool.handle(), &first) != nullptr ||
        pool.table().acquire(pool.handle(), &second) != nullptr) {
      _exit(1);
    }
    const char* argv[] = {"/bin/sh", "-c", "echo started; sleep 60 & sleep 60", nullptr};
    dpt_sandbox_exec_args exec = DPT_SANDBOX_EXEC_ARGS_INIT;
    exec.box = first.box;
    exec.argv = argv;
    exec.timeout_ms = 3000;
    if (write(ready[1], "r", 1) != 1) _exit(1);
    pool.table().exec(pool.handle(), &exec);  // killed while this runs
    _exit(2);
  }
  close(ready[1]);
  char byte = 0;
  ASSERT_EQ(read(ready[0], &byte, 1), 1);
  close(ready[0]);
  EXPECT_TRUE(eventually([&] { return stats_of(observer).boxes_in_use == 2; }));
  EXPECT_TRUE(eventually([&] { return stats_of(observer).execs == 0 && descendants(server.pid()) > baseline; }))
      << "the exec is not running yet";
  kill(client, SIGKILL);
  int status = 0;
  waitpid(client, &status, 0);
  EXPECT_TRUE(WIFSIGNALED(status)) << "the client ended before it was killed: " << status;
  EXPECT_TRUE(eventually([&] { return stats_of(observer).boxes_in_use == 0; }))
      << stats_of(observer).boxes_in_use << " boxes still held";
  EXPECT_TRUE(eventually([&] { return descendants(server.pid()) == baseline; }))
      << descendants(server.pid()) << " processes under the server, " << baseline << " before";
}

TEST(SandboxServer, RefusesAMalformedFrameAndDropsOnlyThatClient) {
  Server server;
  ASSERT_TRUE(server.ready()) << server.errors();
  const TestPool good("pbox", server.params());
  ASSERT_EQ("", good.error());
  dpt_sandbox_acquire_args held = DPT_SANDBOX_ACQUIRE_ARGS_INIT;
  ASSERT_EQ("", take(good.table().acquire(good.handle(), &held)));

  std::string garbage(sizeof(PoolRequest), 'Z');
  PoolRequest oversized;  // a well-formed hello first, then strings past the bound
  oversized.call.op = static_cast<uint32_t>(PoolOp::hello);
  for (const bool greet_first : {false, true}) {
    const int fd = connect_to(server.socket());
    ASSERT_GE(fd, 0);
    PoolReply reply;
    if (greet_first) {
      ASSERT_EQ(send(fd, &oversized, sizeof oversized, 0), static_cast<ssize_t>(sizeof oversized));
      ASSERT_EQ(recv(fd, &reply, sizeof reply, MSG_WAITALL), static_cast<ssize_t>(sizeof reply));
      ASSERT_EQ(reply.call.code, DPT_OK);
      oversized.call.op = static_cast<uint32_t>(PoolOp::get);
      oversized.call.strings_bytes = kPoolLargestStrings + 1;
    }
    const void* bad = greet_first ? static_cast<const void*>(&oversized) : garbage.data();
    ASSERT_EQ(send(fd, bad, sizeof oversized, 0), static_cast<ssize_t>(sizeof oversized));
    ASSERT_EQ(recv(fd, &reply, sizeof reply, MSG_WAITALL), static_cast<ssize_t>(sizeof reply));
    EXPECT_EQ(reply.call.code, DPT_INVALID_ARGUMENT);
    std::string message(reply.call.message_bytes, '\0');
    ASSERT_EQ(recv(fd, message.data(), message.size(), MSG_WAITALL), static_cast<ssize_t>(message.size()));
    EXPECT_NE(message.find(greet_first ? "bound" : "not a frame"), std::string::npos) << message;
    char more = 0;
    EXPECT_EQ(recv(fd, &more, 1, 0), 0) << "the connection was not closed";
    close(fd);
  }
  // A payload past the connection's shared buffer, and a buffer not sealed against
  // shrinking, are refused before the server touches either.
  for (const bool unsealed : {false, true}) {
    const int fd = connect_to(server.socket());
    ASSERT_GE(fd, 0);
    PoolRequest request;
    PoolReply reply;
    int buffer = -1;
    for (const PoolOp op : {PoolOp::hello, PoolOp::acquire}) {
      request.call.op = static_cast<uint32_t>(op);
      ASSERT_TRUE(send_message(fd, &request, sizeof request, -1, {}));
      ASSERT_TRUE(receive_header(fd, &reply, sizeof reply, &buffer));
      ASSERT_EQ(reply.call.code, DPT_OK);
    }
    ASSERT_GE(buffer, 0) << "acquire brought no shared buffer";
    struct stat buffer_stat {};
    ASSERT_EQ(fstat(buffer, &buffer_stat), 0);
    EXPECT_NE(fcntl(buffer, F_GET_SEALS) & F_SEAL_SHRINK, 0);
    close(buffer);
    request.box = reply.box;
    request.call.op = static_cast<uint32_t>(PoolOp::put);
    request.call.strings_bytes = 2;
    request.call.payload_bytes = unsealed ? 1 : static_cast<uint64_t>(buffer_stat.st_size) + 1;
    const int attached = unsealed ? memfd_create("unsealed", MFD_CLOEXEC) : -1;
    if (unsealed) {
      ASSERT_EQ(ftruncate(attached, 8 << 20), 0);
    }
    ASSERT_TRUE(send_message(fd, &request, sizeof request, attached, {{"a", 2}}));
    if (unsealed) close(attached);
    ASSERT_TRUE(receive_header(fd, &reply, sizeof reply, &buffer));
    EXPECT_EQ(reply.call.code, DPT_INVALID_ARGUMENT);
    std::string message(reply.call.message_bytes, '\0');
    ASSERT_TRUE(receive_bytes(fd, message.data(), message.size()));
    EXPECT_NE(message.find(unsealed ? "not a memfd sealed against shrinking" : "past the shared buffer"),
              std::string::npos) << message;
    char more = 0;  // closed, or reset for the strings it left unread
    EXPECT_LE(recv(fd, &more, 1, 0), 0) << "the connection was not closed";
    close(fd);
  }
  const char* argv[] = {"/bin/echo", "still served", nullptr};
  dpt_sandbox_exec_args exec = DPT_SANDBOX_EXEC_ARGS_INIT;
  exec.box = held.box;
  exec.argv = argv;
  ASSERT_EQ("", take(good.table().exec(good.handle(), &exec)));
  EXPECT_EQ(std::string(static_cast<const char*>(exec.stdout_data), exec.stdout_bytes), "still served\n");
}

TEST(SandboxServer, SocketIsPrivateAndRemovedAtSigterm) {
  Server server;
  ASSERT_TRUE(server.ready()) << server.errors();
  struct stat socket_stat {};
  ASSERT_EQ(lstat(server.socket().c_str(), &socket_stat), 0);
  EXPECT_TRUE(S_ISSOCK(socket_stat.st_mode));
  EXPECT_EQ(socket_stat.st_mode & 0777, 0600u);
  const int status = server.stop();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_FALSE(fs::exists(server.socket()));
}

TEST(SandboxServer, DrainsAtSigtermLettingACallInFlightFinish) {
  Server server;
  ASSERT_TRUE(server.ready()) << server.errors();
  const TestPool client("pbox", server.params());
  ASSERT_EQ("", client.error());
  dpt_sandbox_acquire_args acquired = DPT_SANDBOX_ACQUIRE_ARGS_INIT;
  ASSERT_EQ("", take(client.table().acquire(client.handle(), &acquired)));
  const std::set<pid_t> workers = descendant_pids(server.pid());
  ASSERT_FALSE(workers.empty());
  const char* argv[] = {"/bin/sh", "-c", "sleep 2; echo finished", nullptr};
  dpt_sandbox_exec_args exec = DPT_SANDBOX_EXEC_ARGS_INIT;
  exec.box = acquired.box;
  exec.argv = argv;
  exec.timeout_ms = 20000;
  std::string exec_error = "not run";
  std::thread in_flight([&] { exec_error = take(client.table().exec(client.handle(), &exec)); });
  const bool running = eventually([&] { return descendants(server.pid()) > workers.size(); });
  const int status = server.stop();  // SIGTERM while the command sleeps
  in_flight.join();
  ASSERT_TRUE(running) << "the exec never started";
  EXPECT_EQ(exec_error, "");
  EXPECT_EQ(std::string(static_cast<const char*>(exec.stdout_data), exec.stdout_bytes), "finished\n");
  EXPECT_EQ(exec.exit_code, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status << ": " << server.errors();
  EXPECT_FALSE(fs::exists(server.socket()));
  for (const pid_t worker : workers) EXPECT_NE(kill(worker, 0), 0) << "process " << worker << " outlived the server";
  const char* again[] = {"/bin/true", nullptr};  // the connection was closed after the call
  exec.argv = again;
  EXPECT_EQ(take_code(client.table().exec(client.handle(), &exec)), DPT_UNAVAILABLE);
}

TEST(SandboxServer, RefusesAPathThatIsNotAStaleSocket) {
  Server server;
  ASSERT_TRUE(server.ready()) << server.errors();
  const auto refused = [&](const std::string& path, const std::string& why) {
    const pid_t pid = server.start(path, "");
    int status = -1;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) != 0) << path << ": " << status;
    const std::string errors = server.errors();
    EXPECT_NE(errors.find(path), std::string::npos) << errors;
    EXPECT_NE(errors.find(why), std::string::npos) << errors;
  };
  const fs::path file = server.folder() / "a-file";
  std::ofstream(file) << "keep me";
  refused(file.string(), "is not a socket");
  EXPECT_EQ(read_text(file), "keep me");
  refused(server.socket(), "already listens");

  // A socket nobody listens on is stale, and replaced.
  const std::string stale = (server.folder() / "stale.sock").string();
  const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, stale.c_str(), sizeof address.sun_path - 1);
  ASSERT_EQ(bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);
  close(fd);
  const pid_t second = server.start(stale, "");
  EXPECT_TRUE(eventually([&] {
    const int probe = connect_to(stale);
    if (probe >= 0) close(probe);
    return probe >= 0;
  })) << server.errors();
  kill(second, SIGTERM);
  waitpid(second, nullptr, 0);
}

}  // namespace
