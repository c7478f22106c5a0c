// Lion (Chen et al. 2023, "Symbolic Discovery of Optimization Algorithms") as a dopant
// optimizer plugin built out of tree with the C++ SDK. fp32 tensors on CPU runs; the
// momentum ("exp_avg") lives in device memory from the host, so the core accounts it.
//
// Per element, with g = grad / grad_scale and lr = group lr * lr_scale:
//   c = beta1 * m + (1 - beta1) * g
//   p = p * (1 - lr * weight_decay) - lr * sign(c)
//   m = beta2 * m + (1 - beta2) * g
#include <dopant/sdk/sdk.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

namespace sdk = dopant::sdk;

namespace {

constexpr dpt_param_decl kLionParams[] = {
    sdk::float_param("lr", "1e-4", "learning rate").min("0"),
    sdk::float_param("beta1", "0.9", "weight of the momentum in the update direction")
        .range("0", "1"),
    sdk::float_param("beta2", "0.99", "decay of the momentum").range("0", "1"),
    sdk::float_param("weight_decay", "0.0", "decoupled weight decay").min("0"),
};

struct Hyper {
  double lr, beta1, beta2, weight_decay;
};

// One parameter tensor: borrowed parameter and gradient memory, owned momentum.
struct Tensor {
  std::string name;
  size_t group;
  float* param;                  // [count] fp32, updated in place
  const float* grad;             // [count] fp32
  sdk::Allocation exp_avg;       // [count] fp32, device memory
  std::vector<int64_t> shape;    // the parameter's
  std::vector<int64_t> strides;  // compact row-major, for exported views
  uint64_t count;
};

// Arguments of one parallel_for over the elements of a tensor.
struct Update {
  float* param;
  const float* grad;
  float* exp_avg;
  float lr, decay, beta1, beta2, grad_scale;
};

float sign(float x) { return static_cast<float>((x > 0.0f) - (x < 0.0f)); }

dpt_error* update_range(void* context, uint64_t begin, uint64_t end) {
  const Update& u = *static_cast<const Update*>(context);
  for (uint64_t i = begin; i < end; ++i) {
    const float g = u.grad[i] / u.grad_scale;
    const float c = u.beta1 * u.exp_avg[i] + (1.0f - u.beta1) * g;
    u.param[i] = u.param[i] * u.decay - u.lr * sign(c);
    u.exp_avg[i] = u.beta2 * u.exp_avg[i] + (1.0f - u.beta2) * g;
  }
  return nullptr;
}

double configured_or(double group_value, double configured) {
  return std::isnan(group_value) ? configured : group_value;
}

void check_tensor(const std::string& name, const DLTensor& param, const DLTensor& grad) {
  for (const DLTensor* t : {&param, &grad}) {
    sdk::require(sdk::is_fp32(*t), "tensor `" + name + "`: dtype " + sdk::dtype_name(t->dtype) +
                                       " is not supported (lion takes fp32)");
    sdk::require(sdk::is_contiguous(*t), "tensor `" + name + "`: not contiguous");
    if (t->device.device_type != kDLCPU && t->device.device_type != kDLCUDAHost) {
      sdk::fail(DPT_UNIMPLEMENTED, "tensor `" + name + "`: lion runs on CPU memory only");
    }
  }
  sdk::require(sdk::same_shape(param, grad), "tensor `" + name + "`: gradient shape " +
                                                 sdk::shape_string(grad) +
                                                 " differs from parameter shape " +
                                                 sdk::shape_string(param));
}

class Lion {
 public:
  Lion(const dpt_host* host, const sdk::Config& config)
      : host_(host),
        defaults_{config.get_float("lr"), config.get_float("beta1"), config.get_float("beta2"),
                  config.get_float("weight_decay")} {}

  void add_param_group(const dpt_param_group& group) {
    sdk::require(group.tensor_count == 0 || (group.tensor_names != nullptr &&
                                             group.params != nullptr && group.grads != nullptr),
                 "param group: tensor names, params and grads must be non-NULL");
    std::unordered_set<std::string> names;
    for (const Tensor& t : tensors_) names.insert(t.name);
    for (uint32_t i = 0; i < group.tensor_count; ++i) {
      sdk::require(group.tensor_names[i] != nullptr, "param group: tensor name is NULL");
      const std::string name = group.tensor_names[i];
      sdk::require(names.insert(name).second, "duplicate tensor name `" + name + "`");
      check_tensor(name, group.params[i], group.grads[i]);
    }
    // Allocate everything first, so a refused group leaves the instance unchanged.
    std::vector<Tensor> added;
    for (uint32_t i = 0; i < group.tensor_count; ++i) added.push_back(make_tensor(group, i));
    tensors_.reserve(tensors_.size() + added.size());
    groups_.push_back(Hyper{configured_or(group.lr, defaults_.lr),
                            configured_or(group.beta1, defaults_.beta1),
                            configured_or(group.beta2, defaults_.beta2),
                            configured_or(group.weight_decay, defaults_.weight_decay)});
    for (Tensor& t : added) tensors_.push_back(std::move(t));
  }

