// The `stream` strategy (see convert.hpp). The output is planned before any byte is read:
// the writer is told every HF tensor in task order (the order in which `gather` adds them,
// so both lay out the same shards) and creates each shard at its final size with its
// header. Workers then take tasks, largest first, from a shared counter, and copy each
// task's pieces from the stored chunks' files straight to their final place in the shards
// (Writer::copy: copy_file_range, in the kernel, in blocks of kCopyBlockBytes), in file
// order within a task. Nothing is held in this process's memory; each byte is written once.
// Between blocks a worker polls the cancel predicate and stops once another worker failed;
// the first failure is rethrown, and the writer, never finalized, removes its folder.
//
// Across ranks (options.comm), every rank makes the same plan and tasks from the same
// listing; rank 0's writer creates the shards and broadcasts its folder, the others join
// it, and rank r copies tasks r, r + size, ... (largest first, dealt round-robin). Each
// rank fsyncs what it put; then all agree, by a sum of failures, whether every rank
// succeeded, and all throw if one did not (rank 0's writer then removes the folder).
#include "dopant/megatron_hf/pieces.hpp"
#include "dopant/megatron_hf/ranks.hpp"
#include "dopant/megatron_hf/strategies.hpp"

#include <dopant/checkpoint_io/input_file.hpp>
#include <dopant/sdk/errors.hpp>
#include <dopant/sdk/tensors.hpp>
#include <dopant/support/text.hpp>

#include <algorithm>
#include <atomic>
#include <exception>
#include <map>
#include <mutex>
#include <thread>

namespace dopant::megatron_hf {
namespace {

// Bytes copied between two polls of the cancel predicate.
constexpr uint64_t kCopyBlockBytes = 64ull << 20;

// One piece of a task: a byte range of a chunk's file and where it goes in the output.
struct Copy {
  const checkpoint_io::InputFile* file;
  uint64_t offset, bytes;
  size_t tensor;        // index in the writer's plan
  uint64_t out_offset;  // bytes from that tensor's first byte
};

}  // namespace

void convert_stream(const ChunkSource& source, const std::vector<OutputTensor>& plan, const std::vector<Task>& tasks,
                    safetensors::Writer& writer, const ConvertOptions& options) {
  const auto& tensors = source.listing().tensors;
  // Every file a planned tensor is stored in, opened once; each chunk checked to be a plain
  // row-major byte range, as reading part of it in place requires.
  std::map<std::string, checkpoint_io::InputFile> files;
  for (const OutputTensor& out : plan) {
    for (const auto& chunk : tensors[out.source].chunks) {
      uint64_t bytes = sdk::element_bytes(out.dtype);
      for (int64_t extent : chunk.sizes) bytes *= static_cast<uint64_t>(extent);
      if (bytes != chunk.byte_length) {
        sdk::fail(DPT_DATA_LOSS, chunk.file + ": a chunk of " + quote_name(tensors[out.source].name) + " holds " +
                                     std::to_string(chunk.byte_length) + " bytes, but its box needs " +
                                     std::to_string(bytes));
      }
      if (files.count(chunk.file) == 0) files.emplace(chunk.file, checkpoint_io::InputFile(chunk.file));
    }
  }
  Ranks ranks(options.host, options.comm);
  const std::vector<safetensors::Writer::Planned> order = writing_order(plan, tasks);
  std::exception_ptr failure;  // this rank's first failure
  std::string folder;          // rank 0's, where every rank puts its share
  if (ranks.rank() == 0) {
    try {
      writer.plan(order);
      folder = writer.folder();
    } catch (...) {
      failure = std::current_exception();
    }
  }
  folder = ranks.broadcast(folder, 0);
  if (failure) std::rethrow_exception(failure);
  if (folder.empty()) sdk::fail(DPT_INTERNAL, "rank 0 could not lay out the output; nothing was written");

  // first[t]: the writer's index of task t's first tensor (its tensors follow in order).
  std::vector<size_t> first(tasks.size() + 1, 0);
  for (size_t t = 0; t < tasks.size(); ++t) first[t + 1] = first[t] + tasks[t].tensors.size();
  std::vector<size_t> mine;  // this rank's tasks, largest first
  uint64_t total = 0;
  for (size_t t = ranks.rank(); t < tasks.size(); t += ranks.size()) {
    mine.push_back(t);
    total += tasks[t].bytes;
  }

  std::atomic<size_t> next{0};
  std::atomic<bool> stop{false};
  std::mutex mutex;  // guards failure, done and the progress callback
  uint64_t done = 0;

  const auto copy_task = [&](size_t t) {
    const Task& task = tasks[t];
    std::vector<Copy> copies;
    for (size_t k = 0; k < task.tensors.size(); ++k) {
      const OutputTensor& out = plan[task.tensors[k]];
      const auto& chunks = tensors[out.source].chunks;
      for (const Piece& piece : plan_pieces(out, tensors[out.source].shape, chunks)) {
        const auto& chunk = chunks[piece.chunk];
        copies.push_back({&files.at(chunk.file), chunk.byte_offset + piece.chunk_offset, piece.bytes, first[t] + k,
                          piece.out_offset});
      }
    }
    // In file order: a task's tensors come from all over a file.
    std::sort(copies.begin(), copies.end(), [](const Copy& a, const Copy& b) {
      return a.file != b.file ? a.file->path() < b.file->path() : a.offset < b.offset;
    });
    for (const Copy& copy : copies) {
      for (uint64_t at = 0; at < copy.bytes; at += kCopyBlockBytes) {
        if (stop) return;
        check_cancelled(options);
        const uint64_t bytes = std::min(kCopyBlockBytes, copy.bytes - at);
        writer.copy(copy.tensor, copy.out_offset + at, *copy.file, copy.offset + at, bytes);
        const std::lock_guard<std::mutex> lock(mutex);
        done += bytes;
        if (options.progress) options.progress(done, total);
      }
    }
  };
  const auto work = [&] {
    for (size_t i = next++; i < mine.size() && !stop; i = next++) {
      try {
        copy_task(mine[i]);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(mutex);
        if (!failure) failure = std::current_exception();
        stop = true;
      }
    }
  };
  uint64_t put = 0;  // bytes a joined rank put, fsynced
  try {
    if (ranks.rank() != 0) writer.join(folder, order);
    std::vector<std::thread> workers;
    for (unsigned w = 1; w < std::max(1u, options.workers); ++w) workers.emplace_back(work);
    work();
    for (std::thread& worker : workers) worker.join();
    if (!failure && ranks.rank() != 0) put = writer.sync_put();
  } catch (...) {
    if (!failure) failure = std::current_exception();
  }
  const uint64_t failed_ranks = ranks.sum(failure ? 1 : 0);
  const uint64_t put_elsewhere = ranks.sum(put);
  if (failure) std::rethrow_exception(failure);
  if (failed_ranks > 0) {
    sdk::fail(DPT_INTERNAL, std::to_string(failed_ranks) + " other rank(s) failed; nothing was written");
  }
  if (ranks.rank() == 0) writer.count_put_elsewhere(put_elsewhere);
}

}  // namespace dopant::megatron_hf
