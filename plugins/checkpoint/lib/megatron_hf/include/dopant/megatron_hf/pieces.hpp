// Where an HF tensor's bytes are stored: the box an OutputTensor names, cut into byte
// ranges each held contiguously by one stored chunk and landing contiguously in the output.
// Both strategies copy through these pieces: `gather` from whole tensors in memory (one
// chunk covering the tensor), `stream` straight from the chunk's file.
#pragma once

#include "dopant/megatron_hf/mapping.hpp"

#include <dopant/sdk/checkpoint.hpp>

#include <cstdint>
#include <vector>

namespace dopant::megatron_hf {

struct Piece {
  uint64_t chunk = 0;         // index into the chunks given
  uint64_t chunk_offset = 0;  // bytes from the chunk's first byte
  uint64_t out_offset = 0;    // bytes from the output tensor's first byte
  uint64_t bytes = 0;
};

// The pieces of `out`, in output order, neighbours merged. `shape` is the source tensor's
// global shape and `chunks` its stored boxes (row-major each). Throws sdk::Error when an
// element of the box is in no chunk.
std::vector<Piece> plan_pieces(const OutputTensor& out, const std::vector<int64_t>& shape,
                               const std::vector<sdk::CheckpointListing::Chunk>& chunks);

}  // namespace dopant::megatron_hf
