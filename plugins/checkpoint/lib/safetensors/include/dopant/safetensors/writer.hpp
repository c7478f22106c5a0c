// Writing a safetensors checkpoint as a folder, all or nothing: tensors stream into shards
// of at most `max_shard_bytes` of tensor data (a larger tensor gets a shard of its own) in a
// temporary folder next to the destination; finalize names the shards as Hugging Face does
// (`model.safetensors` alone, or `model-0000i-of-0000N.safetensors` with
// `model.safetensors.index.json`) and renames the folder into place. A writer destroyed
// without finalize, an exception, or SIGINT/SIGTERM/SIGHUP in a process that installed
// dopant's interrupt cleanup, leaves nothing behind.
#pragma once

#include <dopant/host.h>
#include <dopant/sdk/checkpoint.hpp>
#include <dopant/support/child_processes.hpp>

#include "dopant/safetensors/format.hpp"

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
  // Writes the last shard and the index and renames the folder to the destination.
  void finalize();

 private:
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

  std::vector<std::string> shard_files_;                   // closed shards, in order
  std::vector<std::pair<std::string, size_t>> placement_;  // tensor -> index into shard_files_
  uint64_t total_bytes_ = 0;                               // tensor bytes, all shards
};

}  // namespace dopant::safetensors
