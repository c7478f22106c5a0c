// Schemas of [run] and [device], declared like plugin parameters, and the slot-to-kind map.
#include "config_tables.hpp"

namespace dopant {
namespace {

constexpr uint32_t kDeclSize = DPT_PARAM_DECL_SIZE_1_0;

const dpt_param_decl kWorkload{kDeclSize, "workload", DPT_PARAM_STRING, "", nullptr, nullptr,
                               nullptr, 0, "", "name of the workload to run"};
const dpt_param_decl kRepetitions{kDeclSize, "repetitions", DPT_PARAM_INT, "7", "1", "4294967295",
                                  nullptr, 0, "", "measured repetitions of each variant"};
// The world communicator's backend (docs/parallelism.md, "Choosing the backend").
const char* const kCommBackends[] = {"auto", "local", "mpi", "nccl"};
const dpt_param_decl kComm{kDeclSize, "comm", DPT_PARAM_ENUM, "auto", nullptr, nullptr,
                           kCommBackends, 4, "", "backend of the world communicator"};
const dpt_param_decl* const kRunDecls[] = {&kWorkload, &kRepetitions, &kComm};

const char* const kDeviceKinds[] = {"cpu", "cuda"};
const dpt_param_decl kDeviceKind{kDeclSize, "kind", DPT_PARAM_ENUM, "cpu", nullptr, nullptr,
                                 kDeviceKinds, 2, "", "where device memory lives"};
const dpt_param_decl kDeviceIndex{kDeclSize, "index", DPT_PARAM_INT, "0", "0", "2147483647",
                                  nullptr, 0, "", "which device of that kind"};
const dpt_param_decl kMemoryLimit{kDeclSize, "memory_limit", DPT_PARAM_SIZE, "0", nullptr, nullptr,
                                  nullptr, 0, "B", "device memory cap, 0: none"};
const dpt_param_decl* const kDeviceDecls[] = {&kDeviceKind, &kDeviceIndex, &kMemoryLimit};

}  // namespace

const std::vector<std::pair<std::string, std::string>>& slot_kinds() {
  static const std::vector<std::pair<std::string, std::string>> kinds = {
      {"optimizer", "dopant.optimizer/1"}, {"router", "dopant.router/1"},
      {"parallel", "dopant.parallel/1"},   {"sandbox", "dopant.sandbox/1"},
      {"checkpoint", "dopant.checkpoint/1"},
  };
  return kinds;
}

const std::vector<ParamSchema>& run_table_schemas() {
  static const auto schemas = parse_param_decls(kRunDecls, 3, "[run]");
  return schemas;
}

const std::vector<ParamSchema>& device_table_schemas() {
  static const auto schemas = parse_param_decls(kDeviceDecls, 3, "[device]");
  return schemas;
}

DeviceConfig device_from_config(const dpt_config& device) {
  DeviceConfig result;
  result.kind = device.values.at("kind").text;
  result.index = static_cast<int32_t>(device.values.at("index").integer);
  result.memory_limit = device.values.at("memory_limit").size;
  return result;
}

}  // namespace dopant
