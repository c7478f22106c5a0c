// `dopant replay inspect|convert`: for people who debug a routing replay stream.
//   inspect FILE [--experts E --layers L --top-k K]
//       a packed payload: its header, shape, expert range and checksum; an sglang payload
//       (base64 int32, which carries no header): its id count, shape and expert range, read
//       as [rows, L, K] (1 and 1 when not given) with ids below E (2^31 when not given).
//   convert --from sglang|packed --to sglang|packed --experts E [--layers L --top-k K] IN OUT
//       decodes IN whole, then writes OUT in the other codec. sglang input needs --layers
//       and --top-k; for packed input they are optional and, like --experts, must match
//       its header. A packed output starts at row 0, or at the packed input's start row.
// Both decode with the codecs' own decoders, which refuse a damaged payload naming what is
// wrong and where; OUT is written atomically (output_files), so a refusal leaves no OUT.
#include "commands.hpp"

#include <dopant/replay_codec/codecs.hpp>
#include <dopant/support/output_files.hpp>
#include <dopant/support/text.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace dopant::cli {
namespace {

constexpr const char* kUsage =
    "usage: dopant replay inspect FILE [--experts E --layers L --top-k K]\n"
    "       dopant replay convert --from sglang|packed --to sglang|packed --experts E [--layers L --top-k K] IN OUT";

// Largest payload read: base64 of the codec's default bound of 2^28 int32 ids, and more.
constexpr size_t kMaxPayloadBytes = size_t{3} << 30;

std::string read_payload(const std::string& path) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) throw std::runtime_error(one_line(path) + ": cannot read file: " + std::strerror(errno));
  std::string bytes;
  char buffer[1 << 16];
  while (size_t count = std::fread(buffer, 1, sizeof buffer, file.get())) {
    bytes.append(buffer, count);
    if (bytes.size() > kMaxPayloadBytes) throw std::runtime_error(one_line(path) + ": larger than 3 GiB, the most read");
  }
  if (std::ferror(file.get())) throw std::runtime_error(one_line(path) + ": cannot read file: " + std::strerror(errno));
  return bytes;
}

bool is_packed(const std::string& bytes) { return bytes.compare(0, 4, "DPRP") == 0; }

std::span<const uint8_t> as_bytes(const std::string& text) {
  return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}

// "min..max" of the ids, or "none" when there are none.
std::string id_range(const std::vector<int32_t>& ids) {
  if (ids.empty()) return "none";
  const auto [low, high] = std::minmax_element(ids.begin(), ids.end());
  return std::to_string(*low) + ".." + std::to_string(*high);
}

struct ShapeFlags {
  std::optional<uint32_t> experts, layers, top_k;
};

ShapeFlags take_shape_flags(std::vector<std::string>& words) {
  const auto count = [&](const char* flag, uint32_t max, const std::string& range) -> std::optional<uint32_t> {
    if (auto text = take_flag_value(words, flag)) return parse_count(flag, *text, 1, max, range);
    return std::nullopt;
  };
  ShapeFlags flags;
  flags.experts = count("--experts", replay_codec::kMaxExperts, " (1 to 2147483648)");
  flags.layers = count("--layers", 1u << 20, " (1 to 1048576)");
  flags.top_k = count("--top-k", 1u << 20, " (1 to 1048576)");
  return flags;
}

// Decodes IN at `path` as `codec`, with the shape flags checked against a packed header.
replay_codec::RoutingRows decode(const std::string& path, const std::string& codec, const ShapeFlags& flags) {
  const std::string bytes = read_payload(path);
  try {
    if (codec == "packed") {
      replay_codec::RoutingRows rows = replay_codec::decode_packed(as_bytes(bytes));
      const auto agree = [&](const char* flag, const std::optional<uint32_t>& given, uint32_t stored) {
        if (given && *given != stored) {
          throw std::runtime_error(std::string(flag) + " " + std::to_string(*given) + " but the header says " +
                                   std::to_string(stored));
        }
      };
      agree("--experts", flags.experts, rows.experts);
      agree("--layers", flags.layers, rows.layers);
      agree("--top-k", flags.top_k, rows.top_k);
      return rows;
    }
    if (!flags.layers || !flags.top_k) throw std::invalid_argument("--from sglang needs --layers and --top-k");
    replay_codec::RoutingRows rows{0, *flags.layers, *flags.top_k, *flags.experts, {}};
    rows.ids = replay_codec::decode_sglang(bytes, rows.layers, rows.top_k, rows.experts);
    return rows;
  } catch (const std::invalid_argument&) {
    throw;
  } catch (const std::exception& e) {
    throw std::runtime_error(one_line(path) + ": " + e.what());
  }
}

