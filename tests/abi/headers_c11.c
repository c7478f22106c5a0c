/* Compiles the ABI and runtime headers as strict C11 with -Wall -Wextra -pedantic -Werror
 * (the build failing is the test) and reports the struct sizes C sees. */
#include "abi_sizes.h"

abi_sizes abi_sizes_c11(void) {
  const abi_sizes sizes = ABI_SIZES_MEASURED;
  return sizes;
}
