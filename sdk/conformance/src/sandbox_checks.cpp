// Checks of "dopant.sandbox/1" plugins, with the plugin's default parameters: a command
// runs with its exit status, signal, stdin and stdout; files put into a box come back from
// get and are seen by commands; escaping paths are refused; reset empties a box; boxes used
// from several threads at once stay apart; stats count what was acquired.
#include <dopant/sandbox.h>

#include "outcome.hpp"
#include "registry.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <string>
#include <thread>
#include <vector>

namespace dopant::conformance {

namespace {

// One acquired box of one instance, released when it goes.
class Box {
 public:
  Box(const dpt_sandbox_v1& table, dpt_instance* pool) : table_(table), pool_(pool) {
    dpt_sandbox_acquire_args args{DPT_SANDBOX_ACQUIRE_ARGS_SIZE_1_4, nullptr, nullptr};
    error_ = ok_or_message(table_.acquire(pool_, &args));
    box_ = args.box;
  }
  ~Box() {
    if (box_ == nullptr) return;
    const dpt_sandbox_box_args args{DPT_SANDBOX_BOX_ARGS_SIZE_1_4, nullptr, box_};
    EXPECT_EQ("", ok_or_message(table_.release(pool_, &args)));
  }
  Box(const Box&) = delete;
  Box& operator=(const Box&) = delete;

  // "" when acquired, else the error's message.
  const std::string& error() const { return error_; }

  dpt_sandbox_exec_args run(std::vector<const char*> argv, const std::string& input = "") {
    argv.push_back(nullptr);
    dpt_sandbox_exec_args args{};
    args.struct_size = DPT_SANDBOX_EXEC_ARGS_SIZE_1_4;
    args.box = box_;
    args.argv = argv.data();
    args.stdin_data = input.data();
    args.stdin_bytes = input.size();
    args.timeout_ms = 30000;
    const std::string error = ok_or_message(table_.exec(pool_, &args));
    EXPECT_EQ(error, "") << "exec " << argv[0];
    return args;
  }
  std::string put(const std::string& path, const std::string& bytes) {
    const dpt_sandbox_put_args args{DPT_SANDBOX_PUT_ARGS_SIZE_1_4, nullptr, box_, path.c_str(),
                                    bytes.data(), bytes.size(), 0};
    return ok_or_message(table_.put(pool_, &args));
  }
  // The file's bytes, or the error's code when it failed.
  std::string get(const std::string& path, dpt_code* code = nullptr) {
    dpt_sandbox_get_args args{DPT_SANDBOX_GET_ARGS_SIZE_1_4, nullptr, box_, path.c_str(),
                              nullptr, 0};
    dpt_error* error = table_.get(pool_, &args);
    if (code != nullptr) *code = error == nullptr ? DPT_OK : dpt_error_get_code(error);
    if (error != nullptr) {
      EXPECT_EQ(args.data, nullptr) << "a failed get left an output pointer";
      dpt_error_destroy(error);
      return "";
    }
    return std::string(static_cast<const char*>(args.data), args.bytes);
  }
  dpt_code put_code(const std::string& path) {
    const dpt_sandbox_put_args args{DPT_SANDBOX_PUT_ARGS_SIZE_1_4, nullptr, box_, path.c_str(),
                                    "x", 1, 0};
    dpt_error* error = table_.put(pool_, &args);
    const dpt_code code = error == nullptr ? DPT_OK : dpt_error_get_code(error);
    dpt_error_destroy(error);
    return code;
  }
  std::string reset() {
    const dpt_sandbox_box_args args{DPT_SANDBOX_BOX_ARGS_SIZE_1_4, nullptr, box_};
    return ok_or_message(table_.reset(pool_, &args));
  }

