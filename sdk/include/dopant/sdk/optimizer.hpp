// dopant SDK — OptimizerAdapter<T>: the static dpt_optimizer_v1 table of a C++ class.
//
//   class MyOptimizer {
//    public:
//     MyOptimizer(const dpt_host* host, const sdk::Config& config);
//     void add_param_group(const dpt_param_group& group);
//     void step(const dpt_step_args& args, dpt_stream* stream);
//     void export_state(const sdk::StateVisitor& visit) const;
//     void import_state(const char* tensor_name, const char* state, const DLTensor& value);
//     dpt_optimizer_memory memory() const;  // optional: the slot is NULL without it
//   };
//
// Every slot runs inside guard(); input structs arrive widened to this SDK's layout, with
// the caller's struct_size (ask DPT_HAS_FIELD about fields of later minors). step() reads
// per-step gradients with step_gradients(args, tensor_count).
#pragma once

#include <dopant/optimizer.h>

#include "errors.hpp"
#include "instance.hpp"
#include "structs.hpp"

#include <string>
#include <type_traits>
#include <utility>

namespace dopant::sdk {

// Hands state tensors to the caller's dpt_state_visitor; an error it returns is thrown.
class StateVisitor {
 public:
  StateVisitor(const dpt_host* host, dpt_state_visitor visitor, void* context)
      : host_(host), visitor_(visitor), context_(context) {}
  void operator()(const char* tensor_name, const char* state, const DLTensor& value) const {
    check(host_, visitor_(context_, tensor_name, state, &value));
  }

 private:
  const dpt_host* host_;
  dpt_state_visitor visitor_;
  void* context_;
};

// The per-step gradients of `args` (dpt_step_args.grads), one per tensor of the instance
// in add_param_group order, or nullptr when the caller passed none (the gradients given to
// add_param_group apply). Throws DPT_INVALID_ARGUMENT when the caller passed a count other
// than `tensor_count`, or a count without an array.
inline const DLTensor* step_gradients(const dpt_step_args& args, size_t tensor_count) {
  if (!DPT_HAS_FIELD(&args, dpt_step_args, grads) || (args.grad_count == 0 && args.grads == nullptr)) {
    return nullptr;
  }
  if (args.grad_count != tensor_count || args.grads == nullptr) {
    fail(DPT_INVALID_ARGUMENT, "step args: " + std::to_string(args.grad_count) +
                                   " per-step gradients for " + std::to_string(tensor_count) +
                                   " tensors" + (args.grads == nullptr ? ", and `grads` is NULL" : ""));
  }
  return args.grads;
}

namespace detail {
template <typename T, typename = void>
struct has_memory : std::false_type {};
template <typename T>
struct has_memory<T, std::void_t<decltype(std::declval<const T&>().memory())>> : std::true_type {};
}  // namespace detail

template <typename T>
struct OptimizerAdapter {
  using Table = dpt_optimizer_v1;
  static constexpr const char* kind = DPT_KIND_OPTIMIZER;

  static dpt_error* add_param_group(dpt_instance* handle, const dpt_param_group* group) noexcept {
    return call_instance<T>(handle, [&](T& self, const dpt_host*) {
      self.add_param_group(read_struct(group, DPT_PARAM_GROUP_SIZE_1_0, "param group"));
    });
  }
  static dpt_error* step(dpt_instance* handle, const dpt_step_args* args,
                         dpt_stream* stream) noexcept {
    return call_instance<T>(handle, [&](T& self, const dpt_host*) {
      self.step(read_struct(args, DPT_STEP_ARGS_SIZE_1_0, "step args"), stream);
    });
  }
  static dpt_error* export_state(dpt_instance* handle, dpt_state_visitor visitor,
                                 void* context) noexcept {
    return call_instance<T>(handle, [&](T& self, const dpt_host* host) {
      require(visitor != nullptr, "export_state: visitor is NULL");
      self.export_state(StateVisitor(host, visitor, context));
    });
  }
  static dpt_error* import_state(dpt_instance* handle, const char* tensor_name,
                                 const char* state, const DLTensor* value) noexcept {
    return call_instance<T>(handle, [&](T& self, const dpt_host*) {
      require(tensor_name != nullptr && state != nullptr && value != nullptr,
              "import_state: tensor name, state and value must be non-NULL");
      self.import_state(tensor_name, state, *value);
    });
  }
  static dpt_error* memory(dpt_instance* handle, dpt_optimizer_memory* out) noexcept {
    return call_instance<T>(handle, [&]([[maybe_unused]] T& self, const dpt_host*) {
      if constexpr (detail::has_memory<T>::value) {
        write_struct(out, self.memory(), DPT_OPTIMIZER_MEMORY_SIZE_1_0, "optimizer memory");
      }
    });
  }

  static constexpr dpt_optimizer_v1 table{
      DPT_OPTIMIZER_V1_SIZE_1_1, &create_instance<T>, &destroy_instance<T>, &add_param_group,
      &step, &export_state, &import_state,
      detail::has_memory<T>::value ? &memory : nullptr};
};

}  // namespace dopant::sdk
