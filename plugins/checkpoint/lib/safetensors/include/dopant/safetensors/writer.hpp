// Writing a safetensors checkpoint as a folder, all or nothing: tensors stream into shards
// of at most `max_shard_bytes` of tensor data (a larger tensor gets a shard of its own) in a
// temporary folder next to the destination; finalize names the shards as Hugging Face does
// (`model.safetensors` alone, or `model-0000i-of-0000N.safetensors` with
// `model.safetensors.index.json`) and renames the folder into place. A writer destroyed
// without finalize, an exception, or SIGINT/SIGTERM/SIGHUP in a process that installed
// dopant's interrupt cleanup, leaves nothing behind.
//
// Two ways to fill it. add() streams tensors one after another: their bytes go to a scratch
// file per shard until the shard's header is known, then into the shard (written twice).
// plan() is told every tensor up front: each shard is then created at its final size with
// its header, and each tensor's bytes are put in place once, from any thread (write, copy).
#pragma once

#include <dopant/checkpoint_io/input_file.hpp>
#include <dopant/host.h>
#include <dopant/sdk/checkpoint.hpp>
#include <dopant/support/child_processes.hpp>

#include "dopant/safetensors/format.hpp"

#include <atomic>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace dopant::safetensors {

class Writer {
 public:
  // Refuses an existing destination (DPT_ALREADY_EXISTS) and a missing parent folder
  // (DPT_NOT_FOUND). `host` may be NULL; otherwise long writes poll its is_cancelled and log
  // progress through it. `metadata` goes into every shard's `__metadata__`.
  Writer(const std::string& destination, uint64_t max_shard_bytes, sdk::Metadata metadata, const dpt_host* host);
  ~Writer();
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  // Appends a compact host tensor of a dtype the format stores. A name given twice is
  // DPT_ALREADY_EXISTS; after any error the writer only refuses further calls.
  void add(const std::string& name, const DLTensor& tensor);

  // A tensor announced to plan().
  struct Planned {
    std::string name;
    DLDataType dtype{};
    std::vector<int64_t> shape;
  };
  // Lays out `tensors`, in this order, into shards exactly as add() would, and creates every
  // shard file under its final name, at its final size, with its header. Once, instead of
  // add(); refuses what add() refuses (a duplicate name, a dtype the format cannot store).
  void plan(const std::vector<Planned>& tensors);
  // [any-thread] After plan(): puts `bytes` bytes at byte `offset` of planned tensor
  // `index`, from memory, or from byte `from_offset` of a file (in the kernel where it can:
  // copy_file_range, so the bytes never pass through this process). Each byte of every
  // tensor must be put exactly once before finalize.
  void write(size_t index, uint64_t offset, const void* data, uint64_t bytes);
  void copy(size_t index, uint64_t offset, const checkpoint_io::InputFile& from, uint64_t from_offset, uint64_t bytes);

  // Several processes filling one planned output (ranks on a shared filesystem): one writer
  // plans; the others, given its folder() and the same tensors, join: they open its shard
  // files, drop their own (empty) folder, and put their share with write and copy. Each
  // joined writer then sync_put()s (fsync; returns the bytes it put) and is destroyed
  // without finalize; the planning writer counts those bytes (count_put_elsewhere) and
  // finalizes. Whether every process succeeded is for the caller to agree on first.
  void join(const std::string& folder, const std::vector<Planned>& tensors);
  const std::string& folder() const;  // the temporary folder (not for a joined writer)
  uint64_t sync_put();
  void count_put_elsewhere(uint64_t bytes);

  // Writes the last shard (planned: fsyncs every shard) and the index and renames the
  // folder to the destination.
  void finalize();

 private:
  // Where a planned tensor's bytes go: a shard file and the file offset of its first byte.
  struct Place {
    size_t shard;
    uint64_t at, bytes;
  };

  void lay_out(const std::vector<Planned>& tensors, const std::string& folder);
  TensorEntry checked_entry(const std::string& name, const DLTensor& tensor, const std::string& label) const;
  bool starts_new_shard(uint64_t bytes) const;
  const Place& place_of(size_t index, uint64_t offset, uint64_t bytes) const;
  void close_shard();
  void check_cancelled() const;
  void progress() const;

  std::string destination_;
  uint64_t max_shard_bytes_;
  sdk::Metadata metadata_;
  const dpt_host* host_;
  std::unique_ptr<TemporaryFolder> folder_;
  std::set<std::string> names_;
  bool failed_ = false;

  // The open shard: its tensors' data goes to a scratch file until the header is known.
  int data_fd_ = -1;
  std::string data_path_;
  Header shard_;
  uint64_t shard_bytes_ = 0;

  std::vector<std::string> shard_files_;                   // closed (planned: created) shards, in order
  std::vector<std::pair<std::string, size_t>> placement_;  // tensor -> index into shard_files_
  uint64_t total_bytes_ = 0;                               // tensor bytes, all shards

  // Planned mode: the shards' open files and each tensor's place; bytes put so far.
  bool planned_ = false;
  bool joined_ = false;
  std::vector<int> planned_fds_;
  std::vector<Place> places_;
  std::atomic<uint64_t> put_bytes_{0};
};

}  // namespace dopant::safetensors
