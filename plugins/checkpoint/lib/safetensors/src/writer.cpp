// The sharded, all-or-nothing safetensors writer (see writer.hpp).
#include "dopant/safetensors/writer.hpp"

#include "dopant/safetensors/reader.hpp"

#include <dopant/sdk/tensors.hpp>
#include <dopant/support/json_text.hpp>
#include <dopant/support/output_files.hpp>
#include <dopant/support/text.hpp>

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <vector>

namespace dopant::safetensors {
namespace {

namespace fs = std::filesystem;

// Tensor bytes are written in blocks of this size, with a cancellation check between them.
constexpr uint64_t kBlockBytes = 64ull << 20;

[[noreturn]] void io_failure(const std::string& file, const char* what) {
  const int error = errno;
  sdk::fail(error == ENOSPC || error == EDQUOT ? DPT_RESOURCE_EXHAUSTED : DPT_INTERNAL,
            file + ": " + what + " failed: " + std::strerror(error));
}

void write_all(int fd, const void* data, uint64_t bytes, const std::string& file) {
  const char* at = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t put = ::write(fd, at, std::min<uint64_t>(bytes, 1u << 30));
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) io_failure(file, "write");
    at += put;
    bytes -= static_cast<uint64_t>(put);
  }
}

// Appends `bytes` from the start of `from` to `to`: in the kernel where it can
// (copy_file_range), through a buffer where it cannot.
void append_copy(int from, int to, uint64_t bytes, const std::string& file) {
  loff_t offset = 0;
  while (bytes > 0) {
    const ssize_t moved = ::copy_file_range(from, &offset, to, nullptr, std::min<uint64_t>(bytes, 1u << 30), 0);
    if (moved > 0) {
      bytes -= static_cast<uint64_t>(moved);
      continue;
    }
    if (moved < 0 && errno == EINTR) continue;
    if (moved < 0 && errno != EXDEV && errno != ENOSYS && errno != EINVAL && errno != EOPNOTSUPP) {
      io_failure(file, "copy");
    }
    std::vector<char> buffer(std::min<uint64_t>(bytes, 8u << 20));
    while (bytes > 0) {
      const ssize_t got = ::pread(from, buffer.data(), std::min<uint64_t>(bytes, buffer.size()), offset);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) io_failure(file, "read back");
      write_all(to, buffer.data(), static_cast<uint64_t>(got), file);
      offset += got;
      bytes -= static_cast<uint64_t>(got);
    }
  }
}

std::string shard_name(size_t index, size_t count) {
  char name[64];
  std::snprintf(name, sizeof name, "model-%05zu-of-%05zu.safetensors", index + 1, count);
  return name;
}

void rename_or_fail(const std::string& from, const std::string& to) {
  if (::rename(from.c_str(), to.c_str()) != 0) io_failure(to, "rename");
}

}  // namespace

Writer::Writer(const std::string& destination, uint64_t max_shard_bytes, sdk::Metadata metadata,
               const dpt_host* host)
    : destination_(destination), max_shard_bytes_(max_shard_bytes), metadata_(std::move(metadata)), host_(host) {
  sdk::require(!destination.empty(), "safetensors: the destination is empty");
  sdk::require(max_shard_bytes > 0, "safetensors: max_shard_size must be positive");
  std::error_code error;
  if (fs::exists(fs::symlink_status(destination, error))) {
    sdk::fail(DPT_ALREADY_EXISTS, destination + ": already exists; a checkpoint is written only to a new path");
  }
  const fs::path target = fs::absolute(destination, error).lexically_normal();
  const fs::path parent = target.has_filename() ? target.parent_path() : target.parent_path().parent_path();
  if (!fs::is_directory(parent, error)) sdk::fail(DPT_NOT_FOUND, destination + ": folder " + parent.string() + " does not exist");
  try {
    folder_ = std::make_unique<TemporaryFolder>(parent.string(), "." + fs::path(destination).filename().string() + ".partial");
  } catch (const std::runtime_error& e) {
    sdk::fail(DPT_PERMISSION_DENIED, e.what());
  }
}

Writer::~Writer() {
  if (data_fd_ >= 0) ::close(data_fd_);
  // folder_, unless released by finalize, removes every file written.
}

void Writer::check_cancelled() const {
  if (host_ != nullptr && host_->is_cancelled(host_)) {
    sdk::fail(DPT_CANCELLED, destination_ + ": writing was cancelled; nothing was left behind");
  }
}

void Writer::progress() const {
  if (host_ == nullptr) return;
  const std::string line = "progress " + std::to_string(total_bytes_) + " bytes";
  host_->log(host_, DPT_LOG_DEBUG, line.c_str());
}

