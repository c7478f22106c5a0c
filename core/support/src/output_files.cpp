// Checking and writing output files: where each path leads, the refusals, and the
// all-or-nothing writer (see output_files.hpp).
#include <dopant/support/output_files.hpp>

#include <dopant/support/text.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace dopant {
namespace {

namespace fs = std::filesystem;

// Where an output's bytes go.
struct Destination {
  enum class Kind { NewFile, RegularFile, WriteThrough };
  Kind kind = Kind::NewFile;
  std::string path;       // the symlink's target when the output names a link
  std::string identity;   // "dev:ino" of an existing file, else the absolute path
  mode_t mode = 0;        // an existing regular file's permissions
};

[[noreturn]] void refuse(const OutputFile& output, const std::string& reason) {
  throw OutputError(output.option + " " + one_line(output.path) + ": " + reason);
}

std::string identity_of(const struct stat& info) {
  return std::to_string(info.st_dev) + ":" + std::to_string(info.st_ino);
}

void require_writable_folder(const OutputFile& output, const fs::path& folder) {
  struct stat info {};
  if (stat(folder.c_str(), &info) != 0) refuse(output, "folder " + one_line(folder.string()) + " does not exist");
  if (!S_ISDIR(info.st_mode)) refuse(output, one_line(folder.string()) + " is not a folder");
  if (access(folder.c_str(), W_OK | X_OK) != 0) {
    refuse(output, "cannot write in folder " + one_line(folder.string()) + ": " + std::strerror(errno));
  }
  // access() answers for permissions only: as root it allows /proc, where no file can be
  // made. Making a file there, and removing it at once, is the sure test.
  std::string probe = (folder / ".dopant-probe-XXXXXX").string();
  const int descriptor = mkstemp(probe.data());
  if (descriptor < 0) {
    refuse(output, "cannot write in folder " + one_line(folder.string()) + ": " + std::strerror(errno));
  }
  close(descriptor);
  unlink(probe.c_str());
}

Destination destination_of(const OutputFile& output) {
  if (output.path.empty()) refuse(output, "empty path");
  Destination to;
  to.path = output.path;
  struct stat link {};
  if (lstat(output.path.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
    std::error_code error;
    const fs::path target = fs::canonical(output.path, error);
    if (error) refuse(output, "symlink to nothing that can be written (" + error.message() + ")");
    to.path = target.string();
  }
  struct stat info {};
  if (stat(to.path.c_str(), &info) != 0) {
    if (errno != ENOENT) refuse(output, std::strerror(errno));
    const fs::path absolute = fs::absolute(to.path).lexically_normal();
    require_writable_folder(output, absolute.parent_path());
    to.kind = Destination::Kind::NewFile;
    to.identity = absolute.string();
    return to;
  }
  to.identity = identity_of(info);
  if (S_ISDIR(info.st_mode)) refuse(output, "is a folder");
  if (S_ISREG(info.st_mode)) {
    require_writable_folder(output, fs::absolute(to.path).parent_path());
    to.kind = Destination::Kind::RegularFile;
    to.mode = info.st_mode & 07777;
    return to;
  }
  if (S_ISCHR(info.st_mode) || S_ISFIFO(info.st_mode)) {
    if (access(to.path.c_str(), W_OK) != 0) refuse(output, std::strerror(errno));
    to.kind = Destination::Kind::WriteThrough;
    return to;
  }
  refuse(output, "is neither a regular file, a character device nor a FIFO");
}

std::vector<Destination> checked_destinations(const std::vector<OutputFile>& outputs,
                                              const std::vector<std::string>& inputs) {
  std::vector<std::pair<std::string, std::string>> input_ids;  // identity, path
  for (const std::string& input : inputs) {
    struct stat info {};
    if (stat(input.c_str(), &info) == 0) input_ids.emplace_back(identity_of(info), input);
  }
  std::vector<Destination> destinations;
  for (size_t i = 0; i < outputs.size(); ++i) {
    Destination to = destination_of(outputs[i]);
    for (const auto& [id, input] : input_ids) {
      if (id == to.identity) refuse(outputs[i], "is the input " + one_line(input) + "; it would be overwritten");
    }
    for (size_t j = 0; j < destinations.size(); ++j) {
      if (destinations[j].identity == to.identity) {
        refuse(outputs[i], "is the same file as " + outputs[j].option + " " + one_line(outputs[j].path));
      }
    }
    destinations.push_back(std::move(to));
  }
  return destinations;
}

// Writes all of `content` to `fd`; false with errno set on a short or failed write.
bool write_all(int fd, const std::string& content) {
  size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

mode_t default_file_mode() {
  const mode_t mask = umask(0);
  umask(mask);
  return 0666 & ~mask;
}

// Temporary files written so far, removed unless committed.
class Temporaries {
 public:
  ~Temporaries() {
    for (const std::string& path : paths_) unlink(path.c_str());
  }
  // Writes `content` to a new temporary file beside `destination`; throws naming `output`.
  std::string write(const OutputFile& output, const Destination& destination) {
    std::string pattern = destination.path + ".dopant-XXXXXX";
    const int fd = mkstemp(pattern.data());
    if (fd < 0) refuse(output, std::string("cannot create a temporary file: ") + std::strerror(errno));
    paths_.push_back(pattern);
    const mode_t mode = destination.kind == Destination::Kind::RegularFile ? destination.mode : default_file_mode();
    const bool written = fchmod(fd, mode) == 0 && write_all(fd, output.content) && fsync(fd) == 0;
    const int error = errno;
    if (close(fd) != 0 || !written) refuse(output, std::string("write failed: ") + std::strerror(written ? errno : error));
    return pattern;
  }
  void committed(const std::string& path) { paths_.erase(std::find(paths_.begin(), paths_.end(), path)); }

 private:
  std::vector<std::string> paths_;
};

void write_through(const OutputFile& output, const std::string& path) {
  // O_NONBLOCK so a FIFO without a reader fails at once (ENXIO) instead of hanging.
  const int fd = open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    refuse(output, errno == ENXIO ? "FIFO has no reader" : std::string("cannot open: ") + std::strerror(errno));
  }
  const int flags = fcntl(fd, F_GETFL);
  const bool written = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0 && write_all(fd, output.content);
  const int error = errno;
  if (close(fd) != 0 || !written) refuse(output, std::string("write failed: ") + std::strerror(written ? errno : error));
}

}  // namespace

void check_outputs(const std::vector<OutputFile>& outputs, const std::vector<std::string>& inputs) {
  checked_destinations(outputs, inputs);
}

void write_outputs(const std::vector<OutputFile>& outputs, const std::vector<std::string>& inputs) {
  const std::vector<Destination> destinations = checked_destinations(outputs, inputs);
  Temporaries temporaries;
  std::vector<std::string> written(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (destinations[i].kind != Destination::Kind::WriteThrough) written[i] = temporaries.write(outputs[i], destinations[i]);
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (destinations[i].kind == Destination::Kind::WriteThrough) write_through(outputs[i], destinations[i].path);
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (written[i].empty()) continue;
    if (std::rename(written[i].c_str(), destinations[i].path.c_str()) != 0) {
      refuse(outputs[i], std::string("cannot rename the written file into place: ") + std::strerror(errno));
    }
    temporaries.committed(written[i]);
  }
}

}  // namespace dopant
