// A torch.save archive written the way PyTorch's PyTorchStreamWriter lays it out (see
// torch_archive_writer.hpp). Record formats from PKWARE's APPNOTE.TXT, little-endian.
#include "dopant/dcp/torch_archive_writer.hpp"

#include "dopant/dcp/torch_archive.hpp"

#include <dopant/sdk/errors.hpp>
#include <dopant/sdk/tensors.hpp>

#include <zlib.h>

#include <limits>

namespace dopant::dcp {
namespace {

constexpr uint32_t kLocalHeader = 0x04034b50;     // 30 bytes + name + extra
constexpr uint32_t kCentralHeader = 0x02014b50;   // 46 bytes + name
constexpr uint32_t kEndOfDirectory = 0x06054b50;  // 22 bytes
constexpr uint64_t kAlignment = 64;               // PyTorch aligns each entry's data
constexpr uint16_t kPaddingExtra = 0x4246;        // "FB", PyTorch's padding field
constexpr uint16_t kVersionNeeded = 20;           // 2.0: stored entries, no ZIP64

class Bytes {
 public:
  Bytes& le(uint64_t value, int bytes) {
    for (int i = 0; i < bytes; ++i) text.push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
    return *this;
  }
  Bytes& raw(std::string_view bytes) {
    text.append(bytes);
    return *this;
  }
  std::string text;
};

uint32_t crc32_of(const void* data, uint64_t bytes) {
  return static_cast<uint32_t>(::crc32_z(::crc32_z(0, nullptr, 0), static_cast<const Bytef*>(data), bytes));
}

}  // namespace

TorchArchiveWriter::TorchArchiveWriter(checkpoint_io::AppendFile& file, std::string archive)
    : file_(file), archive_(std::move(archive)), start_(file.size()) {}

void TorchArchiveWriter::add(std::string_view name, const void* data, uint64_t bytes) {
  const std::string full = archive_ + "/" + std::string(name);
  const uint64_t at = file_.size() - start_;
  if (bytes > std::numeric_limits<uint32_t>::max() || at > std::numeric_limits<uint32_t>::max()) {
    sdk::fail(DPT_INVALID_ARGUMENT, file_.path() + ": entry `" + full + "` lies past 4 GiB in its archive (ZIP64 is not written)");
  }
  // The padding makes the data start at a multiple of 64: header, name, the extra field's
  // own 4 bytes, then `padding` bytes.
  const uint64_t before = at + 30 + full.size() + 4;
  const uint64_t padding = (kAlignment - before % kAlignment) % kAlignment;
  const uint32_t crc = crc32_of(data, bytes);
  Bytes header;
  header.le(kLocalHeader, 4).le(kVersionNeeded, 2).le(0, 2).le(0, 2).le(0, 2).le(0, 2);  // flags, stored, time, date
  header.le(crc, 4).le(bytes, 4).le(bytes, 4).le(full.size(), 2).le(4 + padding, 2).raw(full);
  header.le(kPaddingExtra, 2).le(padding, 2).raw(std::string(padding, 'Z'));
  file_.append(header.text.data(), header.text.size());
  file_.append(data, bytes);
  entries_.push_back({full, crc, static_cast<uint32_t>(bytes), static_cast<uint32_t>(at)});
}

uint64_t TorchArchiveWriter::finish() {
  add("version", "3\n", 2);
  const uint64_t directory_at = file_.size() - start_;
  Bytes directory;
  for (const Entry& entry : entries_) {
    directory.le(kCentralHeader, 4).le(kVersionNeeded, 2).le(kVersionNeeded, 2).le(0, 2).le(0, 2).le(0, 2).le(0, 2);
    directory.le(entry.crc, 4).le(entry.size, 4).le(entry.size, 4).le(entry.name.size(), 2);
    directory.le(0, 2).le(0, 2).le(0, 2).le(0, 2).le(0, 4).le(entry.local_at, 4).raw(entry.name);  // no extra
  }
  if (directory_at + directory.text.size() > std::numeric_limits<uint32_t>::max()) {
    sdk::fail(DPT_INVALID_ARGUMENT, file_.path() + ": archive over 4 GiB (ZIP64 is not written)");
  }
  directory.le(kEndOfDirectory, 4).le(0, 2).le(0, 2).le(entries_.size(), 2).le(entries_.size(), 2);
  directory.le(directory.text.size(), 4).le(directory_at, 4).le(0, 2);
  file_.append(directory.text.data(), directory.text.size());
  return file_.size() - start_;
}

std::string tensor_pickle(DLDataType dtype, const std::vector<int64_t>& shape, std::string_view key) {
  const TorchDType* torch = torch_dtype(dtype);
  if (torch == nullptr) sdk::fail(DPT_INVALID_ARGUMENT, "torch.save: dtype " + sdk::dtype_name(dtype) + " has no torch storage");
  int64_t elements = 1;
  for (const int64_t extent : shape) elements *= extent;
  pickle::Writer p(2);
  p.global("torch._utils", "_rebuild_tensor_v2");
  p.mark();
  p.mark().string("storage").global("torch", torch->storage).string(key).string("cpu").integer(elements).tuple();
  p.persistent_id();
  p.integer(0);  // storage offset
  p.mark();
  for (const int64_t extent : shape) p.integer(extent);
  p.tuple();
  p.mark();  // row-major strides: stride[d] = product of shape[d+1..]
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
  for (const int64_t stride : strides) p.integer(stride);
  p.tuple();
  p.boolean(false);  // requires_grad
  p.global("collections", "OrderedDict").empty_tuple().reduce();  // backward hooks
  p.tuple().reduce();
  return p.finish();
}

}  // namespace dopant::dcp
