// dopant SDK — CheckpointAdapter<T>: the static dpt_checkpoint_v1 table of a C++ class
// whose readers and writers are C++ objects. The adapter owns the handles (a handle is a
// pointer to the object T returned), checks every args struct, and frees a writer after
// finalize whatever it returns. A reader-only format (no `begin`) gets writer slots that
// return DPT_UNIMPLEMENTED; a class with neither `open` nor `begin` (a conversion
// strategy) gets reader slots that do too. CheckpointConvertAdapter<T> gives a class with
// `void convert(dpt_checkpoint_convert_args& args)` (which fills the outputs) its
// "dopant.checkpoint.convert/1" table: describe<CheckpointAdapter<T>,
// &checkpoint_convert_extension<T>>(...).
//
//   class MyFormat {
//    public:
//     MyFormat(const dpt_host* host, const sdk::Config& config);
//     std::unique_ptr<Reader> open(const char* path);
//     std::unique_ptr<Writer> begin(const char* destination, const sdk::Metadata& metadata);
//   };
//   // Reader: const sdk::CheckpointListing& listing() const;   (built once, at open)
//   //         void read(uint64_t tensor, uint64_t chunk, void* buffer, uint64_t bytes) const;
//   //           ([any-thread]; the adapter has checked the indices and the buffer size)
//   // Writer: void add(const char* name, const DLTensor& tensor);
//   //         void finalize();   (then the writer is destroyed)
//   //         its destructor, without finalize, removes everything it wrote (abort).
#pragma once

#include <dopant/checkpoint.h>

#include "errors.hpp"
#include "instance.hpp"
#include "structs.hpp"

#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace dopant::sdk {

// Free-form key/value strings stored with a checkpoint, in order.
using Metadata = std::vector<std::pair<std::string, std::string>>;

// The listing a reader hands out: owning storage plus the ABI views over it. Build the
// tensors with add_tensor/add_chunk, then call seal() once; the views stay valid as long
// as the listing lives and is not changed.
class CheckpointListing {
 public:
  struct Chunk {
    std::vector<int64_t> offsets, sizes;  // elements, one per dimension
    std::string file;
    uint64_t byte_offset = 0, byte_length = 0;  // bytes
  };
  struct Tensor {
    std::string name;
    DLDataType dtype{};
    std::vector<int64_t> shape;  // global, elements
    std::vector<Chunk> chunks;
  };

  std::vector<Tensor> tensors;
  Metadata metadata;

  // Fills the ABI views from `tensors` and `metadata`.
  void seal() {
    chunk_views_.clear();
    tensor_views_.clear();
    chunk_pointers_.assign(tensors.size(), {});
    for (size_t t = 0; t < tensors.size(); ++t) {
      for (const Chunk& c : tensors[t].chunks) {
        chunk_views_.push_back(std::make_unique<dpt_checkpoint_chunk>(dpt_checkpoint_chunk{
            DPT_CHECKPOINT_CHUNK_SIZE_1_6, c.offsets.data(), c.sizes.data(), c.file.c_str(),
            c.byte_offset, c.byte_length}));
        chunk_pointers_[t].push_back(chunk_views_.back().get());
      }
    }
    for (size_t t = 0; t < tensors.size(); ++t) {
      const Tensor& tensor = tensors[t];
      tensor_views_.push_back(dpt_checkpoint_tensor{
          DPT_CHECKPOINT_TENSOR_SIZE_1_6, tensor.name.c_str(), tensor.dtype,
          static_cast<int32_t>(tensor.shape.size()), tensor.shape.data(),
          chunk_pointers_[t].size(), chunk_pointers_[t].data()});
    }
    tensor_pointers_.clear();
    for (const dpt_checkpoint_tensor& view : tensor_views_) tensor_pointers_.push_back(&view);
    keys_.clear();
    values_.clear();
    for (const auto& [key, value] : metadata) {
      keys_.push_back(key.c_str());
      values_.push_back(value.c_str());
    }
  }

  void write_to(dpt_checkpoint_list_args& args) const {
    args.tensor_count = tensor_pointers_.size();
    args.tensors = tensor_pointers_.data();
    args.metadata_count = keys_.size();
    args.metadata_keys = keys_.data();
    args.metadata_values = values_.data();
  }

 private:
  std::vector<std::unique_ptr<dpt_checkpoint_chunk>> chunk_views_;
  std::vector<std::vector<const dpt_checkpoint_chunk*>> chunk_pointers_;
  std::vector<dpt_checkpoint_tensor> tensor_views_;
  std::vector<const dpt_checkpoint_tensor*> tensor_pointers_;
  std::vector<const char*> keys_, values_;
};

