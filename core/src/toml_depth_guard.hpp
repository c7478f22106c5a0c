// A scan of raw TOML text, before toml++ sees it, that refuses dotted keys with absurdly
// many parts: toml++ builds such keys recursively and would overflow the stack.
#pragma once

#include "config_diagnostics.hpp"

#include <string_view>

namespace dopant {

// Most parts a dotted key (`a.b.c`) or table header (`[a.b.c]`) may have.
inline constexpr int kMaxDottedKeyParts = 64;

// Reports the first key with more than kMaxDottedKeyParts parts; true when there is none.
bool check_dotted_key_depth(std::string_view text, Diagnostics& diagnostics);

}  // namespace dopant
