// Compiles the ABI and runtime headers as strict C++ (built twice: C++17 and C++20, with
// -Wall -Wextra -pedantic -Werror; the build failing is the test) and reports the struct
// sizes that mode sees through ABI_SIZES_FUNCTION.
#include "abi_sizes.h"

abi_sizes ABI_SIZES_FUNCTION(void) {
  const abi_sizes sizes = ABI_SIZES_MEASURED;
  return sizes;
}