namespace detail {
// The reader type of T's `open`, or void for a class that does not read.
template <typename T, typename = void>
struct checkpoint_reader {
  using type = void;
};
template <typename T>
struct checkpoint_reader<T, std::void_t<decltype(std::declval<T&>().open(""))>> {
  using type = typename decltype(std::declval<T&>().open(""))::element_type;
};
// The writer type of T's `begin`, or void for a reader-only format.
template <typename T, typename = void>
struct checkpoint_writer {
  using type = void;
};
template <typename T>
struct checkpoint_writer<T, std::void_t<decltype(std::declval<T&>().begin("", std::declval<const Metadata&>()))>> {
  using type = typename decltype(std::declval<T&>().begin("", std::declval<const Metadata&>()))::element_type;
};
}  // namespace detail

template <typename T>
struct CheckpointAdapter {
  using Table = dpt_checkpoint_v1;
  static constexpr const char* kind = DPT_KIND_CHECKPOINT;
  using Reader = typename detail::checkpoint_reader<T>::type;
  using Writer = typename detail::checkpoint_writer<T>::type;
  static constexpr bool reads = !std::is_void_v<Reader>;
  static constexpr bool writes = !std::is_void_v<Writer>;

  static dpt_error* reader_open(dpt_instance* handle, dpt_checkpoint_open_args* args) noexcept {
    return call_instance<T>(handle, [&]([[maybe_unused]] T& self, const dpt_host*) {
      const auto in = read_struct(args, DPT_CHECKPOINT_OPEN_ARGS_SIZE_1_6, "open args");
      args->reader = nullptr;
      if constexpr (!reads) fail(DPT_UNIMPLEMENTED, "this plugin converts checkpoints and reads none");
      require(in.path != nullptr, "reader_open: path is NULL");
      if constexpr (reads) args->reader = reinterpret_cast<dpt_checkpoint_reader*>(self.open(in.path).release());
    });
  }
  static dpt_error* reader_list(dpt_instance* handle, dpt_checkpoint_list_args* args) noexcept {
    return call_instance<T>(handle, [&](T&, const dpt_host*) {
      auto out = read_struct(args, DPT_CHECKPOINT_LIST_ARGS_SIZE_1_6, "list args");
      require(out.reader != nullptr, "reader_list: reader is NULL");
      if constexpr (reads) reader_of(out.reader).listing().write_to(out);
      write_struct(args, out, DPT_CHECKPOINT_LIST_ARGS_SIZE_1_6, "list args");
    });
  }
  static dpt_error* reader_read(dpt_instance* handle, const dpt_checkpoint_read_args* args) noexcept {
    return call_instance<T>(handle, [&](T&, const dpt_host*) {
      const auto in = read_struct(args, DPT_CHECKPOINT_READ_ARGS_SIZE_1_6, "read args");
      require(in.reader != nullptr && in.buffer != nullptr, "reader_read: reader and buffer must be non-NULL");
      if constexpr (reads) read_chunk(in);
    });
  }
  static void read_chunk(const dpt_checkpoint_read_args& in) {
    const Reader& reader = reader_of(in.reader);
    const auto& tensors = reader.listing().tensors;
    require(in.tensor_index < tensors.size(), "reader_read: tensor_index " +
                                                   std::to_string(in.tensor_index) + " is out of range");
    const auto& tensor = tensors[in.tensor_index];
    require(in.chunk_index < tensor.chunks.size(),
            "reader_read: chunk_index " + std::to_string(in.chunk_index) + " is out of range for `" +
                tensor.name + "`");
    const uint64_t needed = tensor.chunks[in.chunk_index].byte_length;
    require(in.buffer_bytes >= needed, "reader_read: buffer of " + std::to_string(in.buffer_bytes) +
                                           " bytes is smaller than chunk " + std::to_string(in.chunk_index) +
                                           " of `" + tensor.name + "` (" + std::to_string(needed) + " bytes)");
    reader.read(in.tensor_index, in.chunk_index, in.buffer, needed);
  }
  static void reader_close(dpt_instance* handle, dpt_checkpoint_reader* reader) noexcept {
    if (handle == nullptr || reader == nullptr) return;
    if constexpr (reads) {
      guard_and_log(instance_of<T>(handle)->host, "reader_close", [&] { delete &reader_of(reader); });
    }
  }

