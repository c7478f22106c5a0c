// The zip archives torch.save writes (a DCP .distcp file holds one per stored item): the
// entries are stored uncompressed, so each one is a byte range of the file that can be read
// in place. Only the central directory is trusted for sizes (PyTorch sets the "data
// descriptor" flag, so local headers may hold zeros); ZIP64 records are followed. The
// archive's data.pkl names each tensor as a `_rebuild_tensor_v2` call on a storage held in
// ARCHIVE/data/KEY; `stored_tensor` turns such a call into the tensor's byte range.
#pragma once

#include <dopant/checkpoint_io/input_file.hpp>
#include <dopant/pickle/pickle.hpp>

#include <dlpack/dlpack.h>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace dopant::dcp {

// An entry's bytes: where they start in the file and how many there are.
struct ArchiveEntry {
  uint64_t offset = 0;  // bytes, from the start of the file
  uint64_t length = 0;  // bytes
};

// The entries of the archive at [offset, offset + length) of `file`, by name. Refuses, with
// sdk::Error(DPT_DATA_LOSS) naming the file, an archive that is not a zip, a compressed
// entry, and any record or entry that reaches outside the range.
std::map<std::string, ArchiveEntry> archive_entries(const checkpoint_io::InputFile& file, uint64_t offset,
                                                    uint64_t length);

// A dtype as torch names it (`torch.NAME`) and as torch.save names its typed storage.
struct TorchDType {
  const char* name;     // torch.NAME
  const char* storage;  // torch.STORAGE
  DLDataType dl;
};
// The dtype named torch.`name`, or nullptr for one dopant does not read.
const TorchDType* torch_dtype(std::string_view name);
// The dtype whose DLPack type is `dtype`, or nullptr for one torch.save cannot store.
const TorchDType* torch_dtype(DLDataType dtype);

// One tensor of a torch.save archive, located in the file.
struct StoredTensor {
  const TorchDType* dtype = nullptr;  // from its storage's type
  std::vector<int64_t> shape;
  uint64_t byte_offset = 0;  // in the file, where its first element is
  uint64_t byte_length = 0;  // shape's elements x dtype size; the bytes are row-major
};
// Whether `node` is a tensor as data.pkl records it: a `torch._utils._rebuild_tensor_v2` call.
bool is_stored_tensor(const pickle::Node& node);
// Locates `call` (a `_rebuild_tensor_v2(("storage", torch.XStorage, key, location, numel),
// storage_offset, size, stride, ...)` of the data.pkl entry named `pickle_entry`) among the
// archive's `entries`. Refuses, with sdk::Error(DPT_DATA_LOSS) starting with `what`, a call of
// another shape, an unknown storage type, strides that are not row-major, and a storage entry
// that is missing or too small for the tensor.
StoredTensor stored_tensor(const pickle::Node& call, const std::map<std::string, ArchiveEntry>& entries,
                           const std::string& pickle_entry, const std::string& what);

}  // namespace dopant::dcp
