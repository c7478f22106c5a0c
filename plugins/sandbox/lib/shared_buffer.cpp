// The shared buffer of a warm box (see shared_buffer.hpp).
#include "shared_buffer.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

namespace dopant::sandbox {

SharedBuffer::~SharedBuffer() { clear(); }

SharedBuffer::SharedBuffer(SharedBuffer&& other) noexcept { *this = std::move(other); }

SharedBuffer& SharedBuffer::operator=(SharedBuffer&& other) noexcept {
  if (this == &other) return *this;
  clear();
  fd_ = std::exchange(other.fd_, -1);
  data_ = std::exchange(other.data_, nullptr);
  capacity_ = std::exchange(other.capacity_, 0);
  return *this;
}

void SharedBuffer::clear() {
  if (data_ != nullptr) munmap(data_, capacity_);
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
  data_ = nullptr;
  capacity_ = 0;
}

SharedBuffer SharedBuffer::create(uint64_t bytes) {
  uint64_t capacity = kSmallest;
  while (capacity < bytes) capacity *= 2;
  SharedBuffer buffer;
  buffer.fd_ = memfd_create("dopant-box-buffer", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (buffer.fd_ < 0) throw std::runtime_error(std::string("memfd_create: ") + std::strerror(errno));
  void* map = ftruncate(buffer.fd_, static_cast<off_t>(capacity)) == 0 &&
                      fcntl(buffer.fd_, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_SEAL) == 0
                  ? mmap(nullptr, capacity, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, buffer.fd_, 0)
                  : MAP_FAILED;
  if (map == MAP_FAILED) {
    throw std::runtime_error("shared buffer of " + std::to_string(capacity) + " bytes: " + std::strerror(errno));
  }
  buffer.data_ = static_cast<char*>(map);
  buffer.capacity_ = capacity;
  return buffer;
}

SharedBuffer SharedBuffer::adopt(int fd, uint64_t largest, const char** why) {
  SharedBuffer buffer;
  buffer.fd_ = fd;
  struct stat info {};
  const int seals = fcntl(fd, F_GET_SEALS);
  if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode) || seals < 0 || (seals & F_SEAL_SHRINK) == 0) {
    *why = "a shared buffer that is not a memfd sealed against shrinking";
    return SharedBuffer{};
  }
  const auto capacity = static_cast<uint64_t>(info.st_size);
  if (capacity == 0 || capacity > largest) {
    *why = "a shared buffer of an unexpected size";
    return SharedBuffer{};
  }
  void* map = mmap(nullptr, capacity, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (map == MAP_FAILED) {
    *why = "a shared buffer that cannot be mapped";
    return SharedBuffer{};
  }
  buffer.data_ = static_cast<char*>(map);
  buffer.capacity_ = capacity;
  return buffer;
}

}  // namespace dopant::sandbox
