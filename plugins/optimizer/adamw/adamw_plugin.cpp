// The `adamw` optimizer plugin (the baseline): torch.optim.AdamW, bit-identical
// to PyTorch 1.13, with all state on the run's device. Parameters and their defaults are
// PyTorch's; `kernel` picks the CPU kernel variant (for A/B runs of the kernels themselves).
#include <dopant/sdk/sdk.hpp>

#include "device_adamw.hpp"
#include "dopant/adamw_common/hyper_params.hpp"

namespace {

namespace sdk = dopant::sdk;
namespace adamw_common = dopant::adamw_common;

constexpr const char* kKernelChoices[] = {"auto", "reference", "scalar", "avx2", "avx512"};

constexpr dpt_param_decl kAdamwParams[] = {
    adamw_common::kLrParam,
    adamw_common::kBeta1Param,
    adamw_common::kBeta2Param,
    adamw_common::kEpsParam,
    adamw_common::kWeightDecayParam,
    sdk::enum_param("kernel", "auto", kKernelChoices,
                    "CPU kernel variant; auto: the fastest this CPU runs, or "
                    "DOPANT_ADAMW_KERNEL when set"),
};

constexpr dpt_plugin_descriptor kAdamw =
    sdk::describe<sdk::OptimizerAdapter<dopant::adamw_plugin::DeviceAdamW>>(
        "adamw", "1.0.0",
        "AdamW as torch.optim.AdamW 1.13, bit for bit; all state on the device",
        sdk::param_list<kAdamwParams>);

}  // namespace

DOPANT_SDK_LIBRARY("dopant-adamw", "1.0.0", &kAdamw)
