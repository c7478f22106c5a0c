// A checkpoint file opened for positioned reads: the one way the checkpoint readers open a
// file and read byte ranges of it, from any number of threads at once (pread), with every
// failure an sdk::Error naming the file.
#pragma once

#include <cstdint>
#include <string>

namespace dopant::checkpoint_io {

class InputFile {
 public:
  // Opens a regular file: DPT_NOT_FOUND when it is missing, DPT_PERMISSION_DENIED when it
  // cannot be opened, DPT_INVALID_ARGUMENT when it is not a regular file.
  explicit InputFile(const std::string& path);
  ~InputFile();
  InputFile(InputFile&& other) noexcept;
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  InputFile& operator=(InputFile&&) = delete;

  const std::string& path() const { return path_; }
  uint64_t size() const { return size_; }  // bytes, at open
  int descriptor() const { return fd_; }  // for copying ranges in the kernel (copy_file_range)
  // Reads exactly `bytes` at `offset`; a file that ends first is DPT_DATA_LOSS ("truncated").
  void read(void* buffer, uint64_t bytes, uint64_t offset) const;

 private:
  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
};

}  // namespace dopant::checkpoint_io
