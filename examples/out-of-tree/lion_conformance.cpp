// Runs dopant's conformance kit on the dopant-lion.so this project built (its path comes from
// CMake): `ctest` here fails if Lion breaks the ABI contract of an optimizer.
#include <dopant/conformance.hpp>

int main(int argc, char** argv) {
  return dopant::conformance::run(DOPANT_LION_PLUGIN, argc, argv);
}
