// The nccl backend on one rank (bootstrapped by the local communicator), on GPU 0: each
// collective on device buffers gives what the local backend gives on host buffers. Skipped
// when no GPU is visible.
#include <dopant/comm/nccl_communicator.hpp>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <vector>

namespace dopant::comm {
namespace {

// A device copy of `values`, freed at scope end.
template <typename T>
class DeviceVector {
 public:
  explicit DeviceVector(const std::vector<T>& values) : size_(values.size()) {
    EXPECT_EQ(cudaMalloc(reinterpret_cast<void**>(&data_), size_ * sizeof(T)), cudaSuccess);
    cudaMemcpy(data_, values.data(), size_ * sizeof(T), cudaMemcpyHostToDevice);
  }
  ~DeviceVector() { cudaFree(data_); }
  DeviceVector(const DeviceVector&) = delete;
  DeviceVector& operator=(const DeviceVector&) = delete;
  T* data() { return data_; }
  std::vector<T> host() const {
    std::vector<T> values(size_);
    cudaMemcpy(values.data(), data_, size_ * sizeof(T), cudaMemcpyDeviceToHost);
    return values;
  }

 private:
  T* data_ = nullptr;
  size_t size_;
};

class NcclOneRank : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cuda_device_count() == 0) GTEST_SKIP() << "no GPU visible";
    bootstrap_ = make_local_communicator();
    nccl_ = make_nccl_communicator(*bootstrap_, 0, std::chrono::seconds(30));
  }
  std::unique_ptr<Communicator> bootstrap_, nccl_;
};

TEST_F(NcclOneRank, CollectivesMatchTheLocalBackend) {
  EXPECT_EQ(nccl_->backend(), "nccl");
  EXPECT_EQ(nccl_->size(), 1u);
  const std::vector<float> values{1.5f, -2.0f, 3.25f, 8.0f};
  std::vector<float> local(values.size());
  bootstrap_->all_reduce_sum(values.data(), local.data(), values.size(), DataType::float32);
  DeviceVector<float> in(values), out(std::vector<float>(values.size(), 0.0f));
  nccl_->all_reduce_sum(in.data(), out.data(), values.size(), DataType::float32);
  EXPECT_EQ(out.host(), local);
  nccl_->reduce_scatter_sum(in.data(), out.data(), values.size(), DataType::float32);
  EXPECT_EQ(out.host(), local);

  // Bytes 4..11 of the input land at bytes 0..7 of the output, then the rest stays.
  const std::vector<size_t> counts{8}, at{0};
  DeviceVector<float> gathered(std::vector<float>(values.size(), 0.0f));
  nccl_->all_gather_v(in.data() + 1, gathered.data(), counts, at);
  EXPECT_EQ(gathered.host(), (std::vector<float>{-2.0f, 3.25f, 0.0f, 0.0f}));
  DeviceVector<float> moved(std::vector<float>(values.size(), 0.0f));
  nccl_->all_to_all_v(in.data(), {8}, {4}, moved.data(), {8}, {8});
  EXPECT_EQ(moved.host(), (std::vector<float>{0.0f, 0.0f, -2.0f, 3.25f}));
  nccl_->barrier();
}

TEST_F(NcclOneRank, ASumOfBytesIsRefused) {
  DeviceVector<char> in(std::vector<char>(4, 1));
  EXPECT_THROW(nccl_->all_reduce_sum(in.data(), in.data(), 4, DataType::bytes), CommError);
}

}  // namespace
}  // namespace dopant::comm
