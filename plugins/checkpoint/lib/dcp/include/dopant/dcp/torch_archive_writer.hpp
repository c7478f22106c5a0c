// Writing a torch.save archive as PyTorch does: a zip whose entries (ARCHIVE/data.pkl,
// ARCHIVE/data/KEY, ARCHIVE/version) are stored uncompressed, each entry's data aligned to
// 64 bytes from the archive's start by padding in an extra field (id "FB"), with CRC-32s,
// a central directory and an end record. The archive is appended to a file at its current
// end, as DCP's FileSystemWriter appends one torch.save per item to a .distcp file, so its
// offsets are counted from where it starts. Read back by torch_archive.hpp and by PyTorch.
#pragma once

#include <dopant/checkpoint_io/append_file.hpp>
#include <dopant/pickle/writer.hpp>

#include <dlpack/dlpack.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace dopant::dcp {

class TorchArchiveWriter {
 public:
  // Starts an archive at the end of `file`; entries are named "ARCHIVE/NAME".
  explicit TorchArchiveWriter(checkpoint_io::AppendFile& file, std::string archive = "archive");

  // Appends one entry. Entries over 4 GiB (which would need ZIP64) are refused.
  void add(std::string_view name, const void* data, uint64_t bytes);
  // Appends `version` ("3\n"), the central directory and the end record; returns the
  // archive's length in bytes.
  uint64_t finish();

 private:
  struct Entry {
    std::string name;
    uint32_t crc = 0;
    uint32_t size = 0;
    uint32_t local_at = 0;  // from the archive's start
  };
  checkpoint_io::AppendFile& file_;
  std::string archive_;
  uint64_t start_;
  std::vector<Entry> entries_;
};

// data.pkl of torch.save(tensor) for a contiguous tensor of `shape` whose `dtype` storage is
// entry data/`key`: `_rebuild_tensor_v2(("storage", torch.XStorage, key, "cpu", numel), 0,
// shape, row-major strides, False, OrderedDict())`, pickle protocol 2.
std::string tensor_pickle(DLDataType dtype, const std::vector<int64_t>& shape, std::string_view key);

}  // namespace dopant::dcp
