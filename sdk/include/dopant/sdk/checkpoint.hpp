// dopant SDK — CheckpointAdapter<T>: the static dpt_checkpoint_draft table of a C++ class.
//
//   class MyFormat {
//    public:
//     MyFormat(const dpt_host* host, const sdk::Config& config);
//     void write(const char* path, uint32_t count, const char* const* names,
//                const DLTensor* tensors);
//     void read(const char* path, const sdk::TensorVisitor& visit);
//     void convert(const dpt_convert_request& request);  // optional: NULL slot without it
//   };
#pragma once

#include <dopant/draft/checkpoint.h>

#include "errors.hpp"
#include "instance.hpp"
#include "structs.hpp"

#include <type_traits>
#include <utility>

namespace dopant::sdk {

// Hands tensors to the caller's dpt_tensor_visitor; an error it returns is thrown.
class TensorVisitor {
 public:
  TensorVisitor(const dpt_host* host, dpt_tensor_visitor visitor, void* context)
      : host_(host), visitor_(visitor), context_(context) {}
  void operator()(const char* name, const DLTensor& value) const {
    check(host_, visitor_(context_, name, &value));
  }

 private:
  const dpt_host* host_;
  dpt_tensor_visitor visitor_;
  void* context_;
};

namespace detail {
template <typename T, typename = void>
struct has_convert : std::false_type {};
template <typename T>
struct has_convert<T, std::void_t<decltype(std::declval<T&>().convert(
                          std::declval<const dpt_convert_request&>()))>> : std::true_type {};
}  // namespace detail

template <typename T>
struct CheckpointAdapter {
  using Table = dpt_checkpoint_draft;
  static constexpr const char* kind = DPT_KIND_CHECKPOINT;

  static dpt_error* write(dpt_instance* handle, const char* path, uint32_t count,
                          const char* const* names, const DLTensor* tensors) noexcept {
    return call_instance<T>(handle, [&](T& self, const dpt_host*) {
      require(path != nullptr, "write: path is NULL");
      require(count == 0 || (names != nullptr && tensors != nullptr),
              "write: names and tensors must be non-NULL");
      self.write(path, count, names, tensors);
    });
  }
  static dpt_error* read(dpt_instance* handle, const char* path, dpt_tensor_visitor visitor,
                         void* context) noexcept {
    return call_instance<T>(handle, [&](T& self, const dpt_host* host) {
      require(path != nullptr && visitor != nullptr, "read: path and visitor must be non-NULL");
      self.read(path, TensorVisitor(host, visitor, context));
    });
  }
  static dpt_error* convert(dpt_instance* handle, const dpt_convert_request* request) noexcept {
    return call_instance<T>(handle, [&]([[maybe_unused]] T& self, const dpt_host*) {
      if constexpr (detail::has_convert<T>::value) {
        self.convert(read_struct(request, DPT_CONVERT_REQUEST_DRAFT_SIZE, "convert request"));
      }
    });
  }

  static constexpr dpt_checkpoint_draft table{
      DPT_CHECKPOINT_DRAFT_SIZE, &create_instance<T>, &destroy_instance<T>, &write, &read,
      detail::has_convert<T>::value ? &convert : nullptr};
};

}  // namespace dopant::sdk
