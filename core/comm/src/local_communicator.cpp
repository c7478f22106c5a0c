// The `local` backend: one rank, so every collective is a copy (or nothing), and the
// helpers every backend shares: element sizes and the check that groups partition the ranks.
#include <dopant/comm/communicator.hpp>

#include <cstring>

namespace dopant::comm {
namespace {

class LocalCommunicator final : public Communicator {
 public:
  std::string backend() const override { return "local"; }
  uint32_t rank() const override { return 0; }
  uint32_t size() const override { return 1; }
  void barrier() override {}
  void broadcast(void*, size_t, uint32_t root) override { check_rank(root, "broadcast root"); }
  void all_reduce_sum(const void* in, void* out, size_t count, DataType type) override {
    copy(out, in, count * reduced_size(type));
  }
  void reduce_scatter_sum(const void* in, void* out, size_t count, DataType type) override {
    copy(out, in, count * reduced_size(type));
  }
  void all_gather_v(const void* in, void* out, const std::vector<size_t>& counts,
                    const std::vector<size_t>& displacements) override {
    check_one("all_gather_v", counts, displacements);
    copy(static_cast<char*>(out) + displacements[0], in, counts[0]);
  }
  void all_to_all_v(const void* in, const std::vector<size_t>& send_counts,
                    const std::vector<size_t>& send_displacements, void* out, const std::vector<size_t>& recv_counts,
                    const std::vector<size_t>& recv_displacements) override {
    check_one("all_to_all_v send", send_counts, send_displacements);
    check_one("all_to_all_v receive", recv_counts, recv_displacements);
    if (send_counts[0] != recv_counts[0]) {
      throw CommError("all_to_all_v: rank 0 sends " + std::to_string(send_counts[0]) + " bytes to itself but expects " +
                          std::to_string(recv_counts[0]),
                      false);
    }
    copy(static_cast<char*>(out) + recv_displacements[0], static_cast<const char*>(in) + send_displacements[0],
         send_counts[0]);
  }
  std::unique_ptr<Communicator> split(const std::vector<layout::RankGroup>& groups) override {
    place_in_groups(groups, 0, 1);
    return make_local_communicator();
  }

 private:
  static void copy(void* out, const void* in, size_t bytes) {
    if (out != in && bytes != 0) std::memmove(out, in, bytes);
  }
  static size_t reduced_size(DataType type) {
    if (type == DataType::bytes) throw CommError("a sum of raw bytes is undefined: give a numeric type", false);
    return element_size(type);
  }
  static void check_rank(uint32_t rank, const char* what) {
    if (rank != 0) throw CommError(std::string(what) + " " + std::to_string(rank) + " is not a rank of 1", false);
  }
  static void check_one(const char* what, const std::vector<size_t>& counts, const std::vector<size_t>& displacements) {
    if (counts.size() != 1 || displacements.size() != 1) {
      throw CommError(std::string(what) + ": one count and one displacement per rank (1 rank), got " +
                          std::to_string(counts.size()) + " and " + std::to_string(displacements.size()),
                      false);
    }
  }
};

}  // namespace

size_t element_size(DataType type) {
  switch (type) {
    case DataType::float32:
    case DataType::int32:
      return 4;
    case DataType::float64:
    case DataType::int64:
      return 8;
    case DataType::bytes:
      return 1;
  }
  throw CommError("unknown data type " + std::to_string(static_cast<int>(type)), false);
}

GroupPlace place_in_groups(const std::vector<layout::RankGroup>& groups, uint32_t rank, uint32_t size) {
  std::vector<bool> seen(size, false);
  GroupPlace place{0, 0};
  bool found = false;
  for (uint32_t g = 0; g < groups.size(); ++g) {
    for (uint32_t p = 0; p < groups[g].size(); ++p) {
      const uint32_t member = groups[g][p];
      if (member >= size || seen[member]) {
        throw CommError("split: rank " + std::to_string(member) + (member >= size ? " is not below the size " + std::to_string(size) : " is in two groups"), false);
      }
      seen[member] = true;
      if (member == rank) place = {g, p}, found = true;
    }
  }
  if (!found) throw CommError("split: rank " + std::to_string(rank) + " is in no group", false);
  for (uint32_t r = 0; r < size; ++r) {
    if (!seen[r]) throw CommError("split: rank " + std::to_string(r) + " is in no group", false);
  }
  return place;
}

std::unique_ptr<Communicator> make_local_communicator() { return std::make_unique<LocalCommunicator>(); }

}  // namespace dopant::comm
