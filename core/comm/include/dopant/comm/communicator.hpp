// The communicator behind dopant's collectives: rank and size, barrier, broadcast,
// all-reduce (sum), reduce-scatter, all-gather-v, all-to-all-v, and sub-communicators for
// a rank layout's groups. Backends: `local` (one rank, copies) and `mpi` (Open MPI, when
// CMake finds MPI). No networking of dopant's own: the mpi backend is MPI's collectives.
//
// Failures throw CommError. A collective that makes no progress for the communicator's
// timeout (a peer rank exited or hangs) throws CommError with `timed_out` set instead of
// hanging; the communicator is unusable afterwards (see docs/parallelism.md).
#pragma once

#include <dopant/support/rank_layout.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace dopant::comm {

enum class DataType { float32, float64, int32, int64, bytes };
size_t element_size(DataType type);

class CommError : public std::runtime_error {
 public:
  CommError(const std::string& message, bool timed_out) : std::runtime_error(message), timed_out_(timed_out) {}
  bool timed_out() const { return timed_out_; }

 private:
  bool timed_out_;
};

class Communicator {
 public:
  virtual ~Communicator() = default;

  virtual std::string backend() const = 0;
  virtual uint32_t rank() const = 0;
  virtual uint32_t size() const = 0;

  virtual void barrier() = 0;
  // `bytes` of `buffer` on `root` reach every rank's `buffer`.
  virtual void broadcast(void* buffer, size_t bytes, uint32_t root) = 0;
  // out[i] = sum over ranks of in[i]; `in` may equal `out`. Not for DataType::bytes.
  virtual void all_reduce_sum(const void* in, void* out, size_t count, DataType type) = 0;
  // in holds size() blocks of `count` elements; out[i] = sum over ranks of block rank() of in.
  virtual void reduce_scatter_sum(const void* in, void* out, size_t count, DataType type) = 0;
  // Rank r contributes counts[r] bytes; out receives them at displacements[r].
  virtual void all_gather_v(const void* in, void* out, const std::vector<size_t>& counts,
                            const std::vector<size_t>& displacements) = 0;
  // Sends send_counts[r] bytes from in + send_displacements[r] to rank r, receives
  // recv_counts[r] bytes from rank r at out + recv_displacements[r].
  virtual void all_to_all_v(const void* in, const std::vector<size_t>& send_counts,
                            const std::vector<size_t>& send_displacements, void* out,
                            const std::vector<size_t>& recv_counts,
                            const std::vector<size_t>& recv_displacements) = 0;

  // A communicator over the group of `groups` that holds this rank, ranked by position in
  // that group. Collective over this communicator; `groups` must partition its ranks.
  virtual std::unique_ptr<Communicator> split(const std::vector<layout::RankGroup>& groups) = 0;
};

// Where a rank sits in a partition: the index of its group and its position in it. Throws
// CommError when `groups` do not partition 0..size-1.
struct GroupPlace {
  uint32_t group;
  uint32_t position;
};
GroupPlace place_in_groups(const std::vector<layout::RankGroup>& groups, uint32_t rank, uint32_t size);

// One rank: every collective copies in to out.
std::unique_ptr<Communicator> make_local_communicator();

// MPI_COMM_WORLD, initializing MPI (thread level funneled) if nobody did; errors return
// instead of aborting, and every collective gives up after `timeout`. Throws CommError
// when the build has no MPI.
std::unique_ptr<Communicator> make_mpi_world_communicator(std::chrono::milliseconds timeout);

}  // namespace dopant::comm
