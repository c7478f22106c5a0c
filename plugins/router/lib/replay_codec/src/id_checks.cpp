// The shape and id-range checks of both decoders (id_checks.hpp).
#include "id_checks.hpp"

#include <dopant/sdk/errors.hpp>

#include <string>

#include "dopant/replay_codec/codecs.hpp"

namespace dopant::replay_codec::detail {

void check_shape(const char* payload, uint32_t layers, uint32_t top_k, uint32_t experts) {
  const std::string prefix = std::string(payload) + ": ";
  if (layers == 0) sdk::fail(DPT_INVALID_ARGUMENT, prefix + "layers must be at least 1");
  if (top_k == 0) sdk::fail(DPT_INVALID_ARGUMENT, prefix + "top_k must be at least 1");
  if (experts == 0 || experts > kMaxExperts) {
    sdk::fail(DPT_INVALID_ARGUMENT, prefix + "experts " + std::to_string(experts) + " is outside [1, 2^31]");
  }
}

void check_ids(const char* payload, std::span<const int32_t> ids, uint32_t layers, uint32_t top_k,
               uint32_t experts) {
  // One pass that only compares; the position is worked out for the first bad id.
  bool in_range = true;
  for (int32_t id : ids) in_range &= static_cast<uint32_t>(id) < experts;
  if (in_range) return;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (static_cast<uint32_t>(ids[i]) < experts) continue;
    const uint64_t per_row = uint64_t{layers} * top_k;
    sdk::fail(DPT_INVALID_ARGUMENT, std::string(payload) + ": row " + std::to_string(i / per_row) + ", layer " +
                                        std::to_string(i % per_row / top_k) + ", slot " +
                                        std::to_string(i % top_k) + ": expert " + std::to_string(ids[i]) +
                                        " is outside [0, " + std::to_string(experts) + ")");
  }
}

}  // namespace dopant::replay_codec::detail
