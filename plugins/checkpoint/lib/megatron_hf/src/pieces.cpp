// Cutting an output box into contiguous byte ranges of stored chunks (see pieces.hpp).
//
// The box [begin, begin + size) of the view V is a set of runs, each contiguous in V's
// row-major order: with r the last dimension the box does not cover whole, a run is
// size[r] x prod(V[r+1:]) elements, one per index of the box's dimensions before r. As V is
// a reshape of the source, a run is also a linear range of the source's elements. That range
// is then cut where it leaves a chunk: with m the last dimension a chunk does not cover
// whole, elements stay contiguous in the chunk until index m reaches the chunk's end.
#include "dopant/megatron_hf/pieces.hpp"

#include <dopant/sdk/errors.hpp>
#include <dopant/sdk/tensors.hpp>
#include <dopant/support/text.hpp>

#include <algorithm>

namespace dopant::megatron_hf {
namespace {

using Chunk = sdk::CheckpointListing::Chunk;

bool contains(const Chunk& chunk, const std::vector<int64_t>& index) {
  for (size_t d = 0; d < index.size(); ++d) {
    if (index[d] < chunk.offsets[d] || index[d] >= chunk.offsets[d] + chunk.sizes[d]) return false;
  }
  return true;
}

}  // namespace

std::vector<Piece> plan_pieces(const OutputTensor& out, const std::vector<int64_t>& shape,
                               const std::vector<Chunk>& chunks) {
  const uint64_t element = sdk::element_bytes(out.dtype);
  const size_t k = out.view.size(), n = shape.size();
  // r: the last view dimension the box does not cover whole (k when it covers all)
  size_t r = k;
  for (size_t d = k; d-- > 0;) {
    if (out.size[d] != out.view[d]) {
      r = d;
      break;
    }
  }
  uint64_t run = 1;  // elements per run
  for (size_t d = (r == k ? 0 : r); d < k; ++d) run *= static_cast<uint64_t>(d == r ? out.size[d] : out.view[d]);

  std::vector<Piece> pieces;
  std::vector<int64_t> outer(r == k ? 0 : r, 0);  // index within the box's dimensions before r
  std::vector<int64_t> index(n);
  size_t last = 0;  // the chunk found last: the next run is usually in it
  uint64_t out_offset = 0;
  for (bool more = run > 0; more;) {
    // the run's first element, linear in the view (= linear in the source)
    uint64_t linear = 0;
    for (size_t d = 0; d < k; ++d) {
      const int64_t at = d < outer.size() ? out.begin[d] + outer[d] : out.begin[d];
      linear = linear * static_cast<uint64_t>(out.view[d]) + static_cast<uint64_t>(at);
    }
    for (uint64_t left = run; left > 0;) {
      uint64_t rest = linear;
      for (size_t d = n; d-- > 0;) {
        index[d] = static_cast<int64_t>(rest % static_cast<uint64_t>(shape[d]));
        rest /= static_cast<uint64_t>(shape[d]);
      }
      if (last >= chunks.size() || !contains(chunks[last], index)) {
        last = 0;
        while (last < chunks.size() && !contains(chunks[last], index)) ++last;
        if (last == chunks.size()) {
          sdk::fail(DPT_DATA_LOSS, "HF tensor " + quote_name(out.name) + ": element " + std::to_string(linear) +
                                       " of its source is in no stored chunk");
        }
      }
      const Chunk& chunk = chunks[last];
      // contiguous elements from `index` within the chunk
      size_t m = n;
      for (size_t d = n; d-- > 0;) {
        if (chunk.sizes[d] != shape[d]) {
          m = d;
          break;
        }
      }
      uint64_t local = 0, trailing = 1, within = 0;
      for (size_t d = 0; d < n; ++d) local = local * uint64_t(chunk.sizes[d]) + uint64_t(index[d] - chunk.offsets[d]);
      uint64_t contiguous = 0;
      if (m == n) {
        uint64_t all = 1;
        for (int64_t e : chunk.sizes) all *= uint64_t(e);
        contiguous = all - local;
      } else {
        for (size_t d = m + 1; d < n; ++d) within = within * uint64_t(shape[d]) + uint64_t(index[d]);
        for (size_t d = m + 1; d < n; ++d) trailing *= uint64_t(shape[d]);
        contiguous = uint64_t(chunk.offsets[m] + chunk.sizes[m] - index[m]) * trailing - within;
      }
      const uint64_t take = std::min(contiguous, left);
      const Piece piece{last, local * element, out_offset, take * element};
      Piece* previous = pieces.empty() ? nullptr : &pieces.back();
      if (previous != nullptr && previous->chunk == piece.chunk &&
          previous->chunk_offset + previous->bytes == piece.chunk_offset &&
          previous->out_offset + previous->bytes == piece.out_offset) {
        previous->bytes += piece.bytes;
      } else {
        pieces.push_back(piece);
      }
      out_offset += piece.bytes;
      linear += take;
      left -= take;
    }
    // next index of the box's dimensions before r (odometer)
    more = false;
    for (size_t d = outer.size(); d-- > 0;) {
      if (++outer[d] < out.size[d]) {
        more = true;
        break;
      }
      outer[d] = 0;
    }
  }
  return pieces;
}

}  // namespace dopant::megatron_hf
