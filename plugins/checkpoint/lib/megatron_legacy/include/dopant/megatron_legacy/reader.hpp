// Reading a Megatron legacy checkpoint without Python: `latest_checkpointed_iteration.txt`
// (an iteration number or "release") names the folder `iter_XXXXXXX` (or `release`), which
// holds one `mp_rank_TT[_PPP][_EEE]/model_optim_rng.pt` per tensor-, pipeline- and
// expert-parallel rank. Each is a torch.save archive (read by dopant_dcp's archive reader and
// the safe pickle reader) whose `model` (or `model0`, `model1`, ... under a virtual pipeline)
// holds the rank's part of each parameter. The reader merges the ranks into the global
// tensors a single-rank checkpoint would hold:
// - TP: each rank's part is a chunk of the global tensor, at its offset along the axis
//   Megatron splits that parameter (parameter_names.hpp); a parameter every rank holds whole
//   is one chunk, from TP rank 0. A gated linear_fc1 (args.swiglu) is global [gate; up]
//   and rank r holds [gate_r; up_r]: it is listed as two chunks per rank, gate_r at row
//   r·g and up_r at row G + r·g (g rows per rank's half, G = the global gate rows), so the
//   global tensor is [gate; up] as with TP 1, and a converter splits it at row G.
// - PP: stage p's layers are numbered from 0 in each model chunk; they are renumbered
//   by counting the layers of each (virtual chunk, stage) in Megatron's order (chunk-major).
// - EP: expert rank e's experts are numbered from 0; they become e·(experts per rank) + n.
//   Everything else is the same on every expert rank and is read from expert rank 0.
// Each chunk is a byte range of a rank file (torch.save stores its entries uncompressed), so
// reads are positioned I/O. Nothing in the files is trusted: each inconsistency is an
// sdk::Error naming the file and the tensor.
#pragma once

#include <dopant/checkpoint_io/input_file.hpp>
#include <dopant/sdk/checkpoint.hpp>

#include <deque>
#include <string>
#include <vector>

namespace dopant::megatron_legacy {

class Reader {
 public:
  // `path`: the checkpoint's root (with latest_checkpointed_iteration.txt) or one
  // iter_XXXXXXX / release folder.
  explicit Reader(const std::string& path);

  // Global tensors and their chunks; metadata holds `format`, `iteration`,
  // `checkpoint_version`, `folder` (the iteration folder read) and each scalar of the
  // saved args as `args.NAME` (e.g. args.num_attention_heads).
  const sdk::CheckpointListing& listing() const { return listing_; }
  // Reads one chunk's raw bytes (row-major over its sizes) into `buffer` ([any-thread]).
  void read(uint64_t tensor, uint64_t chunk, void* buffer, uint64_t bytes) const;

 private:
  sdk::CheckpointListing listing_;
  std::deque<checkpoint_io::InputFile> files_;  // one per rank
  std::vector<std::vector<size_t>> file_of_;    // [tensor][chunk] -> index into files_
};

// Whether `path` looks like a legacy checkpoint (its root or an iteration folder), without
// reading the rank files: for format detection.
bool looks_like_legacy_checkpoint(const std::string& path);

}  // namespace dopant::megatron_legacy
