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

void pwrite_all(int fd, const void* data, uint64_t bytes, uint64_t offset, const std::string& file) {
  const char* at = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t put = ::pwrite(fd, at, std::min<uint64_t>(bytes, 1u << 30), static_cast<off_t>(offset));
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) io_failure(file, "write");
    at += put;
    offset += static_cast<uint64_t>(put);
    bytes -= static_cast<uint64_t>(put);
  }
}

// Copies `bytes` from byte `from_offset` of `from` to `to`, at `*to_offset` (advanced), or
// at its file position when `to_offset` is null: in the kernel where it can
// (copy_file_range), through a buffer where it cannot.
void copy_range(int from, uint64_t from_offset, int to, loff_t* to_offset, uint64_t bytes, const std::string& file) {
  loff_t offset = static_cast<loff_t>(from_offset);
  while (bytes > 0) {
    const ssize_t moved = ::copy_file_range(from, &offset, to, to_offset, std::min<uint64_t>(bytes, 1u << 30), 0);
    if (moved > 0) {
      bytes -= static_cast<uint64_t>(moved);
      continue;
    }
    if (moved < 0 && errno == EINTR) continue;
    if (moved == 0) io_failure(file, "copy (source ended early)");
    if (errno != EXDEV && errno != ENOSYS && errno != EINVAL && errno != EOPNOTSUPP) io_failure(file, "copy");
    std::vector<char> buffer(std::min<uint64_t>(bytes, 8u << 20));
    while (bytes > 0) {
      const ssize_t got = ::pread(from, buffer.data(), std::min<uint64_t>(bytes, buffer.size()), offset);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) io_failure(file, "read back");
      if (to_offset == nullptr) {
        write_all(to, buffer.data(), static_cast<uint64_t>(got), file);
      } else {
        pwrite_all(to, buffer.data(), static_cast<uint64_t>(got), static_cast<uint64_t>(*to_offset), file);
        *to_offset += got;
      }
      offset += got;
      bytes -= static_cast<uint64_t>(got);
    }
  }
}

// prefix (u64 little-endian header length) + header, the first bytes of a shard file.
std::string shard_head(const std::string& header) {
  std::string head(kPrefixBytes, '\0');
  for (uint64_t i = 0; i < kPrefixBytes; ++i) head[i] = static_cast<char>(header.size() >> (8 * i));
  return head + header;
}

