// The security suite of the sandbox plugins, run against `spawn`, `pbox` and `pbox` inside
// gVisor (runtime = "runsc", built as a test program of its own): each case makes
// a box attempt one escape (or one abuse of a limit) and asserts that it was contained.
// Most attempts are made by sandbox_probe, put into the box and run there; it exits 0 when
// an attempt succeeded, so every containment below fails the test when it breaks. Each case
// first checks the probe can do the harmless version (write in the workspace, list its own
// processes), so a probe that cannot run at all does not pass as "contained".
#include "test_pool.hpp"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace fs = std::filesystem;

namespace {

constexpr uint64_t kOutputCap = 64 * 1024;
constexpr int kProcesses = 32;
constexpr int kMemoryMiB = 256;

std::string file_text(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(file), {});
}

struct Result {
  int exit_code = -1;
  int signal = 0;
  bool timed_out = false;
  bool stdout_truncated = false;
  bool killed_for_memory = false;
  std::string out, err;
  double seconds = 0;
};

// A column of the suite: a plugin and the parameters that make it a variant.
struct Variant {
  const char* name;
  const char* plugin;
  const char* params;
  bool needs_runsc;
  // Bytes of the stdout flood: many times the cap. Smaller in gVisor, where each system call
  // of a command is trapped (about a millisecond apiece on this project's loaded machines),
  // so 50 MB written 8 KiB at a time would take seconds of CPU, not of blocking.
  const char* flood_bytes;
};
void PrintTo(const Variant& variant, std::ostream* out) { *out << variant.name; }

#ifdef DOPANT_SANDBOX_RUNSC_SUITE
// One warm pool serves every case (a gVisor sandbox takes about a second to start); a case's
// box is released, and so wiped, before the next case acquires it. Two boxes: one case uses
// a second.
constexpr Variant kVariants[] = {{"pbox_runsc", "pbox", "runtime = \"runsc\"\nwarm = 2\n", true, "4000000"}};
#else
constexpr Variant kVariants[] = {{"spawn", "spawn", "", false, "50000000"}, {"pbox", "pbox", "", false, "50000000"}};
#endif

bool runsc_installed() {
  const char* path = std::getenv("PATH");
  std::stringstream folders(path != nullptr ? path : "/usr/bin:/bin");
  for (std::string folder; std::getline(folders, folder, ':');) {
    if (access((folder + "/runsc").c_str(), X_OK) == 0) return true;
  }
  return false;
}

class SandboxSecurity : public ::testing::TestWithParam<Variant> {
 protected:
  static void TearDownTestSuite() { shared_pool_.reset(); }

  void SetUp() override {
    if (GetParam().needs_runsc && !runsc_installed()) {
      GTEST_SKIP() << "gVisor's runsc is not on PATH (Debian: the `runsc` package): pbox in runsc is not tested";
    }
    const std::string params = "memory = \"" + std::to_string(kMemoryMiB) + "MiB\"\nprocesses = " +
                               std::to_string(kProcesses) + "\noutput_cap = \"64KiB\"\nworkspace_size = \"16MiB\"\n"
                               "timeout_ms = 5000\nfile_size = \"8MiB\"\n" + GetParam().params;
    std::unique_ptr<TestPool>& pool = GetParam().needs_runsc ? shared_pool_ : own_pool_;
    if (pool == nullptr) pool = std::make_unique<TestPool>(GetParam().plugin, params);
    pool_ = pool.get();
    ASSERT_EQ("", pool_->error());
    table_ = &pool_->table();
    handle_ = pool_->handle();
    dpt_sandbox_acquire_args acquired{DPT_SANDBOX_ACQUIRE_ARGS_SIZE_1_4, nullptr, nullptr};
    ASSERT_EQ("", take(table_->acquire(handle_, &acquired)));
    box_ = acquired.box;
    const std::string probe = file_text(DOPANT_SANDBOX_PROBE);
    ASSERT_FALSE(probe.empty());
    ASSERT_EQ("", put("probe", probe, 0755));
    char folder[] = "/tmp/dopant-security-XXXXXX";
    ASSERT_NE(mkdtemp(folder), nullptr);
    host_folder_ = folder;
    secret_path_ = host_folder_ + "/secret.txt";
    std::ofstream(secret_path_) << kSecret;
    fs::permissions(host_folder_, fs::perms::all);  // readable by anyone: only the box's walls keep it out
  }
  void TearDown() override {
    if (box_ != nullptr) {
      const dpt_sandbox_box_args args{DPT_SANDBOX_BOX_ARGS_SIZE_1_4, nullptr, box_};
      EXPECT_EQ("", take(table_->release(handle_, &args)));
    }
    own_pool_.reset();
    if (!host_folder_.empty()) fs::remove_all(host_folder_);
  }

