// The `gather` strategy (see convert.hpp): every source tensor the plan uses is assembled
// whole in memory from its chunks, as a loader that materializes the checkpoint does; then
// each task's HF tensors are cut out of memory and written.
#include "dopant/megatron_hf/pieces.hpp"
#include "dopant/megatron_hf/strategies.hpp"

#include <dopant/sdk/tensors.hpp>

#include <cstring>
#include <map>
#include <memory>

namespace dopant::megatron_hf {
namespace {

using Chunk = sdk::CheckpointListing::Chunk;

// One chunk covering the whole tensor: how a tensor held in memory is "stored".
std::vector<Chunk> whole(const std::vector<int64_t>& shape) {
  Chunk chunk;
  chunk.offsets.assign(shape.size(), 0);
  chunk.sizes = shape;
  return {chunk};
}

}  // namespace

void convert_gather(const ChunkSource& source, const std::vector<OutputTensor>& plan, const std::vector<Task>& tasks,
                    safetensors::Writer& writer, const ConvertOptions& options) {
  const auto& tensors = source.listing().tensors;
  std::map<uint64_t, std::unique_ptr<char[]>> held;  // source index → the whole tensor
  for (const OutputTensor& out : plan) {
    if (held.count(out.source) != 0) continue;
    check_cancelled(options);
    const auto& tensor = tensors[out.source];
    uint64_t bytes = sdk::element_bytes(tensor.dtype);
    for (int64_t extent : tensor.shape) bytes *= static_cast<uint64_t>(extent);
    auto data = std::make_unique<char[]>(bytes);
    const std::vector<Chunk> all = whole(tensor.shape);
    for (uint64_t c = 0; c < tensor.chunks.size(); ++c) {
      const Chunk& chunk = tensor.chunks[c];
      auto stored = std::make_unique<char[]>(chunk.byte_length);
      source.read(out.source, c, stored.get(), chunk.byte_length);
      // the chunk's box within the tensor, as an "output" cut from the whole tensor
      OutputTensor box{tensor.name, out.source, tensor.dtype, chunk.sizes, tensor.shape, chunk.offsets, chunk.sizes, 0};
      for (const Piece& piece : plan_pieces(box, tensor.shape, all)) {
        std::memcpy(data.get() + piece.chunk_offset, stored.get() + piece.out_offset, piece.bytes);
      }
    }
    held.emplace(out.source, std::move(data));
  }

  uint64_t done = 0, total = 0;
  for (const Task& task : tasks) total += task.bytes;
  for (const Task& task : tasks) {
    check_cancelled(options);
    auto data = std::make_unique<char[]>(task.bytes);
    uint64_t at = 0;
    for (size_t index : task.tensors) {
      const OutputTensor& out = plan[index];
      for (const Piece& piece : plan_pieces(out, tensors[out.source].shape, whole(tensors[out.source].shape))) {
        std::memcpy(data.get() + at + piece.out_offset, held.at(out.source).get() + piece.chunk_offset, piece.bytes);
      }
      at += out.bytes;
    }
    add_task(writer, plan, task, data.get());
    done += task.bytes;
    if (options.progress) options.progress(done, total);
  }
}

}  // namespace dopant::megatron_hf
