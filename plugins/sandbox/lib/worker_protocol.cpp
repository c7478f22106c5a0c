// Sending and receiving the worker protocol's messages and payloads.
#include "worker_protocol.hpp"

#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <utility>

namespace dopant::sandbox {

namespace {
// Waits until `socket` is ready for `events`. gVisor's donated host sockets (a runsc box's
// worker) may answer a blocking call with EAGAIN, so every wait is made explicit.
bool wait_ready(int socket, short events, int wait_ms) {
  pollfd waiting{socket, events, 0};
  int ready = 0;
  do {
    ready = poll(&waiting, 1, wait_ms);
  } while (ready < 0 && errno == EINTR);
  return ready > 0;
}

// Moves `bytes` at `at` with `step` (one send or recv on `socket`, ready for `events`) until
// all are moved; false when the peer is gone.
template <typename Step>
bool move_all(int socket, short events, char* at, uint64_t bytes, Step step) {
  while (bytes > 0) {
    const ssize_t moved = step(at, bytes);
    if (moved < 0 && errno == EINTR) continue;
    if (moved < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      if (!wait_ready(socket, events, -1)) return false;
      continue;
    }
    if (moved <= 0) return false;
    at += moved;
    bytes -= static_cast<uint64_t>(moved);
  }
  return true;
}

bool write_all(int fd, const void* data, uint64_t bytes) {
  return move_all(fd, POLLOUT, const_cast<char*>(static_cast<const char*>(data)), bytes,
                  [fd](char* at, uint64_t left) { return ::send(fd, at, left, MSG_NOSIGNAL); });
}
}  // namespace

int memfd_of(const std::vector<std::pair<const void*, uint64_t>>& pieces) {
  const int fd = memfd_create("dopant-payload", MFD_CLOEXEC);
  if (fd < 0) throw std::runtime_error(std::string("memfd_create: ") + std::strerror(errno));
  uint64_t total = 0;
  for (const auto& piece : pieces) total += piece.second;
  if (total > 0) {
    void* map = ftruncate(fd, static_cast<off_t>(total)) == 0
                    ? mmap(nullptr, total, PROT_WRITE, MAP_SHARED, fd, 0)
                    : MAP_FAILED;
    if (map == MAP_FAILED) {
      const int error = errno;
      close(fd);
      throw std::runtime_error(std::string("memfd of ") + std::to_string(total) + " bytes: " + std::strerror(error));
    }
    char* at = static_cast<char*>(map);
    for (const auto& piece : pieces) {
      if (piece.second > 0) std::memcpy(at, piece.first, piece.second);
      at += piece.second;
    }
    munmap(map, total);
  }
  return fd;
}

bool send_message(int socket, const void* header, size_t header_bytes, int fd,
                  const std::vector<std::pair<const void*, uint64_t>>& inline_pieces) {
  iovec iov{const_cast<void*>(header), header_bytes};
  msghdr message{};
  message.msg_iov = &iov;
  message.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  if (fd >= 0) {
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    cmsghdr* cmsg = CMSG_FIRSTHDR(&message);
    cmsg->cmsg_level = SOL_SOCKET;
    cmsg->cmsg_type = SCM_RIGHTS;
    cmsg->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(cmsg), &fd, sizeof fd);
  }
  ssize_t sent = 0;
  do {
    sent = sendmsg(socket, &message, MSG_NOSIGNAL);
  } while ((sent < 0 && errno == EINTR) || (sent < 0 && errno == EAGAIN && wait_ready(socket, POLLOUT, -1)));
  if (sent <= 0) return false;
  if (static_cast<size_t>(sent) < header_bytes &&
      !write_all(socket, static_cast<const char*>(header) + sent, header_bytes - static_cast<size_t>(sent))) {
    return false;
  }
  for (const auto& piece : inline_pieces) {
    if (!write_all(socket, piece.first, piece.second)) return false;
  }
  return true;
}

bool receive_header(int socket, void* header, size_t header_bytes, int* fd, int deadline_ms, bool* timed_out) {
  *fd = -1;
  if (deadline_ms >= 0) {
    pollfd waiting{socket, POLLIN, 0};
    int ready = 0;
    do {
      ready = poll(&waiting, 1, deadline_ms);
    } while (ready < 0 && errno == EINTR);
    if (ready == 0 && timed_out != nullptr) *timed_out = true;
    if (ready <= 0) return false;
  }
  iovec iov{header, header_bytes};
  msghdr message{};
  message.msg_iov = &iov;
  message.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  message.msg_control = control;
  message.msg_controllen = sizeof control;
  ssize_t got = 0;
  do {
    got = recvmsg(socket, &message, MSG_CMSG_CLOEXEC);
  } while ((got < 0 && errno == EINTR) || (got < 0 && errno == EAGAIN && wait_ready(socket, POLLIN, -1)));
  if (got <= 0) return false;
  for (cmsghdr* cmsg = CMSG_FIRSTHDR(&message); cmsg != nullptr; cmsg = CMSG_NXTHDR(&message, cmsg)) {
    if (cmsg->cmsg_level == SOL_SOCKET && cmsg->cmsg_type == SCM_RIGHTS) std::memcpy(fd, CMSG_DATA(cmsg), sizeof *fd);
  }
  if (static_cast<size_t>(got) < header_bytes &&
      !receive_bytes(socket, static_cast<char*>(header) + got, header_bytes - static_cast<size_t>(got))) {
    if (*fd >= 0) close(*fd);
    *fd = -1;
    return false;
  }
  return true;
}

std::string strings_of(const char* const* list, uint32_t& count) {
  std::string joined;
  count = 0;
  for (; list != nullptr && list[count] != nullptr; ++count) joined.append(list[count]).push_back('\0');
  return joined;
}

bool split_strings(const std::string& joined, std::vector<std::string>& out) {
  for (size_t start = 0; start < joined.size();) {
    const size_t end = joined.find('\0', start);
    if (end == std::string::npos) return false;
    out.push_back(joined.substr(start, end - start));
    start = end + 1;
  }
  return true;
}

bool well_formed(const Request& request, size_t strings) {
  switch (static_cast<Op>(request.op)) {
    case Op::exec: return request.argc >= 1 && strings == uint64_t{request.argc} + request.envc + 1;
    case Op::put:
    case Op::get: return strings == 1;
    case Op::reset: return true;
  }
  return false;
}

bool receive_bytes(int socket, void* data, uint64_t bytes) {
  return move_all(socket, POLLIN, static_cast<char*>(data), bytes,
                  [socket](char* at, uint64_t left) { return ::recv(socket, at, left, MSG_WAITALL); });
}

}  // namespace dopant::sandbox
