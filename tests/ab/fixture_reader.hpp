// Reads the JSON reference files in tests/ab/fixtures (made by the Python scripts there).
#pragma once

#include <dopant/support/json_value.hpp>

#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

namespace dopant::ab::testing {

inline JsonValue read_fixture(const std::string& name) {
  const std::string path = std::string(DOPANT_AB_FIXTURES) + "/" + name;
  std::ifstream file(path, std::ios::binary);
  if (!file) throw std::runtime_error("cannot read fixture " + path);
  return parse_json(std::string(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()));
}

inline std::vector<double> numbers(const JsonValue& array) {
  std::vector<double> values;
  for (const JsonValue& item : array.array()) values.push_back(item.number());
  return values;
}

}  // namespace dopant::ab::testing
