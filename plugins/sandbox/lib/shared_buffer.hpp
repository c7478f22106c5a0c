// The shared buffer of a warm box: one memfd mapped read-write by the pool and by the box's
// worker, kept for the box's life, through which put, get and exec payloads travel. Reusing
// it is what makes a transfer cost one copy into resident pages instead of a fresh memfd,
// its page faults and a mapping per call.
//
// Either side may replace it by a larger one: it sends the new memfd with its next message
// (SCM_RIGHTS), and from then on both use the new one. Every buffer is sealed against
// shrinking (F_SEAL_SHRINK), and the pool refuses a buffer from a worker that is not, so a
// hostile box cannot truncate pages under the pool's reads (which would raise SIGBUS there).
#pragma once

#include <cstdint>

namespace dopant::sandbox {

class SharedBuffer {
 public:
  SharedBuffer() = default;
  ~SharedBuffer();
  SharedBuffer(SharedBuffer&& other) noexcept;
  SharedBuffer& operator=(SharedBuffer&& other) noexcept;

  // A new sealed memfd of at least `bytes` (a power of two, at least kSmallest), mapped and
  // populated. Throws std::runtime_error.
  static SharedBuffer create(uint64_t bytes);
  // Takes `fd` (always, also on failure) and maps it whole. Returns an empty buffer, with
  // `why` set, when it is not a memfd sealed against shrinking or is larger than `largest`.
  static SharedBuffer adopt(int fd, uint64_t largest, const char** why);

  // After a reset, both sides drop a buffer grown past kKeptAfterReset, so one large
  // transfer does not hold its memory for the rest of the box's life.
  void shrink_after_reset() {
    if (capacity_ > kKeptAfterReset) clear();
  }

  char* data() const { return data_; }
  uint64_t capacity() const { return capacity_; }
  int fd() const { return fd_; }
  bool empty() const { return data_ == nullptr; }

  static constexpr uint64_t kSmallest = uint64_t{1} << 20;
  static constexpr uint64_t kKeptAfterReset = uint64_t{4} << 20;

 private:
  void clear();
  int fd_ = -1;
  char* data_ = nullptr;
  uint64_t capacity_ = 0;
};

}  // namespace dopant::sandbox