std::string codec_flag(std::vector<std::string>& words, const char* flag) {
  const std::optional<std::string> codec = take_flag_value(words, flag);
  if (!codec) throw std::invalid_argument(std::string("replay convert: ") + flag + " is required\n" + kUsage);
  if (*codec != "sglang" && *codec != "packed") {
    throw std::invalid_argument(std::string("replay convert: ") + flag + " " + quote_name(*codec) +
                                " is not a codec (sglang or packed)");
  }
  return *codec;
}

int convert(std::vector<std::string> words) {
  const std::string from = codec_flag(words, "--from");
  const std::string to = codec_flag(words, "--to");
  const ShapeFlags flags = take_shape_flags(words);
  if (!flags.experts) throw std::invalid_argument(std::string("replay convert: --experts is required\n") + kUsage);
  if (words.size() != 2) throw std::invalid_argument(std::string("replay convert: needs IN and OUT\n") + kUsage);
  const std::string& in = words[0];
  std::vector<OutputFile> outputs = {{"OUT", words[1], ""}};
  check_outputs(outputs, {in});  // a bad OUT path costs nothing

  const replay_codec::RoutingRows rows = decode(in, from, flags);
  if (to == "packed") {
    const std::vector<uint8_t> packed = replay_codec::encode_packed(rows);
    outputs[0].content.assign(packed.begin(), packed.end());
  } else {
    outputs[0].content = replay_codec::encode_sglang(rows.ids);
  }
  write_outputs(outputs, {in});
  std::printf("%s: %llu rows x %u layers x %u ids (%s) -> %s: %zu bytes (%s)\n", one_line(in).c_str(),
              static_cast<unsigned long long>(rows.rows()), rows.layers, rows.top_k, from.c_str(),
              one_line(words[1]).c_str(), outputs[0].content.size(), to.c_str());
  return 0;
}

int inspect(std::vector<std::string> words) {
  const ShapeFlags flags = take_shape_flags(words);
  if (words.size() != 1) throw std::invalid_argument(std::string("replay inspect: needs one FILE\n") + kUsage);
  const std::string& path = words[0];
  const std::string bytes = read_payload(path);
  if (is_packed(bytes)) {
    const replay_codec::RoutingRows rows = decode(path, "packed", flags);
    uint32_t stored_crc = 0;
    std::memcpy(&stored_crc, bytes.data() + bytes.size() - replay_codec::kPackedChecksumBytes, 4);  // little-endian host
    std::printf(
        "%s: packed payload, version 1, %zu bytes\n"
        "experts %u (%u bits per id), layers %u, top_k %u\n"
        "rows [%llu, %llu): %llu rows, shape [%llu, %u, %u]\n"
        "expert ids %s\n"
        "crc32c %08x (matches)\n",
        one_line(path).c_str(), bytes.size(), rows.experts, replay_codec::bits_per_id(rows.experts), rows.layers,
        rows.top_k, static_cast<unsigned long long>(rows.start_row),
        static_cast<unsigned long long>(rows.start_row + rows.rows()), static_cast<unsigned long long>(rows.rows()),
        static_cast<unsigned long long>(rows.rows()), rows.layers, rows.top_k, id_range(rows.ids).c_str(), stored_crc);
    return 0;
  }
  ShapeFlags shape = flags;
  shape.layers = shape.layers.value_or(1);
  shape.top_k = shape.top_k.value_or(1);
  shape.experts = shape.experts.value_or(replay_codec::kMaxExperts);
  const replay_codec::RoutingRows rows = decode(path, "sglang", shape);
  std::printf(
      "%s: sglang payload (base64 of little-endian int32, no header), %zu characters\n"
      "%zu ids: shape [%llu, %u, %u]\n"
      "expert ids %s\n"
      "no checksum in this format\n",
      one_line(path).c_str(), bytes.size(), rows.ids.size(), static_cast<unsigned long long>(rows.rows()), rows.layers,
      rows.top_k, id_range(rows.ids).c_str());
  return 0;
}

}  // namespace

int command_replay(const Options& options) {
  if (options.words.size() < 2) throw std::invalid_argument(kUsage);
  const std::string& action = options.words[1];
  std::vector<std::string> words(options.words.begin() + 2, options.words.end());
  if (action == "inspect") return inspect(std::move(words));
  if (action == "convert") return convert(std::move(words));
  throw std::invalid_argument("replay: unknown action " + quote_name(action) + "\n" + kUsage);
}

}  // namespace dopant::cli
