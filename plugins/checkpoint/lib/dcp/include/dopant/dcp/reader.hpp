// Reading a PyTorch distributed checkpoint (DCP, as torch.distributed.checkpoint and 1.13's
// torch.distributed._shard.checkpoint write it, and Megatron's torch_dist on top of it)
// without Python: the `.metadata` pickle, read by the safe pickle reader, gives each
// tensor's dtype, global shape and chunks, and where each chunk is stored (a `.distcp`
// file, a byte offset and length). Each stored item is a torch.save archive; its data.pkl
// and zip directory locate the raw bytes, so every chunk is listed as a plain byte range
// and read in place. Nothing about the files is trusted: each inconsistency is an
// sdk::Error naming the file and the tensor.
#pragma once

#include <dopant/checkpoint_io/input_file.hpp>
#include <dopant/sdk/checkpoint.hpp>

#include <deque>
#include <map>
#include <string>
#include <vector>

namespace dopant::dcp {

class Reader {
 public:
  // `folder` holds `.metadata` and the files it names.
  explicit Reader(const std::string& folder);

  const sdk::CheckpointListing& listing() const { return listing_; }
  // Reads one chunk's raw bytes (row-major over its sizes) into `buffer`.
  void read(uint64_t tensor, uint64_t chunk, void* buffer, uint64_t bytes) const;

 private:
  const checkpoint_io::InputFile& file(const std::string& folder, const std::string& name);

  sdk::CheckpointListing listing_;
  std::deque<checkpoint_io::InputFile> files_;
  std::map<std::string, size_t> file_index_;       // name -> index into files_
  std::vector<std::vector<size_t>> file_of_;       // [tensor][chunk] -> index into files_
};

}  // namespace dopant::dcp
