// Compiles every SDK header as C++17 with -Wall -Wextra -Wpedantic -Werror, and the SDK
// examples of use from the headers' comments, so third parties are not forced forward.
#include <dopant/sdk/sdk.hpp>

namespace sdk = dopant::sdk;

namespace {

constexpr const char* kModes[] = {"fast", "exact"};
constexpr dpt_param_decl kParams[] = {
    sdk::float_param("lr", "1e-4", "learning rate").min("0"),
    sdk::size_param("chunk", "256MiB", "bytes per streamed chunk").unit("B"),
    sdk::enum_param("mode", "fast", kModes, "speed or exactness"),
};

class Sgd {
 public:
  Sgd(const dpt_host*, const sdk::Config&) {}
  void add_param_group(const dpt_param_group&) {}
  void step(const dpt_step_args&, dpt_stream*) {}
  void export_state(const sdk::StateVisitor&) const {}
  void import_state(const char*, const char*, const DLTensor&) {}
  dpt_optimizer_memory memory() const { return {DPT_OPTIMIZER_MEMORY_SIZE_1_0, 0, 0, 0}; }
};

constexpr dpt_plugin_descriptor kSgd = sdk::describe<sdk::OptimizerAdapter<Sgd>>(
    "cxx17-sgd", "1.0.0", "compiles as C++17", sdk::param_list<kParams>);

}  // namespace

const void* dopant_sdk_cxx17_table() { return kSgd.get_extension(DPT_KIND_OPTIMIZER); }
