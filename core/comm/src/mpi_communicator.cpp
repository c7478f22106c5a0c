// The `mpi` backend on Open MPI. Errors return instead of aborting the job
// (MPI_ERRORS_RETURN on every communicator). Each collective is started nonblocking
// (MPI_Iallreduce, MPI_Ialltoallv, ...) and polled with MPI_Test until it completes or the
// timeout passes, so a rank whose peer exited or hangs fails with a clear error instead of
// waiting forever. After a timeout the request is still pending inside MPI: the
// communicator is marked broken, refuses further calls and frees nothing on destruction.
#include <dopant/comm/communicator.hpp>

#include <mpi.h>

#include <climits>
#include <thread>

namespace dopant::comm {
namespace {

std::string mpi_message(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) return "MPI error " + std::to_string(code);
  return std::string(text, static_cast<size_t>(length));
}

MPI_Datatype mpi_type(DataType type) {
  switch (type) {
    case DataType::float32:
      return MPI_FLOAT;
    case DataType::float64:
      return MPI_DOUBLE;
    case DataType::int32:
      return MPI_INT32_T;
    case DataType::int64:
      return MPI_INT64_T;
    case DataType::bytes:
      break;
  }
  throw CommError("a sum of raw bytes is undefined: give a numeric type", false);
}

int mpi_count(size_t count, const char* what) {
  if (count > static_cast<size_t>(INT_MAX)) {
    throw CommError(std::string(what) + ": " + std::to_string(count) + " is more than MPI's int counts hold", false);
  }
  return static_cast<int>(count);
}

std::vector<int> mpi_counts(const std::vector<size_t>& counts, uint32_t size, const char* what) {
  if (counts.size() != size) {
    throw CommError(std::string(what) + ": " + std::to_string(counts.size()) + " entries for " + std::to_string(size) +
                        " ranks",
                    false);
  }
  std::vector<int> result;
  for (size_t count : counts) result.push_back(mpi_count(count, what));
  return result;
}

class MpiCommunicator final : public Communicator {
 public:
  MpiCommunicator(MPI_Comm comm, bool owns_comm, bool finalize, std::chrono::milliseconds timeout)
      : comm_(comm), owns_comm_(owns_comm), finalize_(finalize), timeout_(timeout) {
    check(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN), "set_errhandler");
    int value = 0;
    check(MPI_Comm_rank(comm_, &value), "rank");
    rank_ = static_cast<uint32_t>(value);
    check(MPI_Comm_size(comm_, &value), "size");
    size_ = static_cast<uint32_t>(value);
  }
  ~MpiCommunicator() override {
    if (broken_) return;  // a pending request refers to this communicator
    if (owns_comm_) MPI_Comm_free(&comm_);
    if (finalize_) MPI_Finalize();
  }

  std::string backend() const override { return "mpi"; }
  uint32_t rank() const override { return rank_; }
  uint32_t size() const override { return size_; }

  void barrier() override {
    MPI_Request request;
    start(MPI_Ibarrier(comm_, &request), "barrier");
    wait(request, "barrier");
  }
  void broadcast(void* buffer, size_t bytes, uint32_t root) override {
    if (root >= size_) throw CommError("broadcast: root " + std::to_string(root) + " is not a rank of " + std::to_string(size_), false);
    MPI_Request request;
    start(MPI_Ibcast(buffer, mpi_count(bytes, "broadcast"), MPI_BYTE, static_cast<int>(root), comm_, &request),
          "broadcast");
    wait(request, "broadcast");
  }
  void all_reduce_sum(const void* in, void* out, size_t count, DataType type) override {
    MPI_Request request;
    start(MPI_Iallreduce(in == out ? MPI_IN_PLACE : in, out, mpi_count(count, "all_reduce_sum"), mpi_type(type),
                         MPI_SUM, comm_, &request),
          "all_reduce_sum");
    wait(request, "all_reduce_sum");
  }
  void reduce_scatter_sum(const void* in, void* out, size_t count, DataType type) override {
    MPI_Request request;
    start(MPI_Ireduce_scatter_block(in, out, mpi_count(count, "reduce_scatter_sum"), mpi_type(type), MPI_SUM, comm_,
                                    &request),
          "reduce_scatter_sum");
    wait(request, "reduce_scatter_sum");
  }
  void all_gather_v(const void* in, void* out, const std::vector<size_t>& counts,
                    const std::vector<size_t>& displacements) override {
    const std::vector<int> sizes = mpi_counts(counts, size_, "all_gather_v counts");
    const std::vector<int> offsets = mpi_counts(displacements, size_, "all_gather_v displacements");
    MPI_Request request;
    start(MPI_Iallgatherv(in, sizes[rank_], MPI_BYTE, out, sizes.data(), offsets.data(), MPI_BYTE, comm_, &request),
          "all_gather_v");
    wait(request, "all_gather_v");
  }
  void all_to_all_v(const void* in, const std::vector<size_t>& send_counts,
                    const std::vector<size_t>& send_displacements, void* out, const std::vector<size_t>& recv_counts,
                    const std::vector<size_t>& recv_displacements) override {
    const std::vector<int> send = mpi_counts(send_counts, size_, "all_to_all_v send counts");
    const std::vector<int> send_at = mpi_counts(send_displacements, size_, "all_to_all_v send displacements");
    const std::vector<int> receive = mpi_counts(recv_counts, size_, "all_to_all_v receive counts");
    const std::vector<int> receive_at = mpi_counts(recv_displacements, size_, "all_to_all_v receive displacements");
    MPI_Request request;
    start(MPI_Ialltoallv(in, send.data(), send_at.data(), MPI_BYTE, out, receive.data(), receive_at.data(), MPI_BYTE,
                         comm_, &request),
          "all_to_all_v");
    wait(request, "all_to_all_v");
  }