  void step(const dpt_step_args& args, dpt_stream*) {
    sdk::require(args.grad_scale > 0.0, "step: grad_scale must be positive");
    const DLTensor* moved = sdk::step_gradients(args, tensors_.size());  // NULL: t.grad
    for (size_t i = 0; i < tensors_.size(); ++i) {
      Tensor& t = tensors_[i];
      if (moved != nullptr) {
        sdk::require(sdk::is_fp32(moved[i]) && sdk::is_contiguous(moved[i]) &&
                         std::equal(t.shape.begin(), t.shape.end(), moved[i].shape,
                                    moved[i].shape + moved[i].ndim),
                     "tensor `" + t.name + "`: the step's gradient is not a contiguous fp32 " +
                         "tensor of the parameter's shape");
      }
      const float* grad = moved != nullptr ? sdk::data_as<const float>(moved[i]) : t.grad;
      const Hyper& h = groups_[t.group];
      const auto lr = static_cast<float>(h.lr * args.lr_scale);
      Update update{t.param, grad, t.exp_avg.as<float>(), lr,
                    1.0f - lr * static_cast<float>(h.weight_decay),
                    static_cast<float>(h.beta1), static_cast<float>(h.beta2),
                    static_cast<float>(args.grad_scale)};
      sdk::check(host_, host_->parallel_for(host_, 0, t.count, 16384, &update_range, &update));
    }
  }

  void export_state(const sdk::StateVisitor& visit) const {
    for (const Tensor& t : tensors_) {
      DLTensor view{t.exp_avg.data(), {kDLCPU, 0}, static_cast<int>(t.shape.size()),
                    sdk::kFloat32, const_cast<int64_t*>(t.shape.data()),
                    const_cast<int64_t*>(t.strides.data()), 0};
      visit(t.name.c_str(), "exp_avg", view);
    }
  }

  void import_state(const char* tensor_name, const char* state, const DLTensor& value) {
    Tensor& t = find(tensor_name);
    sdk::require(std::strcmp(state, "exp_avg") == 0,
                 std::string("lion has no state `") + state + "`");
    sdk::require(sdk::is_fp32(value) && sdk::is_contiguous(value) &&
                     static_cast<uint64_t>(sdk::element_count(value)) == t.count,
                 "state `exp_avg` of `" + t.name + "`: expected " + std::to_string(t.count) +
                     " contiguous fp32 elements");
    std::memcpy(t.exp_avg.data(), sdk::data_as<const float>(value), t.count * sizeof(float));
  }

  dpt_optimizer_memory memory() const {
    dpt_optimizer_memory out{DPT_OPTIMIZER_MEMORY_SIZE_1_0, 0, 0, 0};
    for (const Tensor& t : tensors_) out.device_state_bytes += t.exp_avg.bytes();
    return out;
  }

 private:
  // Tensor `i` of a group about to become groups_.back(), with zeroed momentum.
  Tensor make_tensor(const dpt_param_group& group, uint32_t i) {
    const DLTensor& param = group.params[i];
    const auto count = static_cast<uint64_t>(sdk::element_count(param));
    Tensor t{group.tensor_names[i], groups_.size(), sdk::data_as<float>(param),
             sdk::data_as<const float>(group.grads[i]),
             sdk::Allocation(host_, DPT_MEMORY_DEVICE, count * sizeof(float)),
             std::vector<int64_t>(param.shape, param.shape + param.ndim),
             std::vector<int64_t>(param.ndim), count};
    int64_t stride = 1;
    for (int d = param.ndim - 1; d >= 0; --d) {
      t.strides[d] = stride;
      stride *= param.shape[d];
    }
    std::memset(t.exp_avg.data(), 0, count * sizeof(float));
    return t;
  }

  Tensor& find(const char* name) {
    for (Tensor& t : tensors_) {
      if (t.name == name) return t;
    }
    sdk::fail(DPT_NOT_FOUND, std::string("no tensor named `") + name + "`");
  }

  const dpt_host* host_;
  Hyper defaults_;
  std::vector<Hyper> groups_;
  std::vector<Tensor> tensors_;
};

constexpr dpt_plugin_descriptor kLion = sdk::describe<sdk::OptimizerAdapter<Lion>>(
    "lion", "1.0.0", "Lion: sign of interpolated momentum (Chen et al. 2023), fp32 on CPU",
    sdk::param_list<kLionParams>);

}  // namespace

DOPANT_SDK_LIBRARY("dopant-lion-example", "1.0.0", &kLion)