  // The default timeout is generous: a loaded CI machine must not turn a slow command into
  // a killed one. Cases about timeouts pass their own.
  Result run(std::vector<const char*> argv, uint64_t timeout_ms = 60000) {
    argv.push_back(nullptr);
    dpt_sandbox_exec_args args{};
    args.struct_size = DPT_SANDBOX_EXEC_ARGS_SIZE_1_4;
    args.box = box_;
    args.argv = argv.data();
    args.timeout_ms = timeout_ms;
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ("", take(table_->exec(handle_, &args))) << argv[0];
    Result result;
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    result.exit_code = args.exit_code;
    result.signal = args.signal;
    result.timed_out = args.timed_out != 0;
    result.stdout_truncated = args.stdout_truncated != 0;
    result.killed_for_memory = args.killed_for_memory != 0;
    if (args.stdout_data != nullptr) result.out.assign(static_cast<const char*>(args.stdout_data), args.stdout_bytes);
    if (args.stderr_data != nullptr) result.err.assign(static_cast<const char*>(args.stderr_data), args.stderr_bytes);
    return result;
  }
  Result probe(const char* what, const std::string& arg = "") { return run({"./probe", what, arg.c_str()}); }

  std::string put(const std::string& path, const std::string& bytes, uint32_t mode = 0) {
    const dpt_sandbox_put_args args{DPT_SANDBOX_PUT_ARGS_SIZE_1_4, nullptr, box_, path.c_str(),
                                    bytes.data(), bytes.size(), mode};
    return take(table_->put(handle_, &args));
  }
  dpt_code put_code(const std::string& path) {
    const dpt_sandbox_put_args args{DPT_SANDBOX_PUT_ARGS_SIZE_1_4, nullptr, box_, path.c_str(), "x", 1, 0};
    return take_code(table_->put(handle_, &args));
  }
  dpt_code get_code(const std::string& path, std::string* bytes = nullptr) {
    dpt_sandbox_get_args args{DPT_SANDBOX_GET_ARGS_SIZE_1_4, nullptr, box_, path.c_str(), nullptr, 0};
    dpt_error* error = table_->get(handle_, &args);
    if (error == nullptr && bytes != nullptr) bytes->assign(static_cast<const char*>(args.data), args.bytes);
    return take_code(error);
  }

  static constexpr const char* kSecret = "the host's secret 7f3a";
  static std::unique_ptr<TestPool> shared_pool_;  // the runsc column's, made by its first case
  std::unique_ptr<TestPool> own_pool_;
  TestPool* pool_ = nullptr;
  const dpt_sandbox_v1* table_ = nullptr;
  dpt_instance* handle_ = nullptr;
  dpt_sandbox_box* box_ = nullptr;
  std::string host_folder_, secret_path_;
};

TEST_P(SandboxSecurity, AHostFileOutsideTheBindsCannotBeRead) {
  ASSERT_EQ(put("mine.txt", "own file"), "");
  EXPECT_EQ(probe("read", "mine.txt").exit_code, 0) << "control: the probe reads its workspace";
  for (const std::string& path : {secret_path_, "/proc/1/root" + secret_path_, "/proc/self/root" + secret_path_}) {
    const Result attempt = probe("read", path);
    EXPECT_EQ(attempt.exit_code, 1) << path << ": " << attempt.out;
    EXPECT_EQ(attempt.out.find(kSecret), std::string::npos) << path;
  }
}

TEST_P(SandboxSecurity, NothingIsWrittenOutsideTheWorkspace) {
  EXPECT_EQ(probe("write", "/workspace/inside.txt").exit_code, 0) << "control: the workspace is writable";
  for (const char* path : {"/usr/dopant-escape", "/dopant-escape", "/etc/dopant-escape", "/dev/dopant-escape"}) {
    const Result attempt = probe("write", path);
    EXPECT_EQ(attempt.exit_code, 1) << path << ": " << attempt.out;
  }
  const std::string through_tmp = host_folder_ + "/escape.txt";
  EXPECT_EQ(probe("write", through_tmp).exit_code, 1);
  EXPECT_FALSE(fs::exists(through_tmp));
  EXPECT_FALSE(fs::exists("/usr/dopant-escape"));
}

