// Checks of "dopant.checkpoint/1" plugins: named fp32 host tensors written to a fresh
// destination read back chunk by chunk with the same names, dtypes, shapes and bytes; the
// destination appears only at finalize, and an aborted writer leaves nothing behind; an existing destination and a buffer too small for
// a chunk are refused. A read-only format (writer_begin says DPT_UNIMPLEMENTED) skips them,
// since without a writer there is nothing of known content to read.
#include <dopant/checkpoint.h>

#include "outcome.hpp"
#include "registry.hpp"

#include <dopant/sdk/tensors.hpp>

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

namespace dopant::conformance {

namespace {

// Two fp32 tensors: `alpha` [3] and `layers.0.beta` [2, 2].
struct Sample {
  std::vector<float> alpha = {1.5f, -2.0f, 3.25f};
  std::vector<float> beta = {0.0f, -0.0f, 1e-30f, 7.0f};
  int64_t alpha_shape[1] = {3}, alpha_strides[1] = {1};
  int64_t beta_shape[2] = {2, 2}, beta_strides[2] = {2, 1};
  DLTensor tensors[2] = {
      {alpha.data(), {kDLCPU, 0}, 1, sdk::kFloat32, alpha_shape, alpha_strides, 0},
      {beta.data(), {kDLCPU, 0}, 2, sdk::kFloat32, beta_shape, beta_strides, 0}};
  const char* names[2] = {"alpha", "layers.0.beta"};
};

// The plugin under test, a fresh folder for it to write in, and its table.
struct Setup {
  explicit Setup(const Target& target) : checkpoint(target) {}
  const dpt_checkpoint_v1& table() const { return checkpoint.table<dpt_checkpoint_v1>(); }
  dpt_instance* handle() const { return checkpoint.handle(); }
  std::string destination() const { return (folder.path() / "checkpoint").string(); }
  PluginInstance checkpoint;
  FreshFolder folder;
};

// True when the plugin's writer_begin answers DPT_UNIMPLEMENTED: a read-only format.
bool read_only(const dpt_checkpoint_v1& table, dpt_instance* handle, const FreshFolder& folder) {
  const std::string destination = (folder.path() / "probe").string();
  dpt_checkpoint_begin_args begin{DPT_CHECKPOINT_BEGIN_ARGS_SIZE_1_6, nullptr, destination.c_str(), 0,
                                  nullptr, nullptr, nullptr};
  const Outcome outcome = take(table.writer_begin(handle, &begin));
  if (!outcome.failed) table.writer_abort(handle, begin.writer);
  return outcome.code == DPT_UNIMPLEMENTED;
}

// Begins a writer at `destination` and adds the sample; "" or the first failure.
std::string write_sample(const dpt_checkpoint_v1& table, dpt_instance* handle, const std::string& destination,
                         const Sample& sample, dpt_checkpoint_writer** writer) {
  dpt_checkpoint_begin_args begin{DPT_CHECKPOINT_BEGIN_ARGS_SIZE_1_6, nullptr, destination.c_str(), 0,
                                  nullptr, nullptr, nullptr};
  const std::string begun = ok_or_message(table.writer_begin(handle, &begin));
  *writer = begin.writer;
  if (!begun.empty()) return "writer_begin: " + begun;
  for (int i = 0; i < 2; ++i) {
    const dpt_checkpoint_add_args add{DPT_CHECKPOINT_ADD_ARGS_SIZE_1_6, nullptr, begin.writer, sample.names[i],
                                      &sample.tensors[i]};
    const std::string added = ok_or_message(table.writer_add(handle, &add));
    if (!added.empty()) return "writer_add: " + added;
  }
  return "";
}

// Writes the sample to `destination`, finalizes it and opens a reader on it; "" or the
// first failure (a writer that failed before finalize is aborted).
std::string write_and_open(const dpt_checkpoint_v1& table, dpt_instance* handle, const std::string& destination,
                           const Sample& sample, dpt_checkpoint_reader** reader) {
  dpt_checkpoint_writer* writer = nullptr;
  const std::string written = write_sample(table, handle, destination, sample, &writer);
  if (!written.empty()) {
    table.writer_abort(handle, writer);
    return written;
  }
  const dpt_checkpoint_finalize_args finalize{DPT_CHECKPOINT_FINALIZE_ARGS_SIZE_1_6, nullptr, writer};
  const std::string finalized = ok_or_message(table.writer_finalize(handle, &finalize));
  if (!finalized.empty()) return "writer_finalize: " + finalized;
  if (!std::filesystem::exists(destination)) return "finalize left nothing at " + destination;
  dpt_checkpoint_open_args open{DPT_CHECKPOINT_OPEN_ARGS_SIZE_1_6, nullptr, destination.c_str(), nullptr};
  const std::string opened = ok_or_message(table.reader_open(handle, &open));
  *reader = open.reader;
  return opened.empty() ? "" : "reader_open: " + opened;
}

// The sample written, finalized, opened and listed.
struct Written {
  Sample sample;
  dpt_checkpoint_reader* reader = nullptr;
  dpt_checkpoint_list_args list{};
};

// Fills `written`; "" or the first failure (the reader is closed then).
std::string write_and_list(const Setup& setup, Written& written) {
  const auto& table = setup.table();
  std::string failure = write_and_open(table, setup.handle(), setup.destination(), written.sample, &written.reader);
  if (failure.empty()) {
    written.list = dpt_checkpoint_list_args{DPT_CHECKPOINT_LIST_ARGS_SIZE_1_6, nullptr, written.reader, 0, nullptr,
                                            0, nullptr, nullptr};
    const std::string listed = ok_or_message(table.reader_list(setup.handle(), &written.list));
    if (!listed.empty()) failure = "reader_list: " + listed;
  }
  if (!failure.empty()) table.reader_close(setup.handle(), written.reader);
  return failure;
}

// Why a check cannot run: "" when it can, kReadOnly for a format without a writer (the
// check is skipped), else the failure.
constexpr const char* kReadOnly = "a format without a writer (read-only, or a conversion strategy)";
std::string prepare(const Setup& setup) {
  if (!setup.checkpoint.ok()) return "the plugin has no instance";
  if (setup.folder.path().empty()) return "cannot create a temporary directory";
  return read_only(setup.table(), setup.handle(), setup.folder) ? kReadOnly : "";
}

// The whole tensor `index` of an open reader, assembled from its chunks (fp32 only).
std::vector<float> read_whole(const dpt_checkpoint_v1& table, dpt_instance* handle,
                              dpt_checkpoint_reader* reader, uint64_t index, const dpt_checkpoint_tensor& tensor) {
  int64_t count = 1;
  for (int d = 0; d < tensor.ndim; ++d) count *= tensor.shape[d];
  std::vector<float> whole(static_cast<size_t>(count), -1.0f);
  for (uint64_t c = 0; c < tensor.chunk_count; ++c) {
    const dpt_checkpoint_chunk& chunk = *tensor.chunks[c];
    std::vector<float> part(chunk.byte_length / sizeof(float));
    const dpt_checkpoint_read_args read{DPT_CHECKPOINT_READ_ARGS_SIZE_1_6, nullptr, reader, index, c,
                                        part.data(), chunk.byte_length};
    EXPECT_EQ("", ok_or_message(table.reader_read(handle, &read))) << tensor.name << " chunk " << c;
    // Scatter the chunk (row-major over its sizes) into the row-major whole.
    for (size_t e = 0; e < part.size(); ++e) {
      size_t rest = e, global = 0, stride = 1;
      std::vector<int64_t> at(static_cast<size_t>(tensor.ndim));
      for (int d = tensor.ndim - 1; d >= 0; --d) {
        at[d] = chunk.offsets[d] + static_cast<int64_t>(rest % static_cast<size_t>(chunk.sizes[d]));
        rest /= static_cast<size_t>(chunk.sizes[d]);
      }
      for (int d = tensor.ndim - 1; d >= 0; --d) {
        global += static_cast<size_t>(at[d]) * stride;
        stride *= static_cast<size_t>(tensor.shape[d]);
      }
      whole[global] = part[e];
    }
  }
  return whole;
}

void check_round_trip(const Target& target) {
  const Setup setup(target);
  const std::string state = prepare(setup);
  if (state == kReadOnly) GTEST_SKIP() << state;
  ASSERT_EQ("", state);
  const auto& table = setup.table();
  Written written;
  ASSERT_EQ("", write_and_list(setup, written));
  const Sample& sample = written.sample;
  const dpt_checkpoint_list_args& list = written.list;
  dpt_checkpoint_reader* reader = written.reader;
  std::map<std::string, uint64_t> index_of;
  for (uint64_t i = 0; i < list.tensor_count; ++i) index_of[list.tensors[i]->name] = i;
  EXPECT_EQ(index_of.size(), 2u);
  for (int i = 0; i < 2; ++i) {
    const auto found = index_of.find(sample.names[i]);
    if (found == index_of.end()) {
      ADD_FAILURE() << "`" << sample.names[i] << "` missing after read";
      continue;
    }
    const dpt_checkpoint_tensor& tensor = *list.tensors[found->second];
    const DLTensor& expected = sample.tensors[i];
    EXPECT_EQ(sdk::dtype_name(tensor.dtype), "fp32") << sample.names[i];
    EXPECT_EQ(std::vector<int64_t>(tensor.shape, tensor.shape + tensor.ndim),
              std::vector<int64_t>(expected.shape, expected.shape + expected.ndim))
        << sample.names[i];
    const float* data = static_cast<const float*>(expected.data);
    const std::vector<float> whole = read_whole(table, setup.handle(), reader, found->second, tensor);
    const std::vector<float> wanted(data, data + whole.size());
    // Bytes, not values: -0.0 and 0.0 must stay apart.
    EXPECT_EQ(0, std::memcmp(whole.data(), wanted.data(), whole.size() * sizeof(float))) << sample.names[i];
  }
  table.reader_close(setup.handle(), reader);
}

void check_abort_leaves_nothing(const Target& target) {
  const Setup setup(target);
  const std::string state = prepare(setup);
  if (state == kReadOnly) GTEST_SKIP() << state;
  ASSERT_EQ("", state);
  const auto& table = setup.table();
  const Sample sample;
  dpt_checkpoint_writer* writer = nullptr;
  const std::string written =
      write_sample(table, setup.handle(), setup.destination(), sample, &writer);
  // Atomic: a writer holding every tensor shows nothing at its destination before finalize
  // (write_and_open checks that finalize then makes it).
  const bool visible = std::filesystem::exists(setup.destination());
  table.writer_abort(setup.handle(), writer);
  ASSERT_EQ("", written);
  EXPECT_FALSE(visible) << "the destination appeared before finalize";
  EXPECT_TRUE(std::filesystem::is_empty(setup.folder.path())) << "an aborted writer left files in " << setup.folder.path();
}

void check_existing_destination_is_refused(const Target& target) {
  const Setup setup(target);
  const std::string state = prepare(setup);
  if (state == kReadOnly) GTEST_SKIP() << state;
  ASSERT_EQ("", state);
  const auto& table = setup.table();
  const std::string destination = setup.destination();
  std::ofstream(destination) << "keep me";
  dpt_checkpoint_begin_args begin{DPT_CHECKPOINT_BEGIN_ARGS_SIZE_1_6, nullptr, destination.c_str(), 0,
                                  nullptr, nullptr, nullptr};
  const Outcome outcome = take(table.writer_begin(setup.handle(), &begin));
  if (!outcome.failed) table.writer_abort(setup.handle(), begin.writer);
  EXPECT_EQ(outcome.code, DPT_ALREADY_EXISTS) << outcome.message;
  std::ifstream kept(destination);
  const std::string content((std::istreambuf_iterator<char>(kept)), std::istreambuf_iterator<char>());
  EXPECT_EQ(content, "keep me");
}

void check_short_buffer_is_refused(const Target& target) {
  const Setup setup(target);
  const std::string state = prepare(setup);
  if (state == kReadOnly) GTEST_SKIP() << state;
  ASSERT_EQ("", state);
  const auto& table = setup.table();
  Written written;
  ASSERT_EQ("", write_and_list(setup, written));
  const dpt_checkpoint_list_args& list = written.list;
  dpt_checkpoint_reader* reader = written.reader;
  if (list.tensor_count > 0 && list.tensors[0]->chunk_count > 0) {
    std::vector<char> buffer(list.tensors[0]->chunks[0]->byte_length, 'x');
    const dpt_checkpoint_read_args read{DPT_CHECKPOINT_READ_ARGS_SIZE_1_6, nullptr, reader, 0, 0,
                                        buffer.data(), buffer.size() - 1};
    EXPECT_EQ(take(table.reader_read(setup.handle(), &read)).code, DPT_INVALID_ARGUMENT);
    EXPECT_EQ(buffer.back(), 'x') << "a refused read wrote into the buffer";
  } else {
    ADD_FAILURE() << "the checkpoint lists no chunk";
  }
  table.reader_close(setup.handle(), reader);
}

}  // namespace

void register_checkpoint_checks(const Target& target) {
  add_check(target, "checkpoint_round_trip", [target] { check_round_trip(target); });
  add_check(target, "checkpoint_abort_leaves_nothing", [target] { check_abort_leaves_nothing(target); });
  add_check(target, "checkpoint_existing_destination_is_refused",
            [target] { check_existing_destination_is_refused(target); });
  add_check(target, "checkpoint_short_buffer_is_refused", [target] { check_short_buffer_is_refused(target); });
}

}  // namespace dopant::conformance
