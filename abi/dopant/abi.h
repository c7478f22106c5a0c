/* dopant ABI — umbrella header: the stable ABI. Draft kinds (abi/dopant/draft/) are not
 * part of it: a file that uses one includes its header by name, <dopant/draft/KIND.h>,
 * so that depending on a draft is always visible. */
#ifndef DOPANT_ABI_H
#define DOPANT_ABI_H

#include "base.h"
#include "host.h"
#include "plugin.h"
#include "optimizer.h"
#include "router.h"
#include "sandbox.h"
#include "comm.h"
#include "parallel.h"
#include "checkpoint.h"

#endif /* DOPANT_ABI_H */