TEST_P(SandboxSecurity, AListenerOnTheHostsLoopbackIsUnreachable) {
  const int listener = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  ASSERT_GE(listener, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(listen(listener, 4), 0);
  ASSERT_EQ(getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length), 0);
  const Result attempt = probe("connect", std::to_string(ntohs(address.sin_port)));
  EXPECT_EQ(attempt.exit_code, 1) << attempt.out;
  EXPECT_LT(accept(listener, nullptr, nullptr), 0) << "the box reached the host's listener";
  close(listener);
}

TEST_P(SandboxSecurity, HostProcessesCanBeNeitherSeenNorSignalled) {
  const Result listed = probe("list");
  ASSERT_EQ(listed.exit_code, 0) << listed.out;
  const int visible = std::stoi(listed.out);
  EXPECT_GE(visible, 1) << "the probe must at least see itself";
  EXPECT_LE(visible, 3) << "the box sees more than its worker and the probe";
  const Result signalled = probe("kill", std::to_string(getpid()));
  EXPECT_EQ(signalled.exit_code, 1) << signalled.out;
}

// A command signalling its whole process group reaches only its own box: a command running
// at the same time in another box of the pool finishes normally.
TEST_P(SandboxSecurity, AProcessGroupSignalStaysInItsBox) {
  dpt_sandbox_acquire_args other{DPT_SANDBOX_ACQUIRE_ARGS_SIZE_1_4, nullptr, nullptr};
  ASSERT_EQ("", take(table_->acquire(handle_, &other)));
  const char* sleeper[] = {"/bin/sleep", "2", nullptr};
  dpt_sandbox_exec_args sleeping = DPT_SANDBOX_EXEC_ARGS_INIT;
  sleeping.box = other.box;
  sleeping.argv = sleeper;
  std::thread neighbour([&] { EXPECT_EQ("", take(table_->exec(handle_, &sleeping))); });
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  probe("killgroup");
  neighbour.join();
  EXPECT_EQ(sleeping.signal, 0) << "a signal to a process group crossed into another box";
  EXPECT_EQ(sleeping.exit_code, 0);
  const dpt_sandbox_box_args release{DPT_SANDBOX_BOX_ARGS_SIZE_1_4, nullptr, other.box};
  EXPECT_EQ("", take(table_->release(handle_, &release)));
}

// The worker's socket to the pool (and anything else it holds) stays with the worker: a
// command holding it could read the pool's requests and forge the worker's replies.
TEST_P(SandboxSecurity, ACommandInheritsNoDescriptorOfTheWorker) {
  const Result attempt = probe("fds");
  EXPECT_EQ(attempt.exit_code, 1) << attempt.out << attempt.err;
}

TEST_P(SandboxSecurity, PtraceMountAndUnshareAreRefused) {
  for (const char* what : {"ptrace", "mount", "unshare"}) {
    const Result attempt = probe(what);
    EXPECT_EQ(attempt.exit_code, 1) << what << ": " << attempt.out << attempt.err;
  }
}

TEST_P(SandboxSecurity, AForkBombIsHeldByTheProcessLimit) {
  const Result bomb = run({"/bin/sh", "-c", "f() { f | f & }; f; wait"}, 1500);
  EXPECT_LT(bomb.seconds, 10.0);
  const Result counted = probe("forks", "1000");
  const int made = std::stoi(counted.out.empty() ? "-1" : counted.out);
  EXPECT_GE(made, 1) << "exit " << counted.exit_code << ", signal " << counted.signal << ": " << counted.out << counted.err;
  EXPECT_LT(made, kProcesses) << "forks beyond the process limit";
  EXPECT_EQ(run({"/bin/echo", "alive"}).out, "alive\n") << "the box is not usable after a fork bomb";
}

TEST_P(SandboxSecurity, AMemoryHogIsStoppedAtTheLimit) {
  const Result hog = probe("memory", "4096");
  const long touched = hog.out.empty() ? 0 : std::stol(hog.out);
  EXPECT_TRUE(hog.exit_code == 1 || hog.signal == SIGKILL) << hog.out << hog.err;
  EXPECT_LT(touched, kMemoryMiB) << "touched more memory than the box may have";
  EXPECT_EQ(probe("memory", "16").exit_code, 0) << "control: a small allocation works";
}

