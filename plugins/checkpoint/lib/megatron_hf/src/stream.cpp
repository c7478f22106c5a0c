// The `stream` strategy (see convert.hpp): each task's HF tensors are read straight from the
// stored chunks, piece by piece, with pread at the chunk's byte offset in its file (a task's
// reads sorted by file offset): an expert's gate, up and down each come from their own
// byte range, never from a whole materialized tensor. Workers take tasks in order (largest
// first) from a shared counter and hand them to the writer in that same order, so the
// output matches `gather` byte for byte; a worker holds one task's buffer until it is
// written, which bounds memory by workers x the largest task. The first failure stops
// every worker and is rethrown.
#include "dopant/megatron_hf/pieces.hpp"
#include "dopant/megatron_hf/strategies.hpp"

#include <dopant/checkpoint_io/input_file.hpp>
#include <dopant/sdk/errors.hpp>
#include <dopant/sdk/tensors.hpp>
#include <dopant/support/text.hpp>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

namespace dopant::megatron_hf {
namespace {

struct Read {
  const checkpoint_io::InputFile* file;
  uint64_t offset, bytes;
  char* into;
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
  uint64_t total = 0;
  for (const Task& task : tasks) total += task.bytes;

  std::atomic<size_t> next_task{0};
  std::mutex mutex;
  std::condition_variable turn;
  size_t next_commit = 0;  // the task the writer takes next
  uint64_t done = 0;
  std::exception_ptr failure;

  const auto work = [&] {
    for (;;) {
      const size_t t = next_task.fetch_add(1);
      if (t >= tasks.size()) return;
      try {
        {
          const std::lock_guard<std::mutex> lock(mutex);
          if (failure) return;
        }
        const Task& task = tasks[t];
        const std::unique_ptr<char[]> data(new char[task.bytes]);  // every byte is read into
        // The task's reads, done in file order: a task's tensors come from all over a file.
        std::vector<Read> reads;
        uint64_t at = 0;
        for (size_t index : task.tensors) {
          const OutputTensor& out = plan[index];
          const auto& chunks = tensors[out.source].chunks;
          for (const Piece& piece : plan_pieces(out, tensors[out.source].shape, chunks)) {
            const auto& chunk = chunks[piece.chunk];
            reads.push_back({&files.at(chunk.file), chunk.byte_offset + piece.chunk_offset, piece.bytes,
                             data.get() + at + piece.out_offset});
          }
          at += out.bytes;
        }
        std::sort(reads.begin(), reads.end(), [](const Read& a, const Read& b) {
          return a.file != b.file ? a.file->path() < b.file->path() : a.offset < b.offset;
        });
        for (const Read& read : reads) read.file->read(read.into, read.bytes, read.offset);
        std::unique_lock<std::mutex> lock(mutex);
        turn.wait(lock, [&] { return next_commit == t || failure; });
        if (failure) return;
        add_task(writer, plan, task, data.get());
        ++next_commit;
        done += task.bytes;
        if (options.progress) options.progress(done, total);
        turn.notify_all();
      } catch (...) {
        const std::lock_guard<std::mutex> lock(mutex);
        if (!failure) failure = std::current_exception();
        turn.notify_all();
        return;
      }
    }
  };
  std::vector<std::thread> workers;
  for (unsigned w = 1; w < std::max(1u, options.workers); ++w) workers.emplace_back(work);
  work();
  for (std::thread& worker : workers) worker.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace dopant::megatron_hf
