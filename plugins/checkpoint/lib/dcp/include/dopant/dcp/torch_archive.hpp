// The zip archives torch.save writes (a DCP .distcp file holds one per stored item): the
// entries are stored uncompressed, so each one is a byte range of the file that can be read
// in place. Only the central directory is trusted for sizes (PyTorch sets the "data
// descriptor" flag, so local headers may hold zeros); ZIP64 records are followed.
#pragma once

#include <dopant/checkpoint_io/input_file.hpp>

#include <cstdint>
#include <map>
#include <string>

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

}  // namespace dopant::dcp
