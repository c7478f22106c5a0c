// Where a conversion reads from: any checkpoint that lists its tensors and stored chunks
// (sdk::CheckpointListing: name, dtype, global shape; per chunk its box in the tensor and
// its file, byte offset and length) and reads a chunk into a buffer. Megatron's torch_dist
// (dcp::Reader) and the legacy per-rank files (megatron_legacy::Reader) are two; any reader with the same two members plugs in through ReaderSource.
//
// A chunk's bytes must be row-major over its sizes and stored as a plain byte range of its
// file, so the `stream` strategy may read parts of it in place (open_source checks that
// byte_length = elements x dtype size for every chunk).
#pragma once

#include <dopant/sdk/checkpoint.hpp>

#include <cstdint>
#include <memory>
#include <string>

namespace dopant::megatron_hf {

class ChunkSource {
 public:
  virtual ~ChunkSource() = default;
  virtual const sdk::CheckpointListing& listing() const = 0;
  // Reads chunk `chunk` of tensor `tensor` whole into `buffer` (`bytes` = its byte_length).
  // [any-thread]
  virtual void read(uint64_t tensor, uint64_t chunk, void* buffer, uint64_t bytes) const = 0;

  // Megatron args saved beside the tensors (torch_dist's common.pt) as `args.NAME`; a legacy
  // checkpoint's listing metadata holds its own.
  sdk::Metadata saved_args;
};

// A ChunkSource over a reader R with `const sdk::CheckpointListing& listing() const` and
// `void read(uint64_t tensor, uint64_t chunk, void* buffer, uint64_t bytes) const`.
template <typename R>
class ReaderSource final : public ChunkSource {
 public:
  explicit ReaderSource(const std::string& folder) : reader_(folder) {}
  const sdk::CheckpointListing& listing() const override { return reader_.listing(); }
  void read(uint64_t tensor, uint64_t chunk, void* buffer, uint64_t bytes) const override {
    reader_.read(tensor, chunk, buffer, bytes);
  }

 private:
  R reader_;
};

// Opens a Megatron checkpoint: SRC is its root (latest_checkpointed_iteration.txt names the
// iteration) or one iter_NNNNNNN folder; its layout is detected (torch_dist: `.metadata`;
// legacy: mp_rank_* folders); a torch_dist folder's common.pt gives saved_args.
// Throws sdk::Error naming the path and what was expected there.
std::unique_ptr<ChunkSource> open_megatron(const std::string& path);

}  // namespace dopant::megatron_hf
