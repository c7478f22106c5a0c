// dopant SDK — declaring a plugin's parameters in one place. Each entry is a constexpr
// dpt_param_decl built by a typed factory and refined with chained setters; param_list<>
// turns a static array of them into the pointer list a descriptor needs:
//
//   constexpr dpt_param_decl kParams[] = {
//       sdk::float_param("lr", "1e-4", "learning rate").min("0"),
//       sdk::size_param("chunk", "256MiB", "bytes per streamed chunk").unit("B"),
//   };
//   ... sdk::param_list<kParams> ...
#pragma once

#include <dopant/plugin.h>

#include <array>
#include <cstddef>
#include <type_traits>
#include <utility>

namespace dopant::sdk {

// A dpt_param_decl under construction; converts to the plain struct.
class ParamDecl {
 public:
  constexpr ParamDecl(const char* name, dpt_param_type type, const char* default_value,
                      const char* doc)
      : decl_{DPT_PARAM_DECL_SIZE_1_0, name, type, default_value, nullptr, nullptr, nullptr,
              0, nullptr, doc} {}

  constexpr ParamDecl min(const char* value) const { return with(&dpt_param_decl::min_value, value); }
  constexpr ParamDecl max(const char* value) const { return with(&dpt_param_decl::max_value, value); }
  constexpr ParamDecl range(const char* low, const char* high) const { return min(low).max(high); }
  constexpr ParamDecl unit(const char* value) const { return with(&dpt_param_decl::unit, value); }

  template <std::size_t N>
  constexpr ParamDecl choices(const char* const (&values)[N]) const {
    ParamDecl copy = *this;
    copy.decl_.choices = values;
    copy.decl_.choice_count = static_cast<uint32_t>(N);
    return copy;
  }

  constexpr operator dpt_param_decl() const { return decl_; }  // NOLINT: intended conversion

 private:
  constexpr ParamDecl with(const char* dpt_param_decl::*field, const char* value) const {
    ParamDecl copy = *this;
    copy.decl_.*field = value;
    return copy;
  }

  dpt_param_decl decl_;
};

constexpr ParamDecl bool_param(const char* name, const char* default_value, const char* doc) {
  return ParamDecl(name, DPT_PARAM_BOOL, default_value, doc);
}
constexpr ParamDecl int_param(const char* name, const char* default_value, const char* doc) {
  return ParamDecl(name, DPT_PARAM_INT, default_value, doc);
}
constexpr ParamDecl float_param(const char* name, const char* default_value, const char* doc) {
  return ParamDecl(name, DPT_PARAM_FLOAT, default_value, doc);
}
constexpr ParamDecl string_param(const char* name, const char* default_value, const char* doc) {
  return ParamDecl(name, DPT_PARAM_STRING, default_value, doc);
}
constexpr ParamDecl size_param(const char* name, const char* default_value, const char* doc) {
  return ParamDecl(name, DPT_PARAM_SIZE, default_value, doc);
}
// `choices` must have static storage (a namespace-scope constexpr array).
template <std::size_t N>
constexpr ParamDecl enum_param(const char* name, const char* default_value,
                               const char* const (&choices)[N], const char* doc) {
  return ParamDecl(name, DPT_PARAM_ENUM, default_value, doc).choices(choices);
}

// The params/param_count pair of a descriptor.
struct ParamSpan {
  const dpt_param_decl* const* decls = nullptr;
  uint32_t count = 0;
};

namespace detail {
template <const auto& Decls, std::size_t... I>
constexpr std::array<const dpt_param_decl*, sizeof...(I)> pointers_to(std::index_sequence<I...>) {
  return {{&Decls[I]...}};
}

template <const auto& Decls>
struct ParamPointers {
  static constexpr std::size_t count = std::extent_v<std::remove_reference_t<decltype(Decls)>>;
  static constexpr std::array<const dpt_param_decl*, count> value =
      pointers_to<Decls>(std::make_index_sequence<count>{});
};
}  // namespace detail

// The pointer list of a static `constexpr dpt_param_decl Decls[]`, as constant data.
template <const auto& Decls>
inline constexpr ParamSpan param_list{detail::ParamPointers<Decls>::value.data(),
                                      static_cast<uint32_t>(detail::ParamPointers<Decls>::count)};

}  // namespace dopant::sdk
