// read_fixture: the little-endian layout of make_adamw_fixture.py, field by field.
#include "adamw_fixture_file.hpp"

#include <bit>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <utility>

namespace dopant::adamw_kernels::testing {
namespace {

static_assert(std::endian::native == std::endian::little, "the fixture is little-endian");

class Cursor {
 public:
  explicit Cursor(std::vector<char> bytes) : bytes_(std::move(bytes)) {}

  template <typename T>
  T read() {
    T value;
    take(&value, sizeof value);
    return value;
  }
  std::vector<float> read_floats(size_t count) {
    std::vector<float> values(count);
    take(values.data(), count * sizeof(float));
    return values;
  }
  bool at_end() const { return offset_ == bytes_.size(); }

 private:
  void take(void* out, size_t size) {
    if (bytes_.size() - offset_ < size) throw std::runtime_error("AdamW fixture is truncated");
    std::memcpy(out, bytes_.data() + offset_, size);
    offset_ += size;
  }
  std::vector<char> bytes_;
  size_t offset_ = 0;
};

}  // namespace

Fixture read_fixture(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw std::runtime_error("cannot open AdamW fixture " + path);
  Cursor in(std::vector<char>(std::istreambuf_iterator<char>(file), {}));
  char magic[8];
  for (char& c : magic) c = in.read<char>();
  if (std::memcmp(magic, "DPTADAMW", 8) != 0 || in.read<uint32_t>() != 1) {
    throw std::runtime_error(path + " is not a version-1 AdamW fixture");
  }
  Fixture fixture{};
  fixture.steps = in.read<uint32_t>();
  fixture.seed = in.read<uint64_t>();
  fixture.groups.resize(in.read<uint32_t>());
  fixture.tensors.resize(in.read<uint32_t>());
  for (FixtureGroup& group : fixture.groups) {
    group = {in.read<double>(), in.read<double>(), in.read<double>(), in.read<double>(),
             in.read<double>()};
  }
  std::vector<uint32_t> numel;
  for (FixtureTensor& tensor : fixture.tensors) {
    tensor.group = in.read<uint32_t>();
    numel.push_back(in.read<uint32_t>());
    if (tensor.group >= fixture.groups.size()) throw std::runtime_error("bad fixture group");
  }
  for (size_t t = 0; t < fixture.tensors.size(); ++t) {
    FixtureTensor& tensor = fixture.tensors[t];
    tensor.initial_param = in.read_floats(numel[t]);
    tensor.final_param = in.read_floats(numel[t]);
    tensor.final_exp_avg = in.read_floats(numel[t]);
    tensor.final_exp_avg_sq = in.read_floats(numel[t]);
  }
  if (!in.at_end()) throw std::runtime_error("AdamW fixture has trailing bytes");
  return fixture;
}

}  // namespace dopant::adamw_kernels::testing
