// dopant SDK — everything a C++ plugin needs, in one include.
#pragma once

#include "checkpoint.hpp"
#include "config.hpp"
#include "errors.hpp"
#include "float16.hpp"
#include "instance.hpp"
#include "memory.hpp"
#include "optimizer.hpp"
#include "parallel.hpp"
#include "params.hpp"
#include "plugin.hpp"
#include "router.hpp"
#include "sandbox.hpp"
#include "structs.hpp"
#include "tensors.hpp"