// Three processes of 200 MiB each pass no process's address-space limit, only the box's
// memory limit of 256 MiB, which the kernel enforces by killing one: the exec says so.
TEST_P(SandboxSecurity, TheBoxsMemoryLimitKillsAndIsReported) {
  dpt_sandbox_stats stats{};
  stats.struct_size = DPT_SANDBOX_STATS_SIZE_1_4;
  ASSERT_EQ("", take(table_->stats(handle_, &stats)));
  if ((stats.enforced & DPT_SANDBOX_GVISOR) != 0) {
    GTEST_SKIP() << "a box in gVisor has no memory limit of its own: gVisor's memory is the sandbox's, and "
                    "a control group on it would kill the box whole; each process is held by RLIMIT_AS "
                    "(AMemoryHogIsStoppedAtTheLimit)";
  }
  if ((stats.enforced & DPT_SANDBOX_CGROUP_MEMORY) == 0) GTEST_SKIP() << "no memory cgroup on this machine";
  const Result alone = run({"/bin/sh", "-c", "./probe memory 200 >/dev/null"});
  EXPECT_EQ(alone.exit_code, 0) << "control: one 200 MiB process fits (signal " << alone.signal << ", timed out "
                                 << alone.timed_out << ")";
  EXPECT_FALSE(alone.killed_for_memory);
  const Result three = run({"/bin/sh", "-c", "./probe memory 200 & ./probe memory 200 & ./probe memory 200 & wait"});
  EXPECT_TRUE(three.killed_for_memory);
}

TEST_P(SandboxSecurity, AnInfiniteLoopIsKilledWithEverythingItStarted) {
  const Result loop = run({"/bin/sh", "-c", "sleep 1000 & sleep 1000 & while :; do :; done"}, 300);
  EXPECT_TRUE(loop.timed_out);
  EXPECT_EQ(loop.signal, SIGKILL);
  EXPECT_LT(loop.seconds, 3.0);
  const Result listed = probe("list");
  EXPECT_LE(std::stoi(listed.out), 2) << "the loop's background sleeps outlived it";
}

TEST_P(SandboxSecurity, PathsOutOfTheWorkspaceAreRefused) {
  const std::string link_out = "ln -s " + secret_path_ + " secret && ln -s / root && mkdir d";
  ASSERT_EQ(run({"/bin/sh", "-c", link_out.c_str()}).exit_code, 0);
  const std::string through_root = "root" + secret_path_;
  for (const std::string& path : {std::string("secret"), through_root, std::string("../secret.txt"),
                                  secret_path_, std::string("d/../../x")}) {
    std::string bytes;
    EXPECT_EQ(get_code(path, &bytes), DPT_PERMISSION_DENIED) << "get " << path;
    EXPECT_EQ(bytes.find(kSecret), std::string::npos);
    EXPECT_EQ(put_code(path), DPT_PERMISSION_DENIED) << "put " << path;
  }
  EXPECT_EQ(file_text(secret_path_), kSecret) << "a put went through a link to the host";
}

TEST_P(SandboxSecurity, AStdoutFloodIsCappedAndFlagged) {
  const std::string flood_command = std::string("head -c ") + GetParam().flood_bytes + " /dev/zero; echo done >&2";
  const Result flood = run({"/bin/sh", "-c", flood_command.c_str()});
  EXPECT_EQ(flood.exit_code, 0);
  EXPECT_TRUE(flood.stdout_truncated);
  EXPECT_EQ(flood.out.size(), kOutputCap);
  EXPECT_EQ(flood.err, "done\n");
  EXPECT_LT(flood.seconds, 5.0);
  const Result endless = run({"/usr/bin/yes"}, 500);
  EXPECT_TRUE(endless.timed_out);
  EXPECT_TRUE(endless.stdout_truncated);
  EXPECT_EQ(endless.out.size(), kOutputCap);
}

std::unique_ptr<TestPool> SandboxSecurity::shared_pool_;

INSTANTIATE_TEST_SUITE_P(Plugins, SandboxSecurity, ::testing::ValuesIn(kVariants),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