 private:
  const dpt_sandbox_v1& table_;
  dpt_instance* pool_;
  dpt_sandbox_box* box_ = nullptr;
  std::string error_;
};

std::string stdout_of(const dpt_sandbox_exec_args& result) {
  return result.stdout_data == nullptr
             ? ""
             : std::string(static_cast<const char*>(result.stdout_data), result.stdout_bytes);
}

void check_exec(const Target& target) {
  PluginInstance sandbox(target);
  ASSERT_TRUE(sandbox.ok());
  Box box(sandbox.table<dpt_sandbox_v1>(), sandbox.handle());
  ASSERT_EQ(box.error(), "");
  const dpt_sandbox_exec_args echo = box.run({"/bin/echo", "hi"});
  EXPECT_EQ(echo.exit_code, 0);
  EXPECT_EQ(echo.signal, 0);
  EXPECT_EQ(echo.timed_out, 0u);
  EXPECT_EQ(stdout_of(echo), "hi\n");
  const dpt_sandbox_exec_args status = box.run({"/bin/sh", "-c", "echo oops >&2; exit 3"});
  EXPECT_EQ(status.exit_code, 3);
  EXPECT_EQ(std::string(static_cast<const char*>(status.stderr_data), status.stderr_bytes), "oops\n");
  const dpt_sandbox_exec_args killed = box.run({"/bin/sh", "-c", "kill -9 $$"});
  EXPECT_EQ(killed.exit_code, -1);
  EXPECT_EQ(killed.signal, SIGKILL);
  std::string input(100000, '\0');
  for (size_t i = 0; i < input.size(); ++i) input[i] = static_cast<char>(i * 7);
  EXPECT_EQ(stdout_of(box.run({"/bin/cat"}, input)), input);
}

void check_files(const Target& target) {
  PluginInstance sandbox(target);
  ASSERT_TRUE(sandbox.ok());
  Box box(sandbox.table<dpt_sandbox_v1>(), sandbox.handle());
  ASSERT_EQ(box.error(), "");
  std::string bytes(70000, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 13 + 1);
  ASSERT_EQ(box.put("data.bin", bytes), "");
  EXPECT_EQ(box.get("data.bin"), bytes);
  EXPECT_EQ(stdout_of(box.run({"/bin/cat", "data.bin"})), bytes);
  EXPECT_EQ(box.run({"/bin/sh", "-c", "mkdir sub && echo made > sub/out.txt"}).exit_code, 0);
  EXPECT_EQ(box.get("sub/out.txt"), "made\n");
  dpt_code code = DPT_OK;
  box.get("absent.txt", &code);
  EXPECT_EQ(code, DPT_NOT_FOUND);
  ASSERT_EQ(box.reset(), "");
  box.get("data.bin", &code);
  EXPECT_EQ(code, DPT_NOT_FOUND) << "reset left a file in the workspace";
}

void check_escaping_paths(const Target& target) {
  PluginInstance sandbox(target);
  ASSERT_TRUE(sandbox.ok());
  Box box(sandbox.table<dpt_sandbox_v1>(), sandbox.handle());
  ASSERT_EQ(box.error(), "");
  ASSERT_EQ(box.run({"/bin/sh", "-c", "mkdir d && ln -s / d/root && ln -s /etc/passwd pw"}).exit_code, 0);
  for (const char* path : {"../escape", "/tmp/escape", "d/../../escape", "d/root/tmp/escape", "pw"}) {
    EXPECT_EQ(box.put_code(path), DPT_PERMISSION_DENIED) << "put " << path;
    dpt_code code = DPT_OK;
    box.get(path, &code);
    EXPECT_EQ(code, DPT_PERMISSION_DENIED) << "get " << path;
  }
}

void check_concurrent_boxes(const Target& target) {
  PluginInstance sandbox(target);
  ASSERT_TRUE(sandbox.ok());
  const auto& table = sandbox.table<dpt_sandbox_v1>();
  constexpr int kThreads = 4;
  std::vector<std::string> seen(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      Box box(table, sandbox.handle());
      if (!box.error().empty()) {
        seen[i] = box.error();
        return;
      }
      const std::string mine = "box " + std::to_string(i);
      for (int round = 0; round < 3; ++round) {
        box.put("name.txt", mine);
        seen[i] = stdout_of(box.run({"/bin/cat", "name.txt"}));
        if (seen[i] != mine) return;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int i = 0; i < kThreads; ++i) EXPECT_EQ(seen[i], "box " + std::to_string(i));
}

void check_stats(const Target& target) {
  PluginInstance sandbox(target);
  ASSERT_TRUE(sandbox.ok());
  const auto& table = sandbox.table<dpt_sandbox_v1>();
  dpt_sandbox_stats before{};
  before.struct_size = DPT_SANDBOX_STATS_SIZE_1_4;
  ASSERT_EQ("", ok_or_message(table.stats(sandbox.handle(), &before)));
  {
    Box box(table, sandbox.handle());
    ASSERT_EQ(box.error(), "");
    box.run({"/bin/true"});
    dpt_sandbox_stats during{};
    during.struct_size = DPT_SANDBOX_STATS_SIZE_1_4;
    ASSERT_EQ("", ok_or_message(table.stats(sandbox.handle(), &during)));
    EXPECT_EQ(during.boxes_in_use, before.boxes_in_use + 1);
    EXPECT_EQ(during.execs, before.execs + 1);
  }
  dpt_sandbox_stats after{};
  after.struct_size = DPT_SANDBOX_STATS_SIZE_1_4;
  ASSERT_EQ("", ok_or_message(table.stats(sandbox.handle(), &after)));
  EXPECT_EQ(after.boxes_in_use, before.boxes_in_use);
}

}  // namespace

void register_sandbox_checks(const Target& target) {
  add_check(target, "sandbox_exec", [target] { check_exec(target); });
  add_check(target, "sandbox_files", [target] { check_files(target); });
  add_check(target, "sandbox_escaping_paths", [target] { check_escaping_paths(target); });
  add_check(target, "sandbox_concurrent_boxes", [target] { check_concurrent_boxes(target); });
  add_check(target, "sandbox_stats", [target] { check_stats(target); });
}

}  // namespace dopant::conformance
