/* dopant ABI — umbrella header: everything a plugin may include. */
#ifndef DOPANT_ABI_H
#define DOPANT_ABI_H

#include "base.h"
#include "host.h"
#include "plugin.h"
#include "optimizer.h"
#include "router.h"
#include "parallel.h"
#include "sandbox.h"
#include "checkpoint.h"

#endif /* DOPANT_ABI_H */
