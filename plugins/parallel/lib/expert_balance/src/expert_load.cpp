// check_expert_load (see expert_load.hpp).
#include "expert_load.hpp"

#include <dopant/sdk/errors.hpp>

#include <string>

namespace dopant::expert_balance {

using std::to_string;

void check_expert_load(std::span<const int64_t> expert_load, uint32_t experts, const char* what) {
  sdk::require(expert_load.size() == experts, std::string(what) + ": " + to_string(expert_load.size()) +
                                                   " entries for " + to_string(experts) + " experts");
  for (size_t e = 0; e < expert_load.size(); ++e) {
    if (expert_load[e] < 0) {
      sdk::fail(DPT_INVALID_ARGUMENT, std::string(what) + ": expert " + to_string(e) + " has load " +
                                          to_string(expert_load[e]) + "; token counts are not negative");
    }
  }
}

}  // namespace dopant::expert_balance
