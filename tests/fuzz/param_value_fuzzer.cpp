// libFuzzer target for parameter values as config text: sizes ("1.5G", "256MiB"), ints and
// floats with bounds, bools and enums. The first byte picks a declared parameter, the rest
// is its value text. A value that parses must lie within the declared bounds and survive
// being written back (format_value) and parsed again unchanged; an accepted int must be
// written as one. The same text is also tried as a declaration's default and bounds, the
// path a plugin's dpt_param_decl takes.
#include "error.hpp"
#include "params.hpp"

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "param_value_fuzzer: %s\n", what.c_str());
  std::abort();
}

constexpr uint32_t kDeclSize = DPT_PARAM_DECL_SIZE_1_0;
const char* const kChoices[] = {"fp32", "bf16", "fp16"};

// One parameter of each type; the ranged ones with bounds on one or both sides.
const std::array<dpt_param_decl, 9> kDecls{{
    {kDeclSize, "flag", DPT_PARAM_BOOL, "false", nullptr, nullptr, nullptr, 0, "", ""},
    {kDeclSize, "slots", DPT_PARAM_INT, "2", "1", "8", nullptr, 0, "", ""},
    {kDeclSize, "offset", DPT_PARAM_INT, "0", nullptr, nullptr, nullptr, 0, "", ""},
    {kDeclSize, "lr", DPT_PARAM_FLOAT, "1e-3", "0", "1", nullptr, 0, "", ""},
    {kDeclSize, "beta", DPT_PARAM_FLOAT, "0.9", "-1e300", nullptr, nullptr, 0, "", ""},
    {kDeclSize, "chunk", DPT_PARAM_SIZE, "64MiB", "1MiB", "4GiB", nullptr, 0, "B", ""},
    {kDeclSize, "params", DPT_PARAM_SIZE, "1M", nullptr, nullptr, nullptr, 0, "", ""},
    {kDeclSize, "dtype", DPT_PARAM_ENUM, "fp32", nullptr, nullptr, kChoices, 3, "", ""},
    {kDeclSize, "name", DPT_PARAM_STRING, "", nullptr, nullptr, nullptr, 0, "", ""},
}};

const std::vector<dopant::ParamSchema>& schemas() {
  static const auto parsed = [] {
    std::array<const dpt_param_decl*, kDecls.size()> pointers{};
    for (std::size_t i = 0; i < kDecls.size(); ++i) pointers[i] = &kDecls[i];
    return dopant::parse_param_decls(pointers.data(), pointers.size(), "fuzz");
  }();
  return parsed;
}

// An integer's text: one optional sign, then decimal digits.
bool is_integer_text(std::string_view text) {
  if (!text.empty() && (text.front() == '+' || text.front() == '-')) text.remove_prefix(1);
  return !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
}

bool same_value(const dopant::ParamValue& a, const dopant::ParamValue& b) {
  return a.type == b.type && a.boolean == b.boolean && a.integer == b.integer &&
         a.real == b.real && a.size == b.size && a.text == b.text;
}

void check_value_text(const dopant::ParamSchema& schema, const std::string& text) {
  std::string error;
  const auto value = dopant::parse_value_text(schema, text, &error);
  if (!value) {
    if (error.empty()) fail("rejected " + schema.name + " without a message");
    return;
  }
  if (!dopant::check_value_bounds(schema, *value, nullptr)) fail("accepted out-of-bounds " + text);
  if (schema.type == dopant::ParamType::Int && !is_integer_text(text)) fail("accepted int " + text);
  const std::string written = dopant::format_value(*value);
  const auto reread = dopant::parse_value_text(schema, written, &error);
  if (!reread || !same_value(*value, *reread)) {
    fail(schema.name + " value " + text + " written as " + written + " does not read back");
  }
}

// The text as default, min and max of a declaration of the schema's type: parses or throws
// Error(DPT_INVALID_ARGUMENT), nothing else.
void check_declaration(const dpt_param_decl& base, const std::string& text) {
  for (int field = 0; field < 3; ++field) {
    dpt_param_decl decl = base;
    (field == 0 ? decl.default_value : field == 1 ? decl.min_value : decl.max_value) = text.c_str();
    const dpt_param_decl* list[] = {&decl};
    try {
      dopant::parse_param_decls(list, 1, "fuzz");
    } catch (const dopant::Error& error) {
      if (error.code() != DPT_INVALID_ARGUMENT) fail(std::string("unexpected error: ") + error.what());
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::size_t pick = data[0] % kDecls.size();
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  check_value_text(schemas()[pick], text);
  if (text.find('\0') == std::string::npos) check_declaration(kDecls[pick], text);
  std::string error;
  dopant::parse_size(text, &error);
  return 0;
}
