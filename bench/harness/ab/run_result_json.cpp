// Parsing of `dopant run --json` output.
#include "run_result_json.hpp"

#include "json_value.hpp"

#include <stdexcept>

namespace dopant::ab {

RunOutput parse_run_result(std::string_view json_text) {
  const JsonValue document = parse_json(json_text);
  RunOutput output;
  output.workload = document.at("workload").string();
  for (const JsonValue& metric : document.at("metrics").array()) {
    MetricValue value;
    value.info.name = metric.at("name").string();
    value.info.unit = metric.at("unit").string();
    value.info.higher_is_better = metric.at("better").string() == "higher";
    const auto& values = metric.at("values").array();
    if (values.size() != 1) {
      throw std::runtime_error("metric `" + value.info.name + "`: expected one value per run, got " +
                               std::to_string(values.size()));
    }
    if (!values[0].is(JsonValue::Type::number)) {
      throw std::runtime_error("metric `" + value.info.name + "`: the value is not a finite number");
    }
    value.value = values[0].number();
    output.metrics.push_back(std::move(value));
  }
  if (document.has("error")) {
    const JsonValue& error = document.at("error");
    output.failure = RunFailure{error.at("code").string(), error.at("message").string()};
  }
  return output;
}

}  // namespace dopant::ab
