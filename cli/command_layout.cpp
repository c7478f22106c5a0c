// `dopant layout --world N --tp T --pp P --ep E --cp C [--dp D] [--etp X] [--order ...]
// [--json]`: each rank's coordinates and the groups of every dimension, for the dense and
// the expert layout, as Megatron-core builds them (dopant/support/rank_layout.hpp). In the
// expert layout Megatron's `tp` is the expert tensor parallelism and `dp` the expert data
// parallelism; this command names them `etp` and `edp`.
#include "commands.hpp"

#include <dopant/support/json_text.hpp>
#include <dopant/support/rank_layout.hpp>
#include <dopant/support/text.hpp>

#include <cstdio>
#include <sstream>
#include <stdexcept>

namespace dopant::cli {
namespace {

using layout::RankGrid;
using layout::RankGroup;

constexpr const char* usage =
    "usage: dopant layout --world N [--tp T] [--pp P] [--ep E] [--cp C] [--dp D] [--etp X] "
    "[--order tp-cp-ep-dp-pp] [--json]";

// One of the two layouts with the names this command prints for its dimensions.
struct NamedGrid {
  const char* title;
  const RankGrid* grid;
  const std::vector<std::string>* group_names;
  bool expert;
};

// "tp-ep" of the expert layout reads "etp-ep": Megatron's names, printed as the sizes are given.
std::string printed_name(const std::string& names, bool expert) {
  if (!expert) return names;
  std::string out;
  size_t start = 0;
  while (start <= names.size()) {
    size_t dash = names.find('-', start);
    if (dash == std::string::npos) dash = names.size();
    const std::string part = names.substr(start, dash - start);
    out += (out.empty() ? "" : "-") + (part == "tp" ? "etp" : part == "dp" ? "edp" : part);
    start = dash + 1;
  }
  return out;
}

std::string group_text(const RankGroup& group, const char* open, const char* close) {
  std::string text = open;
  for (size_t i = 0; i < group.size(); ++i) text += (i == 0 ? "" : ", ") + std::to_string(group[i]);
  return text + close;
}

std::string layout_text(const layout::ParallelSizes& sizes, const layout::RankLayouts& layouts,
                        const std::vector<NamedGrid>& grids) {
  std::ostringstream out;
  out << "world " << sizes.world << ", order " << sizes.order << "\n"
      << "dense:  tp " << sizes.tp << ", cp " << sizes.cp << ", dp " << layouts.dp << ", pp " << sizes.pp << "\n"
      << "expert: etp " << layouts.etp << ", ep " << sizes.ep << ", edp " << layouts.expert_dp << ", pp " << sizes.pp
      << "\n\nrank";
  for (const NamedGrid& named : grids) {
    out << " |";
    for (const auto& dimension : named.grid->dimensions()) out << ' ' << printed_name(dimension.name, named.expert);
  }
  out << "\n";
  for (uint32_t rank = 0; rank < sizes.world; ++rank) {
    char number[16];
    std::snprintf(number, sizeof number, "%4u", rank);
    out << number;
    for (const NamedGrid& named : grids) {
      out << " |";
      for (const auto& dimension : named.grid->dimensions()) {
        const std::string name = printed_name(dimension.name, named.expert);
        std::snprintf(number, sizeof number, " %*u", static_cast<int>(name.size()),
                      named.grid->coordinate(rank, dimension.name));
        out << number;
      }
    }
    out << "\n";
  }
  for (const NamedGrid& named : grids) {
    out << "\n" << named.title << " groups\n";
    for (const std::string& names : *named.group_names) {
      out << "  " << printed_name(names, named.expert) << ":";
      for (const RankGroup& group : named.grid->groups(names)) out << ' ' << group_text(group, "[", "]");
      out << "\n";
    }
  }
  return out.str();
}

std::string layout_json(const layout::ParallelSizes& sizes, const layout::RankLayouts& layouts,
                        const std::vector<NamedGrid>& grids) {
  std::ostringstream out;
  out << "{\"world\": " << sizes.world << ", \"order\": " << json_string(sizes.order) << ",\n \"sizes\": {\"tp\": "
      << sizes.tp << ", \"pp\": " << sizes.pp << ", \"cp\": " << sizes.cp << ", \"dp\": " << layouts.dp
      << ", \"ep\": " << sizes.ep << ", \"etp\": " << layouts.etp << ", \"edp\": " << layouts.expert_dp << "}";
  for (const NamedGrid& named : grids) {
    out << ",\n " << json_string(named.title) << ": {\"coordinates\": [";
    for (uint32_t rank = 0; rank < sizes.world; ++rank) {
      out << (rank == 0 ? "\n  {" : ",\n  {");
      const auto& dimensions = named.grid->dimensions();
      for (size_t d = 0; d < dimensions.size(); ++d) {
        out << (d == 0 ? "" : ", ") << json_string(printed_name(dimensions[d].name, named.expert)) << ": "
            << named.grid->coordinate(rank, dimensions[d].name);
      }
      out << "}";
    }
    out << "],\n  \"groups\": {";
    for (size_t i = 0; i < named.group_names->size(); ++i) {
      const std::string& names = (*named.group_names)[i];
      out << (i == 0 ? "\n   " : ",\n   ") << json_string(printed_name(names, named.expert)) << ": [";
      const std::vector<RankGroup> groups = named.grid->groups(names);
      for (size_t g = 0; g < groups.size(); ++g) out << (g == 0 ? "" : ", ") << group_text(groups[g], "[", "]");
      out << "]";
    }
    out << "}}";
  }
  out << "}\n";
  return out.str();
}

}  // namespace

int command_layout(const Options& options) {
  std::vector<std::string> words(options.words.begin() + 1, options.words.end());
  const bool json = take_flag(words, "--json");
  layout::ParallelSizes sizes;
  const std::string range = " (1 to 2147483647)";
  auto count = [&](const char* flag) -> std::optional<uint32_t> {
    if (auto text = take_flag_value(words, flag)) return parse_count(flag, *text, 1, 2147483647, range);
    return std::nullopt;
  };
  const auto world = count("--world");
  sizes.tp = count("--tp").value_or(1);
  sizes.pp = count("--pp").value_or(1);
  sizes.ep = count("--ep").value_or(1);
  sizes.cp = count("--cp").value_or(1);
  sizes.dp = count("--dp");
  sizes.etp = count("--etp");
  if (auto order = take_flag_value(words, "--order")) sizes.order = *order;
  if (!words.empty()) throw std::invalid_argument("layout: unexpected argument " + quote_name(words[0]) + "; " + usage);
  if (!world) throw std::invalid_argument(std::string("layout: --world is required; ") + usage);
  sizes.world = *world;

  const layout::RankLayouts layouts = layout::make_rank_layouts(sizes);
  const std::vector<NamedGrid> grids = {{"dense", &layouts.dense, &layout::dense_group_names(), false},
                                        {"expert", &layouts.expert, &layout::expert_group_names(), true}};
  const std::string text = json ? layout_json(sizes, layouts, grids) : layout_text(sizes, layouts, grids);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}

}  // namespace dopant::cli