// What Hugging Face names shard `index` (from 0) of `count`.
std::string shard_name(size_t index, size_t count) {
  if (count == 1) return kSingleFile;
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
  for (int fd : planned_fds_) ::close(fd);
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

// The header entry of a tensor the format can store, its offsets left 0.
TensorEntry Writer::checked_entry(const std::string& name, const DLTensor& tensor, const std::string& label) const {
  if (names_.count(name) != 0) sdk::fail(DPT_ALREADY_EXISTS, destination_ + ": " + label + " was added twice");
  const DType* dtype = find_dtype(tensor.dtype);
  if (dtype == nullptr) {
    sdk::fail(DPT_INVALID_ARGUMENT, destination_ + ": " + label + " has dtype " + sdk::dtype_name(tensor.dtype) +
                                        ", which safetensors cannot store");
  }
  sdk::checked_byte_size(tensor, label);
  TensorEntry entry;
  entry.name = name;
  entry.dtype = dtype;
  entry.shape.assign(tensor.shape, tensor.shape + tensor.ndim);
  return entry;
}

// Whether a tensor of `bytes` closes the open shard: it would pass max_shard_bytes, and the
// shard holds something already (a larger tensor gets a shard of its own).
bool Writer::starts_new_shard(uint64_t bytes) const {
  return !shard_.tensors.empty() && shard_bytes_ + bytes > max_shard_bytes_;
}

void Writer::add(const std::string& name, const DLTensor& tensor) {
  if (failed_) sdk::fail(DPT_FAILED_PRECONDITION, destination_ + ": the writer failed earlier; abort it");
  sdk::require(!planned_, destination_ + ": add after plan; a planned writer takes write and copy");
  failed_ = true;  // until this call succeeds
  const std::string label = "tensor " + quote_name(name);
  TensorEntry entry = checked_entry(name, tensor, label);
  sdk::require(tensor.device.device_type == kDLCPU || tensor.device.device_type == kDLCUDAHost,
               destination_ + ": " + label + " is not in host memory");
  sdk::require(sdk::is_contiguous(tensor), destination_ + ": " + label + " is not compact row-major");
  const uint64_t bytes = sdk::checked_byte_size(tensor, label);
  sdk::require(bytes == 0 || tensor.data != nullptr, destination_ + ": " + label + " has no data");
  check_cancelled();

  if (starts_new_shard(bytes)) close_shard();
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
  const std::string head = shard_head(header_text(shard_));
  const std::string path =
      (fs::path(folder_->path()) / ("shard-" + std::to_string(shard_files_.size() + 1) + ".safetensors")).string();
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) io_failure(path, "create");
  try {
    write_all(fd, head.data(), head.size(), path);
    if (data_fd_ >= 0) copy_range(data_fd_, 0, fd, nullptr, shard_bytes_, path);
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

void Writer::plan(const std::vector<Planned>& tensors) { lay_out(tensors, ""); }

void Writer::join(const std::string& folder, const std::vector<Planned>& tensors) {
  sdk::require(!folder.empty(), destination_ + ": join needs the planning writer's folder");
  lay_out(tensors, folder);
}

// plan (folder empty) or join (folder: the planning writer's).
void Writer::lay_out(const std::vector<Planned>& tensors, const std::string& folder) {
  if (failed_) sdk::fail(DPT_FAILED_PRECONDITION, destination_ + ": the writer failed earlier; abort it");
  sdk::require(!planned_ && names_.empty(), destination_ + ": plan must come once, before any add");
  failed_ = true;  // until this call succeeds
  planned_ = true;
  joined_ = !folder.empty();
  // The shards' headers, split as add() splits them: shard_ is the open one.
  std::vector<Header> shards;
  for (const Planned& planned : tensors) {
    std::vector<int64_t> shape = planned.shape;
    DLTensor tensor{};
    tensor.dtype = planned.dtype;
    tensor.ndim = static_cast<int32_t>(shape.size());
    tensor.shape = shape.data();
    const std::string label = "tensor " + quote_name(planned.name);
    TensorEntry entry = checked_entry(planned.name, tensor, label);
    const uint64_t bytes = sdk::checked_byte_size(tensor, label);
    if (starts_new_shard(bytes)) {
      shards.push_back(std::move(shard_));
      shard_ = Header{};
      shard_bytes_ = 0;
    }
    entry.begin = shard_bytes_;
    entry.end = shard_bytes_ + bytes;
    places_.push_back({shards.size(), entry.begin, bytes});  // `at` is made a file offset below
    shard_.tensors.push_back(std::move(entry));
    shard_bytes_ += bytes;
    total_bytes_ += bytes;
    names_.insert(planned.name);
    placement_.emplace_back(planned.name, shards.size());
  }
  shards.push_back(std::move(shard_));
  shard_ = Header{};
  shard_bytes_ = 0;
  if (joined_) folder_.reset();  // its own folder, still empty, goes; the files are the planner's

  // Each shard under its final name: its blocks reserved (so a full disk fails here, not
  // halfway), its head written; its tensors' data starts right after the head. A joining
  // writer opens the files the planning one made.
  std::vector<uint64_t> data_start;
  for (size_t i = 0; i < shards.size(); ++i) {
    Header& header = shards[i];
    header.metadata = metadata_;
    const std::string head = shard_head(header_text(header));
    const uint64_t size = head.size() + (header.tensors.empty() ? 0 : header.tensors.back().end);
    const std::string path = (fs::path(joined_ ? folder : folder_->path()) / shard_name(i, shards.size())).string();
    const int fd = ::open(path.c_str(), joined_ ? O_WRONLY | O_CLOEXEC : O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) io_failure(path, joined_ ? "open" : "create");
    planned_fds_.push_back(fd);
    shard_files_.push_back(path);
    if (!joined_) {
      if (size > 0 && ::fallocate(fd, 0, 0, static_cast<off_t>(size)) != 0) {
        if (errno != EOPNOTSUPP || ::ftruncate(fd, static_cast<off_t>(size)) != 0) io_failure(path, "reserve space");
      }
      pwrite_all(fd, head.data(), head.size(), 0, path);
    }
    data_start.push_back(head.size());
  }
  for (Place& place : places_) place.at += data_start[place.shard];
  failed_ = false;
}

const std::string& Writer::folder() const {
  sdk::require(folder_ != nullptr, destination_ + ": a joined writer has no folder of its own");
  return folder_->path();
}

uint64_t Writer::sync_put() {
  for (size_t i = 0; i < planned_fds_.size(); ++i) {
    if (::fsync(planned_fds_[i]) != 0) io_failure(shard_files_[i], "fsync");
  }
  return put_bytes_;
}

void Writer::count_put_elsewhere(uint64_t bytes) { put_bytes_ += bytes; }

const Writer::Place& Writer::place_of(size_t index, uint64_t offset, uint64_t bytes) const {
  sdk::require(planned_ && index < places_.size(), destination_ + ": no planned tensor " + std::to_string(index));
  const Place& place = places_[index];
  sdk::require(offset <= place.bytes && bytes <= place.bytes - offset,
               destination_ + ": bytes [" + std::to_string(offset) + ", " + std::to_string(offset + bytes) +
                   ") lie outside tensor " + quote_name(placement_[index].first) + " of " +
                   std::to_string(place.bytes) + " bytes");
  return place;
}

void Writer::write(size_t index, uint64_t offset, const void* data, uint64_t bytes) {
  const Place& place = place_of(index, offset, bytes);
  pwrite_all(planned_fds_[place.shard], data, bytes, place.at + offset, shard_files_[place.shard]);
  put_bytes_ += bytes;
}

void Writer::copy(size_t index, uint64_t offset, const checkpoint_io::InputFile& from, uint64_t from_offset,
                  uint64_t bytes) {
  const Place& place = place_of(index, offset, bytes);
  sdk::require(from_offset <= from.size() && bytes <= from.size() - from_offset,
               from.path() + ": bytes [" + std::to_string(from_offset) + ", " + std::to_string(from_offset + bytes) +
                   ") lie past its end (" + std::to_string(from.size()) + " bytes)");
  loff_t at = static_cast<loff_t>(place.at + offset);
  copy_range(from.descriptor(), from_offset, planned_fds_[place.shard], &at, bytes, shard_files_[place.shard]);
  put_bytes_ += bytes;
}

void Writer::finalize() {
  if (failed_) sdk::fail(DPT_FAILED_PRECONDITION, destination_ + ": the writer failed earlier; abort it");
  sdk::require(!joined_, destination_ + ": a joined writer is finalized by the writer that planned");
  failed_ = true;
  check_cancelled();
  const fs::path folder = folder_->path();
  if (!planned_ && (!shard_.tensors.empty() || shard_files_.empty())) close_shard();
  const size_t count = shard_files_.size();
  if (planned_) {
    if (put_bytes_ != total_bytes_) {
      sdk::fail(DPT_INTERNAL, destination_ + ": " + std::to_string(put_bytes_) + " bytes were put of the " +
                                  std::to_string(total_bytes_) + " the planned tensors hold");
    }
    sync_put();
  } else {
    for (size_t i = 0; i < count; ++i) rename_or_fail(shard_files_[i], (folder / shard_name(i, count)).string());
  }
  if (count > 1) {
    // {"metadata": {"total_size": BYTES}, "weight_map": {TENSOR: SHARD, ...}}, sorted by name.
    std::vector<std::pair<std::string, size_t>> placement = placement_;
    std::sort(placement.begin(), placement.end());
    std::string index = "{\n  \"metadata\": {\"total_size\": " + std::to_string(total_bytes_) + "},\n  \"weight_map\": {";
    for (size_t i = 0; i < placement.size(); ++i) {
      index += std::string(i > 0 ? "," : "") + "\n    " + json_string(placement[i].first) + ": " +
               json_string(shard_name(placement[i].second, count));
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
