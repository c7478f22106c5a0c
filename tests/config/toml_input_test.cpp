// Reading TOML input files: the size bound holds for regular files, devices and FIFOs alike,
// and each failure names the file with its true reason. The device nodes are made in a
// temporary folder (as root), never the machine's own /dev entries.
#include "config.hpp"
#include "error.hpp"
#include "fake_catalog.hpp"

#include <dopant/support/toml_input.hpp>
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <csignal>
#include <thread>

namespace dopant::testing {
namespace {

namespace fs = std::filesystem;

class TomlInputFile : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "dopant-toml-input-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    folder_ = pattern;
  }
  void TearDown() override { fs::remove_all(folder_); }

  std::string path(const char* name) const { return (folder_ / name).string(); }
  std::string write_file(const char* name, const std::string& text) const {
    std::ofstream(path(name), std::ios::binary) << text;
    return path(name);
  }

  fs::path folder_;
};

TEST_F(TomlInputFile, AFileAtTheBoundIsReadWhole) {
  const std::string text(kMaxTomlInputBytes, '#');
  const InputFile file = read_input_file(write_file("bound.toml", text));
  EXPECT_EQ(file.problem, InputFile::Problem::None) << file.message;
  EXPECT_EQ(file.text, text);
}

TEST_F(TomlInputFile, OneByteMoreIsRefusedAndNothingIsKept) {
  const std::string name = write_file("big.toml", std::string(kMaxTomlInputBytes + 1, '#'));
  const InputFile file = read_input_file(name);
  EXPECT_EQ(file.problem, InputFile::Problem::TooLarge);
  EXPECT_EQ(file.message, name + ": cannot read file: larger than 4 MiB, the most dopant reads");
  EXPECT_TRUE(file.text.empty());
}

TEST_F(TomlInputFile, AnEndlessDeviceStopsAtTheBound) {
  const std::string zero = path("zero");
  if (mknod(zero.c_str(), S_IFCHR | 0600, makedev(1, 5)) != 0) GTEST_SKIP() << "mknod needs root";
  EXPECT_EQ(read_input_file(zero).problem, InputFile::Problem::TooLarge);
  try {
    load_run_config(zero, FakeCatalog());
    ADD_FAILURE() << "an endless device was accepted as a config";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), DPT_INVALID_ARGUMENT);
    EXPECT_EQ(std::string(error.what()), zero + ": cannot read file: larger than 4 MiB, the most dopant reads");
  }
}

TEST_F(TomlInputFile, AFifoIsReadUpToTheBound) {
  const std::string fifo = path("fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::thread writer([&] {
    const int fd = open(fifo.c_str(), O_WRONLY);
    const std::string chunk(1 << 16, '#');
    // Writes until the reader stops reading (EPIPE, with SIGPIPE ignored below) or 8 MiB.
    for (std::size_t sent = 0; fd >= 0 && sent < (8u << 20); sent += chunk.size()) {
      if (::write(fd, chunk.data(), chunk.size()) < 0) break;
    }
    if (fd >= 0) close(fd);
  });
  const auto previous = signal(SIGPIPE, SIG_IGN);
  const InputFile file = read_input_file(fifo);
  writer.join();
  signal(SIGPIPE, previous);
  EXPECT_EQ(file.problem, InputFile::Problem::TooLarge);
}

TEST_F(TomlInputFile, EachFailureSaysItsTrueReason) {
  const InputFile missing = read_input_file(path("absent.toml"));
  EXPECT_EQ(missing.problem, InputFile::Problem::NotFound);
  EXPECT_EQ(missing.message, path("absent.toml") + ": cannot read file: No such file or directory");

  const InputFile folder = read_input_file(folder_.string());
  EXPECT_EQ(folder.problem, InputFile::Problem::Unreadable);
  EXPECT_EQ(folder.message, folder_.string() + ": cannot read file: Is a directory");
  try {
    load_run_config(folder_.string(), FakeCatalog());
    ADD_FAILURE() << "a folder was accepted as a config";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), DPT_INVALID_ARGUMENT);
  }
}

}  // namespace
}  // namespace dopant::testing