  // MPI has no nonblocking split: the partition is checked first under the timeout (each
  // rank's group index gathered and compared), so the blocking split only runs once every
  // rank has arrived with the same partition.
  std::unique_ptr<Communicator> split(const std::vector<layout::RankGroup>& groups) override {
    const GroupPlace place = place_in_groups(groups, rank_, size_);
    std::vector<int64_t> placed(size_);
    const int64_t mine = place.group;
    all_gather_v(&mine, placed.data(), std::vector<size_t>(size_, sizeof mine), offsets(sizeof mine));
    for (uint32_t r = 0; r < size_; ++r) {
      if (placed[r] != static_cast<int64_t>(place_in_groups(groups, r, size_).group)) {
        throw CommError("split: rank " + std::to_string(r) + " was given other groups than rank " +
                            std::to_string(rank_),
                        false);
      }
    }
    MPI_Comm sub;
    check(MPI_Comm_split(comm_, static_cast<int>(place.group), static_cast<int>(place.position), &sub), "split");
    return std::make_unique<MpiCommunicator>(sub, true, false, timeout_);
  }

 private:
  std::vector<size_t> offsets(size_t bytes) const {
    std::vector<size_t> result(size_);
    for (uint32_t r = 0; r < size_; ++r) result[r] = r * bytes;
    return result;
  }
  void check(int code, const char* what) const {
    if (code != MPI_SUCCESS) throw CommError(std::string("MPI ") + what + ": " + mpi_message(code), false);
  }
  void start(int code, const char* what) {
    if (broken_) throw CommError(std::string(what) + ": this communicator timed out before and is unusable", false);
    check(code, what);
  }
  void wait(MPI_Request& request, const char* what) {
    const auto deadline = std::chrono::steady_clock::now() + timeout_;
    for (int done = 0;;) {
      const int code = MPI_Test(&request, &done, MPI_STATUS_IGNORE);
      if (code != MPI_SUCCESS) {
        broken_ = true;
        throw CommError(std::string(what) + " on rank " + std::to_string(rank_) + ": " + mpi_message(code), false);
      }
      if (done) return;
      if (std::chrono::steady_clock::now() > deadline) {
        broken_ = true;
        throw CommError(std::string(what) + " on rank " + std::to_string(rank_) + " of " + std::to_string(size_) +
                            ": no completion within " + std::to_string(timeout_.count()) +
                            " ms; a peer rank exited or stopped taking part",
                        true);
      }
      std::this_thread::yield();
    }
  }

  MPI_Comm comm_;
  bool owns_comm_;
  bool finalize_;
  std::chrono::milliseconds timeout_;
  uint32_t rank_ = 0;
  uint32_t size_ = 0;
  bool broken_ = false;
};

}  // namespace

std::unique_ptr<Communicator> make_mpi_world_communicator(std::chrono::milliseconds timeout) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided = 0;
    if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
      throw CommError("MPI_Init_thread failed", false);
    }
  }
  return std::make_unique<MpiCommunicator>(MPI_COMM_WORLD, false, !initialized, timeout);
}

}  // namespace dopant::comm
