// Runs the conformance kit on one plugin library: conformance_runner PATH [gtest flags].
#include <dopant/conformance.hpp>

#include <iostream>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: " << argv[0] << " PLUGIN_OR_LIBRARY [gtest flags]\n";
    return 2;
  }
  const char* target = argv[1];
  argv[1] = argv[0];
  return dopant::conformance::run(target, argc - 1, argv + 1);
}