void Writer::add(const std::string& name, const DLTensor& tensor) {
  if (failed_) sdk::fail(DPT_FAILED_PRECONDITION, destination_ + ": the writer failed earlier; abort it");
  failed_ = true;  // until this call succeeds
  const std::string label = "tensor " + quote_name(name);
  if (names_.count(name) != 0) sdk::fail(DPT_ALREADY_EXISTS, destination_ + ": " + label + " was added twice");
  const DType* dtype = find_dtype(tensor.dtype);
  if (dtype == nullptr) {
    sdk::fail(DPT_INVALID_ARGUMENT, destination_ + ": " + label + " has dtype " + sdk::dtype_name(tensor.dtype) +
                                        ", which safetensors cannot store");
  }
  sdk::require(tensor.device.device_type == kDLCPU || tensor.device.device_type == kDLCUDAHost,
               destination_ + ": " + label + " is not in host memory");
  sdk::require(sdk::is_contiguous(tensor), destination_ + ": " + label + " is not compact row-major");
  const uint64_t bytes = sdk::checked_byte_size(tensor, label);
  sdk::require(bytes == 0 || tensor.data != nullptr, destination_ + ": " + label + " has no data");
  check_cancelled();

  if (!shard_.tensors.empty() && shard_bytes_ + bytes > max_shard_bytes_) close_shard();
  if (data_fd_ < 0) {
    data_path_ = (fs::path(folder_->path()) / ("shard-" + std::to_string(shard_files_.size() + 1) + ".data")).string();
    data_fd_ = ::open(data_path_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (data_fd_ < 0) io_failure(data_path_, "create");
  }
  const char* data = bytes == 0 ? nullptr : sdk::data_as<const char>(tensor);
  for (uint64_t done = 0; done < bytes; done += kBlockBytes) {
    check_cancelled();
    write_all(data_fd_, data + done, std::min(kBlockBytes, bytes - done), data_path_);
  }
  TensorEntry entry;
  entry.name = name;
  entry.dtype = dtype;
  entry.shape.assign(tensor.shape, tensor.shape + tensor.ndim);
  entry.begin = shard_bytes_;
  entry.end = shard_bytes_ + bytes;
  shard_.tensors.push_back(std::move(entry));
  shard_bytes_ += bytes;
  total_bytes_ += bytes;
  names_.insert(name);
  placement_.emplace_back(name, shard_files_.size());
  progress();
  failed_ = false;
}

// Writes the open shard as prefix + header + data into its own file and drops the scratch.
void Writer::close_shard() {
  shard_.metadata = metadata_;
  const std::string header = header_text(shard_);
  const std::string path =
      (fs::path(folder_->path()) / ("shard-" + std::to_string(shard_files_.size() + 1) + ".safetensors")).string();
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) io_failure(path, "create");
  try {
    unsigned char prefix[kPrefixBytes];
    for (uint64_t i = 0; i < kPrefixBytes; ++i) prefix[i] = static_cast<unsigned char>(header.size() >> (8 * i));
    write_all(fd, prefix, kPrefixBytes, path);  // u64 little-endian header length
    write_all(fd, header.data(), header.size(), path);
    if (data_fd_ >= 0) append_copy(data_fd_, fd, shard_bytes_, path);
    if (::fsync(fd) != 0) io_failure(path, "fsync");
  } catch (...) {
    ::close(fd);
    throw;
  }
  if (::close(fd) != 0) io_failure(path, "close");
  if (data_fd_ >= 0) {
    ::close(data_fd_);
    data_fd_ = -1;
    ::unlink(data_path_.c_str());
  }
  shard_files_.push_back(path);
  shard_ = Header{};
  shard_bytes_ = 0;
}

void Writer::finalize() {
  if (failed_) sdk::fail(DPT_FAILED_PRECONDITION, destination_ + ": the writer failed earlier; abort it");
  failed_ = true;
  check_cancelled();
  if (!shard_.tensors.empty() || shard_files_.empty()) close_shard();
  const fs::path folder = folder_->path();
  const size_t count = shard_files_.size();
  if (count == 1) {
    rename_or_fail(shard_files_[0], (folder / kSingleFile).string());
  } else {
    std::vector<std::string> names;
    for (size_t i = 0; i < count; ++i) {
      names.push_back(shard_name(i, count));
      rename_or_fail(shard_files_[i], (folder / names.back()).string());
    }
    // {"metadata": {"total_size": BYTES}, "weight_map": {TENSOR: SHARD, ...}}, sorted by name.
    std::vector<std::pair<std::string, size_t>> placement = placement_;
    std::sort(placement.begin(), placement.end());
    std::string index = "{\n  \"metadata\": {\"total_size\": " + std::to_string(total_bytes_) + "},\n  \"weight_map\": {";
    for (size_t i = 0; i < placement.size(); ++i) {
      index += std::string(i > 0 ? "," : "") + "\n    " + json_string(placement[i].first) + ": " +
               json_string(names[placement[i].second]);
    }
    index += "\n  }\n}\n";
    try {
      write_outputs({OutputFile{"index", (folder / kIndexFile).string(), index}});
    } catch (const OutputError& e) {
      sdk::fail(DPT_INTERNAL, e.what());
    }
  }
  check_cancelled();
  // RENAME_NOREPLACE: a destination made since begin is never replaced.
  if (::renameat2(AT_FDCWD, folder.c_str(), AT_FDCWD, destination_.c_str(), RENAME_NOREPLACE) != 0) {
    if (errno == EEXIST) sdk::fail(DPT_ALREADY_EXISTS, destination_ + ": appeared while writing; nothing was replaced");
    io_failure(destination_, "rename into place");
  }
  folder_->release();
  failed_ = false;
}

}  // namespace dopant::safetensors
