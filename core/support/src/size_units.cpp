// Sizes with units: "4096", "256MiB", "1.5G", "400MB". Exact integer arithmetic throughout,
// so a fraction is accepted only when it names a whole number of bytes.
#include <dopant/support/text.hpp>

#include <array>
#include <numeric>

namespace dopant {
namespace {

struct SizeUnit {
  std::string_view name;
  uint64_t bytes;
};

constexpr uint64_t kKilo = 1000;
constexpr uint64_t kKibi = 1024;

constexpr std::array<SizeUnit, 16> kUnits{{
    {"B", 1},
    {"K", kKilo}, {"M", kKilo * kKilo}, {"G", kKilo * kKilo * kKilo},
    {"T", kKilo * kKilo * kKilo * kKilo}, {"P", kKilo * kKilo * kKilo * kKilo * kKilo},
    {"KB", kKilo}, {"MB", kKilo * kKilo}, {"GB", kKilo * kKilo * kKilo},
    {"TB", kKilo * kKilo * kKilo * kKilo}, {"PB", kKilo * kKilo * kKilo * kKilo * kKilo},
    {"KiB", kKibi}, {"MiB", kKibi * kKibi}, {"GiB", kKibi * kKibi * kKibi},
    {"TiB", kKibi * kKibi * kKibi * kKibi}, {"PiB", kKibi * kKibi * kKibi * kKibi * kKibi},
}};

// Fraction digits kept after trailing zeros are dropped; 10^18 still fits in uint64_t.
constexpr std::size_t kMaxFractionDigits = 18;

bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::optional<uint64_t> unit_bytes(std::string_view unit) {
  if (unit.empty()) return 1;
  for (const auto& known : kUnits) {
    if (known.name == unit) return known.bytes;
  }
  return std::nullopt;
}

std::string unknown_unit_message(std::string_view unit) {
  std::vector<std::string> names;
  for (const auto& known : kUnits) names.emplace_back(known.name);
  return "unknown size unit " + quote_name(unit) + did_you_mean_suffix(unit, names) +
         " (units: B, K, M, G, T, P, KB, MB, GB, TB, PB, KiB, MiB, GiB, TiB, PiB)";
}

bool fail(std::string* error, std::string message) {
  if (error) *error = std::move(message);
  return false;
}

// Accumulates decimal digits into `value`; false on overflow.
bool parse_digits(std::string_view digits, uint64_t* value) {
  uint64_t result = 0;
  for (char c : digits) {
    if (__builtin_mul_overflow(result, 10u, &result) ||
        __builtin_add_overflow(result, static_cast<uint64_t>(c - '0'), &result)) {
      return false;
    }
  }
  *value = result;
  return true;
}

uint64_t power_of_ten(std::size_t exponent) {
  uint64_t result = 1;
  for (std::size_t i = 0; i < exponent; ++i) result *= 10;
  return result;
}

// bytes * 0.<fraction>, when that is a whole number.
bool fraction_bytes(std::string_view fraction, uint64_t bytes, uint64_t* out, std::string* error) {
  while (!fraction.empty() && fraction.back() == '0') fraction.remove_suffix(1);
  if (fraction.empty()) {
    *out = 0;
    return true;
  }
  const std::string not_whole = "is not a whole number of bytes";
  if (fraction.size() > kMaxFractionDigits) return fail(error, not_whole);
  uint64_t numerator = 0;
  parse_digits(fraction, &numerator);
  const uint64_t denominator = power_of_ten(fraction.size());
  const uint64_t common = std::gcd(bytes, denominator);
  const uint64_t reduced_denominator = denominator / common;
  if (numerator % reduced_denominator != 0) return fail(error, not_whole);
  *out = numerator / reduced_denominator * (bytes / common);  // < bytes: cannot overflow
  return true;
}

}  // namespace

std::optional<uint64_t> parse_size(std::string_view text, std::string* error) {
  const auto reject = [&](std::string message) -> std::optional<uint64_t> {
    fail(error, std::move(message));
    return std::nullopt;
  };
  if (text.empty()) return reject("empty size");
  if (text.front() == '-') return reject("size must not be negative");

  std::size_t pos = 0;
  while (pos < text.size() && is_digit(text[pos])) ++pos;
  const std::string_view whole = text.substr(0, pos);
  std::string_view fraction;
  if (pos < text.size() && text[pos] == '.') {
    const std::size_t start = ++pos;
    while (pos < text.size() && is_digit(text[pos])) ++pos;
    fraction = text.substr(start, pos - start);
  }
  if (whole.empty() && fraction.empty()) {
    return reject("expected a size like \"256MiB\" or 4096, got " + quote_name(text));
  }
  while (pos < text.size() && text[pos] == ' ') ++pos;
  const std::string_view unit = text.substr(pos);

  const auto bytes = unit_bytes(unit);
  if (!bytes) return reject(unknown_unit_message(unit));

  const std::string too_large = "size " + quote_name(text) + " is too large (max 2^64-1 bytes)";
  uint64_t count = 0;
  if (!parse_digits(whole, &count)) return reject(too_large);
  uint64_t total = 0;
  if (__builtin_mul_overflow(count, *bytes, &total)) return reject(too_large);
  uint64_t extra = 0;
  std::string fraction_error;
  if (!fraction_bytes(fraction, *bytes, &extra, &fraction_error)) {
    return reject("size " + quote_name(text) + " " + fraction_error);
  }
  if (__builtin_add_overflow(total, extra, &total)) return reject(too_large);
  return total;
}

}  // namespace dopant
