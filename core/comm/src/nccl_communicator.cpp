// The `nccl` backend: NCCL collectives on device buffers, one stream per communicator,
// each collective polled to completion or timeout. all_gather_v and all_to_all_v are
// grouped point-to-point transfers (ncclSend/ncclRecv), the way NCCL spells the v forms.
#include <dopant/comm/nccl_communicator.hpp>

#include <cuda_runtime.h>
#include <nccl.h>

#include <thread>

namespace dopant::comm {
namespace {

void check_cuda(cudaError_t code, const char* what) {
  if (code != cudaSuccess) throw CommError(std::string("CUDA ") + what + ": " + cudaGetErrorString(code), false);
}

void check_nccl(ncclResult_t code, const char* what) {
  if (code != ncclSuccess && code != ncclInProgress) {
    throw CommError(std::string("NCCL ") + what + ": " + ncclGetErrorString(code), false);
  }
}

ncclDataType_t nccl_type(DataType type) {
  switch (type) {
    case DataType::float32:
      return ncclFloat32;
    case DataType::float64:
      return ncclFloat64;
    case DataType::int32:
      return ncclInt32;
    case DataType::int64:
      return ncclInt64;
    case DataType::bytes:
      break;
  }
  throw CommError("a sum of raw bytes is undefined: give a numeric type", false);
}

class NcclCommunicator final : public Communicator {
 public:
  NcclCommunicator(ncclComm_t comm, int device, uint32_t rank, uint32_t size, std::chrono::milliseconds timeout)
      : comm_(comm), device_(device), rank_(rank), size_(size), timeout_(timeout) {
    check_cuda(cudaSetDevice(device_), "set device");
    check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "stream create");
  }
  ~NcclCommunicator() override {
    if (!broken_) ncclCommDestroy(comm_);
    cudaStreamDestroy(stream_);
  }

  std::string backend() const override { return "nccl"; }
  uint32_t rank() const override { return rank_; }
  uint32_t size() const override { return size_; }

  void barrier() override {
    // An all-reduce of one int on the device: NCCL has no barrier of its own.
    int* flag = nullptr;
    check_cuda(cudaMalloc(reinterpret_cast<void**>(&flag), sizeof(int)), "barrier malloc");
    try {
      all_reduce_sum(flag, flag, 1, DataType::int32);
    } catch (...) {
      cudaFree(flag);
      throw;
    }
    cudaFree(flag);
  }
  void broadcast(void* buffer, size_t bytes, uint32_t root) override {
    if (root >= size_) throw CommError("broadcast: root " + std::to_string(root) + " is not a rank of " + std::to_string(size_), false);
    run("broadcast", [&] { return ncclBroadcast(buffer, buffer, bytes, ncclUint8, static_cast<int>(root), comm_, stream_); });
  }
  void all_reduce_sum(const void* in, void* out, size_t count, DataType type) override {
    run("all_reduce_sum", [&] { return ncclAllReduce(in, out, count, nccl_type(type), ncclSum, comm_, stream_); });
  }
  void reduce_scatter_sum(const void* in, void* out, size_t count, DataType type) override {
    run("reduce_scatter_sum", [&] { return ncclReduceScatter(in, out, count, nccl_type(type), ncclSum, comm_, stream_); });
  }
  void all_gather_v(const void* in, void* out, const std::vector<size_t>& counts,
                    const std::vector<size_t>& displacements) override {
    expect_per_rank(counts, "all_gather_v counts");
    expect_per_rank(displacements, "all_gather_v displacements");
    // Every rank sends its block to every rank (itself included) and receives each rank's.
    run("all_gather_v", [&] {
      ncclResult_t code = ncclGroupStart();
      for (uint32_t r = 0; r < size_ && code == ncclSuccess; ++r) {
        code = ncclSend(in, counts[rank_], ncclUint8, static_cast<int>(r), comm_, stream_);
        if (code == ncclSuccess) {
          code = ncclRecv(static_cast<char*>(out) + displacements[r], counts[r], ncclUint8, static_cast<int>(r), comm_,
                          stream_);
        }
      }
      const ncclResult_t ended = ncclGroupEnd();
      return code != ncclSuccess ? code : ended;
    });
  }
  void all_to_all_v(const void* in, const std::vector<size_t>& send_counts,
                    const std::vector<size_t>& send_displacements, void* out, const std::vector<size_t>& recv_counts,
                    const std::vector<size_t>& recv_displacements) override {
    for (const auto* v : {&send_counts, &send_displacements, &recv_counts, &recv_displacements}) {
      expect_per_rank(*v, "all_to_all_v counts and displacements");
    }
    run("all_to_all_v", [&] {
      ncclResult_t code = ncclGroupStart();
      for (uint32_t r = 0; r < size_ && code == ncclSuccess; ++r) {
        code = ncclSend(static_cast<const char*>(in) + send_displacements[r], send_counts[r], ncclUint8,
                        static_cast<int>(r), comm_, stream_);
        if (code == ncclSuccess) {
          code = ncclRecv(static_cast<char*>(out) + recv_displacements[r], recv_counts[r], ncclUint8,
                          static_cast<int>(r), comm_, stream_);
        }
      }
      const ncclResult_t ended = ncclGroupEnd();
      return code != ncclSuccess ? code : ended;
    });
  }

