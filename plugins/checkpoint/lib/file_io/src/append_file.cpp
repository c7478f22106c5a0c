// Writing a new file front to back (see append_file.hpp).
#include "dopant/checkpoint_io/append_file.hpp"

#include <dopant/sdk/errors.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace dopant::checkpoint_io {
namespace {

[[noreturn]] void failure(const std::string& path, const char* what) {
  const int error = errno;
  sdk::fail(error == ENOSPC || error == EDQUOT ? DPT_RESOURCE_EXHAUSTED
            : error == EEXIST                   ? DPT_ALREADY_EXISTS
                                                : DPT_INTERNAL,
            path + ": " + what + " failed: " + std::strerror(error));
}

}  // namespace

AppendFile::AppendFile(const std::string& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd_ < 0) failure(path, "create");
}

AppendFile::~AppendFile() {
  if (fd_ >= 0) ::close(fd_);
}

void AppendFile::append(const void* data, uint64_t bytes) {
  if (fd_ < 0) sdk::fail(DPT_FAILED_PRECONDITION, path_ + ": written after it was closed");
  const char* at = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t put = ::write(fd_, at, std::min<uint64_t>(bytes, 1u << 30));
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) failure(path_, "write");
    at += put;
    bytes -= static_cast<uint64_t>(put);
    size_ += static_cast<uint64_t>(put);
  }
}

void AppendFile::close() {
  if (fd_ < 0) return;
  const int fd = fd_;
  fd_ = -1;
  if (::fsync(fd) != 0) {
    ::close(fd);
    failure(path_, "fsync");
  }
  if (::close(fd) != 0) failure(path_, "close");
}

}  // namespace dopant::checkpoint_io
