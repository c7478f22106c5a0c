// Human-readable names of the ABI error codes.
#include <dopant/runtime.h>

extern "C" DPT_API const char* dpt_code_name(dpt_code code) {
  switch (code) {
    case DPT_OK: return "ok";
    case DPT_INVALID_ARGUMENT: return "invalid argument";
    case DPT_NOT_FOUND: return "not found";
    case DPT_OUT_OF_MEMORY: return "out of memory";
    case DPT_RESOURCE_EXHAUSTED: return "resource exhausted";
    case DPT_UNAVAILABLE: return "unavailable";
    case DPT_DEADLINE_EXCEEDED: return "deadline exceeded";
    case DPT_INTERNAL: return "internal";
    case DPT_UNIMPLEMENTED: return "unimplemented";
    case DPT_PERMISSION_DENIED: return "permission denied";
    case DPT_DATA_LOSS: return "data loss";
    case DPT_CANCELLED: return "cancelled";
    case DPT_FAILED_PRECONDITION: return "failed precondition";
    case DPT_ALREADY_EXISTS: return "already exists";
    default: return "unknown error code";
  }
}
