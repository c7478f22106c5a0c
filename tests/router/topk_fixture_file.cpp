// read_topk_fixture: the little-endian layout of make_topk_fixture.py, read field by field.
#include "topk_fixture_file.hpp"

#include <cstring>
#include <fstream>
#include <stdexcept>

namespace dopant::router_tests {
namespace {

class Reader {
 public:
  explicit Reader(const std::string& path) : in_(path, std::ios::binary) {
    if (!in_) throw std::runtime_error("cannot open " + path);
  }
  template <typename T>
  std::vector<T> array(size_t count) {
    std::vector<T> values(count);
    in_.read(reinterpret_cast<char*>(values.data()), static_cast<std::streamsize>(count * sizeof(T)));
    if (!in_) throw std::runtime_error("topk fixture: file ends early");
    return values;
  }
  template <typename T>
  T value() { return array<T>(1)[0]; }

 private:
  std::ifstream in_;
};

}  // namespace

std::vector<TopkFixtureCase> read_topk_fixture(const std::string& path) {
  Reader in(path);
  const std::vector<char> magic = in.array<char>(8);
  if (std::memcmp(magic.data(), "DPTTOPK1", 8) != 0) throw std::runtime_error("topk fixture: bad magic");
  std::vector<TopkFixtureCase> cases(in.value<uint32_t>());
  for (TopkFixtureCase& c : cases) {
    const std::vector<char> name = in.array<char>(in.value<uint32_t>());
    c.name.assign(name.begin(), name.end());
    const std::vector<uint32_t> header = in.array<uint32_t>(8);
    c.rule.scoring = header[0] == 1 ? topk_kernels::Scoring::sigmoid : topk_kernels::Scoring::softmax;
    c.logits_type = header[1] == 1 ? topk_kernels::LogitsType::bf16 : topk_kernels::LogitsType::f32;
    c.tokens = header[2];
    c.experts = header[3];
    c.rule.top_k = header[4];
    c.rule.n_group = header[5];
    c.rule.topk_group = header[6];
    c.rule.norm_topk_prob = header[7] != 0;
    c.rule.routed_scaling_factor = in.value<float>();
    const bool has_bias = in.value<uint32_t>() != 0;
    const size_t cells = static_cast<size_t>(c.tokens * c.experts);
    if (c.logits_type == topk_kernels::LogitsType::bf16) {
      c.logits_bf16 = in.array<uint16_t>(cells);
    } else {
      c.logits_f32 = in.array<float>(cells);
    }
    if (has_bias) c.bias = in.array<float>(static_cast<size_t>(c.experts));
    c.ids = in.array<int32_t>(static_cast<size_t>(c.tokens) * c.rule.top_k);
    c.weights = in.array<float>(static_cast<size_t>(c.tokens) * c.rule.top_k);
  }
  return cases;
}

}  // namespace dopant::router_tests
