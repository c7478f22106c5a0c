// A new file written front to back: the one way dopant's checkpoint generator writes its
// files, with every failure an sdk::Error naming the file (a full disk is
// DPT_RESOURCE_EXHAUSTED).
#pragma once

#include <cstdint>
#include <string>

namespace dopant::checkpoint_io {

class AppendFile {
 public:
  // Creates `path`, which must not exist (DPT_ALREADY_EXISTS).
  explicit AppendFile(const std::string& path);
  ~AppendFile();
  AppendFile(const AppendFile&) = delete;
  AppendFile& operator=(const AppendFile&) = delete;

  const std::string& path() const { return path_; }
  uint64_t size() const { return size_; }  // bytes written so far
  void append(const void* data, uint64_t bytes);
  // Flushes the file to its device, then closes it; further appends fail.
  void close();

 private:
  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
};

}  // namespace dopant::checkpoint_io
