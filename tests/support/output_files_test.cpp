// Output files (dopant/support/output_files.hpp): regular files replaced whole, devices and
// FIFOs written through and left what they are, symlinks followed, and every refusal
// leaving every file as it was, with no temporary file behind. Device nodes are made with
// mknod in the test's own folder (as root): the machine's /dev is never touched.
#include <dopant/support/output_files.hpp>

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

namespace dopant {
namespace {

namespace fs = std::filesystem;

class OutputFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "dopant-outputs-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    folder_ = pattern;
  }
  void TearDown() override { fs::remove_all(folder_); }

  std::string path(const char* name) const { return (folder_ / name).string(); }
  std::string make(const char* name, const std::string& content) const {
    std::ofstream(path(name), std::ios::binary) << content;
    return path(name);
  }
  static std::string read(const std::string& file) {
    std::ifstream in(file, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  // Every entry of the folder, to show that nothing (no temporary file) was added.
  size_t entries() const { return static_cast<size_t>(std::distance(fs::directory_iterator(folder_), fs::directory_iterator())); }
  // The message write_outputs throws, or "" when it writes.
  static std::string refusal(const std::vector<OutputFile>& outputs, const std::vector<std::string>& inputs = {}) {
    try {
      write_outputs(outputs, inputs);
    } catch (const OutputError& error) {
      return error.what();
    }
    return "";
  }
  bool make_device(const char* name, unsigned minor) const {
    return mknod(path(name).c_str(), S_IFCHR | 0666, makedev(1, minor)) == 0;
  }

  fs::path folder_;
};

TEST_F(OutputFiles, ARegularFileIsReplacedWholeAndKeepsItsMode) {
  const std::string report = make("report.json", "old");
  ASSERT_EQ(chmod(report.c_str(), 0640), 0);
  const std::string fresh = path("fresh.json");
  EXPECT_EQ(refusal({{"--json", report, "new"}, {"--csv", fresh, "a,b\n"}}), "");
  EXPECT_EQ(read(report), "new");
  EXPECT_EQ(read(fresh), "a,b\n");
  struct stat info {};
  ASSERT_EQ(stat(report.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 07777, 0640u);
  EXPECT_EQ(entries(), 2u);
}

TEST_F(OutputFiles, ADeviceIsWrittenThroughAndStaysADevice) {
  if (!make_device("null", 3)) GTEST_SKIP() << "mknod needs root";
  EXPECT_EQ(refusal({{"--json", path("null"), "{}"}}), "");
  struct stat info {};
  ASSERT_EQ(lstat(path("null").c_str(), &info), 0);
  EXPECT_TRUE(S_ISCHR(info.st_mode)) << "the device node was replaced by a regular file";
  EXPECT_EQ(entries(), 1u);
}

TEST_F(OutputFiles, AFullDeviceIsAnErrorAndNoOtherOutputIsWritten) {
  if (!make_device("full", 7)) GTEST_SKIP() << "mknod needs root";
  const std::string report = make("report.json", "old");
  EXPECT_EQ(refusal({{"--json", report, "new"}, {"--csv", path("full"), "a,b\n"}}),
            "--csv " + path("full") + ": write failed: No space left on device");
  EXPECT_EQ(read(report), "old");
  EXPECT_EQ(entries(), 2u) << "a temporary file was left";
}

TEST_F(OutputFiles, AFifoNeedsAReaderAndIsWrittenThrough) {
  const std::string fifo = path("fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(refusal({{"--json", fifo, "{}"}}), "--json " + fifo + ": FIFO has no reader");
  std::string received;
  std::thread reader([&] {
    const int fd = open(fifo.c_str(), O_RDONLY);
    char buffer[64];
    for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0;) received.append(buffer, static_cast<size_t>(n));
    close(fd);
  });
  // The writer opens without blocking, so retry until the reader has opened its end.
  std::string message = "FIFO has no reader";
  for (int tries = 0; tries < 500 && message.find("no reader") != std::string::npos; ++tries) {
    message = refusal({{"--json", fifo, "{\"ok\": 1}"}});
    if (!message.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  reader.join();
  EXPECT_EQ(message, "");
  EXPECT_EQ(received, "{\"ok\": 1}");
  struct stat info {};
  ASSERT_EQ(lstat(fifo.c_str(), &info), 0);
  EXPECT_TRUE(S_ISFIFO(info.st_mode));
}

TEST_F(OutputFiles, ASymlinkIsFollowedAndStaysALink) {
  const std::string target = make("target.json", "old");
  const std::string link = path("link.json");
  ASSERT_EQ(symlink(target.c_str(), link.c_str()), 0);
  EXPECT_EQ(refusal({{"--json", link, "new"}}), "");
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(read(target), "new");
  ASSERT_EQ(symlink(path("nowhere/x").c_str(), path("dangling").c_str()), 0);
  EXPECT_EQ(refusal({{"--json", path("dangling"), "x"}}).rfind("--json " + path("dangling") + ": symlink to nothing", 0), 0u);
}

TEST_F(OutputFiles, RefusalsNameTheOptionAndChangeNothing) {
  const std::string config = make("run.toml", "[run]\n");
  const std::string kept = make("kept.json", "old");
  const std::string sub = path("sub");
  fs::create_directory(sub);
  const std::string link = path("config-link");
  ASSERT_EQ(symlink(config.c_str(), link.c_str()), 0);
  const std::vector<std::pair<std::vector<OutputFile>, std::string>> cases = {
      {{{"--json", kept, "new"}, {"--svg", sub, "<svg/>"}}, "--svg " + sub + ": is a folder"},
      {{{"--json", kept, "new"}, {"--svg", path("missing/x.svg"), "<svg/>"}},
       "--svg " + path("missing/x.svg") + ": folder " + path("missing") + " does not exist"},
      {{{"--json", kept, "new"}, {"--csv", kept, "a"}}, "--csv " + kept + ": is the same file as --json " + kept},
      {{{"--json", config, "{}"}}, "--json " + config + ": is the input " + config + "; it would be overwritten"},
      {{{"--json", link, "{}"}}, "--json " + link + ": is the input " + config + "; it would be overwritten"},
      {{{"--json", "", "{}"}}, "--json : empty path"},
  };
  for (const auto& [outputs, expected] : cases) {
    EXPECT_EQ(refusal(outputs, {config}), expected);
    EXPECT_THROW(check_outputs(outputs, {config}), OutputError) << expected;
  }
  EXPECT_EQ(read(kept), "old");
  EXPECT_EQ(read(config), "[run]\n");
  EXPECT_EQ(entries(), 4u) << "a temporary file was left";
}

}  // namespace
}  // namespace dopant