  static dpt_error* writer_begin(dpt_instance* handle, dpt_checkpoint_begin_args* args) noexcept {
    return call_instance<T>(handle, [&]([[maybe_unused]] T& self, const dpt_host*) {
      const auto in = read_struct(args, DPT_CHECKPOINT_BEGIN_ARGS_SIZE_1_6, "begin args");
      args->writer = nullptr;
      if constexpr (!writes) fail(DPT_UNIMPLEMENTED, "this checkpoint format is read-only");
      require(in.destination != nullptr, "writer_begin: destination is NULL");
      require(in.metadata_count == 0 || (in.metadata_keys != nullptr && in.metadata_values != nullptr),
              "writer_begin: metadata keys and values must be non-NULL");
      Metadata metadata;
      for (uint64_t i = 0; i < in.metadata_count; ++i) {
        require(in.metadata_keys[i] != nullptr && in.metadata_values[i] != nullptr,
                "writer_begin: metadata entry " + std::to_string(i) + " is NULL");
        metadata.emplace_back(in.metadata_keys[i], in.metadata_values[i]);
      }
      if constexpr (writes) {
        args->writer = reinterpret_cast<dpt_checkpoint_writer*>(self.begin(in.destination, metadata).release());
      }
    });
  }
  static dpt_error* writer_add(dpt_instance* handle, const dpt_checkpoint_add_args* args) noexcept {
    return call_instance<T>(handle, [&](T&, const dpt_host*) {
      const auto in = read_struct(args, DPT_CHECKPOINT_ADD_ARGS_SIZE_1_6, "add args");
      require(in.writer != nullptr && in.name != nullptr && in.tensor != nullptr,
              "writer_add: writer, name and tensor must be non-NULL");
      if constexpr (writes) writer_of(in.writer).add(in.name, *in.tensor);
    });
  }
  static dpt_error* writer_finalize(dpt_instance* handle, const dpt_checkpoint_finalize_args* args) noexcept {
    return call_instance<T>(handle, [&](T&, const dpt_host*) {
      const auto in = read_struct(args, DPT_CHECKPOINT_FINALIZE_ARGS_SIZE_1_6, "finalize args");
      require(in.writer != nullptr, "writer_finalize: writer is NULL");
      if constexpr (writes) {
        // Destroyed on every path: after a failed finalize its destructor removes what it wrote.
        const std::unique_ptr<Writer> writer(&writer_of(in.writer));
        writer->finalize();
      }
    });
  }
  static void writer_abort(dpt_instance* handle, dpt_checkpoint_writer* writer) noexcept {
    if (handle == nullptr || writer == nullptr) return;
    if constexpr (writes) {
      guard_and_log(instance_of<T>(handle)->host, "writer_abort", [&] { delete &writer_of(writer); });
    }
  }

  static constexpr dpt_checkpoint_v1 table{
      DPT_CHECKPOINT_V1_SIZE_1_6, &create_instance<T>, &destroy_instance<T>, &reader_open,
      &reader_list,              &reader_read,        &reader_close,        &writer_begin,
      &writer_add,               &writer_finalize,    &writer_abort};

 private:
  static auto& reader_of(dpt_checkpoint_reader* handle) { return *reinterpret_cast<Reader*>(handle); }
  static auto& writer_of(dpt_checkpoint_writer* handle) { return *reinterpret_cast<Writer*>(handle); }
};

template <typename T>
struct CheckpointConvertAdapter {
  static dpt_error* convert(dpt_instance* handle, dpt_checkpoint_convert_args* args) noexcept {
    return call_instance<T>(handle, [&](T& self, const dpt_host*) {
      auto copy = read_struct(static_cast<const dpt_checkpoint_convert_args*>(args),
                              DPT_CHECKPOINT_CONVERT_ARGS_SIZE_1_6, "convert args");
      require(copy.source != nullptr && copy.destination != nullptr && copy.from != nullptr && copy.to != nullptr &&
                  copy.model != nullptr,
              "convert: source, destination, from, to and model must be non-NULL");
      require(copy.setting_count == 0 || (copy.setting_keys != nullptr && copy.setting_values != nullptr),
              "convert: setting keys and values must be non-NULL");
      copy.tensors_written = copy.bytes_written = copy.files_written = 0;
      write_struct(args, copy, DPT_CHECKPOINT_CONVERT_ARGS_SIZE_1_6, "convert args");  // 0 on every failure
      self.convert(copy);
      write_struct(args, copy, DPT_CHECKPOINT_CONVERT_ARGS_SIZE_1_6, "convert args");
    });
  }
  static constexpr dpt_checkpoint_convert_v1 table{DPT_CHECKPOINT_CONVERT_V1_SIZE_1_6, &convert};
};

// The extension lookup of a checkpoint class that converts, for describe's second argument
// (internal linkage, as router_replay_extension).
template <typename T>
static const void* checkpoint_convert_extension(const char* id) {
  return std::strcmp(id, DPT_EXT_CHECKPOINT_CONVERT) == 0 ? &CheckpointConvertAdapter<T>::table : nullptr;
}

}  // namespace dopant::sdk
