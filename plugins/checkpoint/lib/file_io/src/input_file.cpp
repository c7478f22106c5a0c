// Opening a checkpoint file and positioned reads of it (see input_file.hpp).
#include "dopant/checkpoint_io/input_file.hpp"

#include <dopant/sdk/errors.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace dopant::checkpoint_io {

InputFile::InputFile(const std::string& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) {
    sdk::fail(errno == ENOENT ? DPT_NOT_FOUND : DPT_PERMISSION_DENIED, path + ": cannot open: " + std::strerror(errno));
  }
  struct stat info {};
  if (::fstat(fd_, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd_);
    sdk::fail(DPT_INVALID_ARGUMENT, path + ": not a regular file");
  }
  size_ = static_cast<uint64_t>(info.st_size);
}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

InputFile::InputFile(InputFile&& other) noexcept : path_(std::move(other.path_)), fd_(other.fd_), size_(other.size_) {
  other.fd_ = -1;
}

void InputFile::read(void* buffer, uint64_t bytes, uint64_t offset) const {
  auto* at = static_cast<char*>(buffer);
  while (bytes > 0) {
    const ssize_t got = ::pread(fd_, at, bytes, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) sdk::fail(DPT_DATA_LOSS, path_ + ": read failed: " + std::strerror(errno));
    if (got == 0) {
      sdk::fail(DPT_DATA_LOSS, path_ + ": ends at byte " + std::to_string(offset) +
                                   ", before the data its index lists (truncated file?)");
    }
    at += got;
    offset += static_cast<uint64_t>(got);
    bytes -= static_cast<uint64_t>(got);
  }
}

}  // namespace dopant::checkpoint_io