  std::unique_ptr<Communicator> split(const std::vector<layout::RankGroup>& groups) override {
    if (broken_) throw CommError("split: this communicator timed out before and is unusable", false);
    const GroupPlace place = place_in_groups(groups, rank_, size_);
    ncclComm_t sub = nullptr;
    check_nccl(ncclCommSplit(comm_, static_cast<int>(place.group), static_cast<int>(place.position), &sub, nullptr),
               "split");
    return std::make_unique<NcclCommunicator>(sub, device_, place.position,
                                              static_cast<uint32_t>(groups[place.group].size()), timeout_);
  }

 private:
  void expect_per_rank(const std::vector<size_t>& values, const char* what) const {
    if (values.size() != size_) {
      throw CommError(std::string(what) + ": " + std::to_string(values.size()) + " entries for " +
                          std::to_string(size_) + " ranks",
                      false);
    }
  }

  // Enqueues `body` on the stream and waits: done when the stream is idle, failed when
  // NCCL reports an asynchronous error, timed out (and aborted) after `timeout_`.
  template <typename Body>
  void run(const char* what, Body body) {
    if (broken_) throw CommError(std::string(what) + ": this communicator timed out before and is unusable", false);
    check_cuda(cudaSetDevice(device_), what);
    check_nccl(body(), what);
    const auto deadline = std::chrono::steady_clock::now() + timeout_;
    for (;;) {
      const cudaError_t state = cudaStreamQuery(stream_);
      if (state == cudaSuccess) return;
      if (state != cudaErrorNotReady) check_cuda(state, what);
      ncclResult_t async = ncclSuccess;
      ncclCommGetAsyncError(comm_, &async);
      if (async != ncclSuccess && async != ncclInProgress) {
        broken_ = true;
        ncclCommAbort(comm_);
        throw CommError(std::string(what) + " on rank " + std::to_string(rank_) + ": " + ncclGetErrorString(async),
                        false);
      }
      if (std::chrono::steady_clock::now() > deadline) {
        broken_ = true;
        ncclCommAbort(comm_);
        throw CommError(std::string(what) + " on rank " + std::to_string(rank_) + " of " + std::to_string(size_) +
                            ": no completion within " + std::to_string(timeout_.count()) +
                            " ms; a peer rank exited or stopped taking part",
                        true);
      }
      std::this_thread::yield();
    }
  }

  ncclComm_t comm_;
  int device_;
  uint32_t rank_;
  uint32_t size_;
  std::chrono::milliseconds timeout_;
  cudaStream_t stream_ = nullptr;
  bool broken_ = false;
};

}  // namespace

int cuda_device_count() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
}

std::unique_ptr<Communicator> make_nccl_communicator(Communicator& bootstrap, int device,
                                                     std::chrono::milliseconds timeout) {
  ncclUniqueId id{};
  if (bootstrap.rank() == 0) check_nccl(ncclGetUniqueId(&id), "get unique id");
  bootstrap.broadcast(&id, sizeof id, 0);
  check_cuda(cudaSetDevice(device), "set device");
  ncclComm_t comm = nullptr;
  check_nccl(ncclCommInitRank(&comm, static_cast<int>(bootstrap.size()), id, static_cast<int>(bootstrap.rank())),
             "init rank");
  return std::make_unique<NcclCommunicator>(comm, device, bootstrap.rank(), bootstrap.size(), timeout);
}

}  // namespace dopant::comm
