// The `adamw` optimizer plugin (the baseline of issue 4): torch.optim.AdamW, bit-identical
// to PyTorch 1.13, with all state on the run's device. Parameters and their defaults are
// PyTorch's; `kernel` picks the CPU kernel variant (for A/B runs of the kernels themselves).
#include <dopant/sdk/sdk.hpp>

#include "device_adamw.hpp"

namespace {

namespace sdk = dopant::sdk;

constexpr const char* kKernelChoices[] = {"auto", "reference", "scalar", "avx2", "avx512"};

constexpr dpt_param_decl kAdamwParams[] = {
    sdk::float_param("lr", "1e-3", "learning rate").min("0"),
    sdk::float_param("beta1", "0.9", "decay of the first moment (exp_avg)").range("0", "1"),
    sdk::float_param("beta2", "0.999", "decay of the second moment (exp_avg_sq)")
        .range("0", "1"),
    sdk::float_param("eps", "1e-8", "added to the denominator").min("0"),
    sdk::float_param("weight_decay", "1e-2", "decoupled weight decay").min("0"),
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
