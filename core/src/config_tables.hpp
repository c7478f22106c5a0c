// The fixed tables of a run file that do not belong to a plugin: [run] and [device], as
// parameter schemas so they are validated like any plugin's parameters.
#pragma once

#include "config.hpp"

namespace dopant {

// [run]: workload (string), repetitions (int >= 1), comm ("auto" | "local" | "mpi" | "nccl").
const std::vector<ParamSchema>& run_table_schemas();
// [device]: kind ("cpu" | "cuda"), index (int >= 0), memory_limit (size, 0: none).
const std::vector<ParamSchema>& device_table_schemas();

// Reads a validated [device] config into its struct.
DeviceConfig device_from_config(const dpt_config& device);

}  // namespace dopant
