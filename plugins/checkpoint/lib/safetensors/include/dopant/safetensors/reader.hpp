// Reading a safetensors checkpoint without trusting it: one `.safetensors` file, or a folder
// holding `model.safetensors` or shards named by `model.safetensors.index.json`. Opening
// reads and checks every header (and the index) and lists each tensor as one chunk; reads
// are positioned (pread) and safe to run from many threads at once.
#pragma once

#include <dopant/checkpoint_io/input_file.hpp>
#include <dopant/sdk/checkpoint.hpp>

#include <deque>

#include <string>
#include <vector>

namespace dopant::safetensors {

// The index file of a sharded checkpoint, and the single file of an unsharded one.
inline constexpr const char* kIndexFile = "model.safetensors.index.json";
inline constexpr const char* kSingleFile = "model.safetensors";

class Reader {
 public:
  // Throws sdk::Error naming the file and field: DPT_NOT_FOUND when nothing is there,
  // DPT_DATA_LOSS for a file that breaks the format.
  explicit Reader(const std::string& path);
  ~Reader();
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;

  const sdk::CheckpointListing& listing() const { return listing_; }
  // Reads the bytes of `tensor` (its one chunk) into `buffer`, `bytes` of them (the chunk's
  // byte_length). A file shorter than at open is DPT_DATA_LOSS.
  void read(uint64_t tensor, uint64_t chunk, void* buffer, uint64_t bytes) const;

 private:
  void open_file(const std::string& path, const std::string& shown);

  sdk::CheckpointListing listing_;
  std::deque<checkpoint_io::InputFile> files_;  // in the order opened
  std::vector<size_t> file_of_;                 // per tensor: index into files_
};

}  // namespace dopant::safetensors
