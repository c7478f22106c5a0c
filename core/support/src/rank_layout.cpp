// Megatron-compatible rank layouts: the masked orthogonal rank groups of Megatron-core's
// RankGenerator, and the checks initialize_model_parallel makes on the sizes.
#include <dopant/support/rank_layout.hpp>

#include <dopant/support/text.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>

namespace dopant::layout {
namespace {

constexpr uint32_t max_world = std::numeric_limits<int32_t>::max();  // MPI ranks are int

std::vector<std::string> split_names(std::string_view names) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t dash = names.find('-', start);
    parts.emplace_back(names.substr(start, dash == std::string_view::npos ? std::string_view::npos : dash - start));
    if (dash == std::string_view::npos) return parts;
    start = dash + 1;
  }
}

// One of the five dimensions a configuration sizes, as a layout names and reports it.
struct Sized {
  const char* name;   // the Megatron name used in the order string and in group names
  const char* label;  // how a message names its size ("etp" for the expert layout's tp)
  uint32_t size;
};

// The dimensions of one layout in the order's sequence; those the order leaves out must
// have size 1 and are appended, as RankGenerator does.
RankGrid grid_in_order(const std::vector<std::string>& order, const std::string& order_text,
                       const std::vector<Sized>& sized) {
  std::vector<Dimension> dimensions;
  uint32_t stride = 1;
  auto add = [&](const Sized& dimension) {
    dimensions.push_back({dimension.name, dimension.size, stride});
    stride *= dimension.size;
  };
  for (const std::string& name : order) {
    for (const Sized& dimension : sized) {
      if (name == dimension.name) add(dimension);
    }
  }
  for (const Sized& dimension : sized) {
    if (std::find(order.begin(), order.end(), dimension.name) != order.end()) continue;
    if (dimension.size != 1) {
      throw std::invalid_argument("order " + quote_name(order_text) + " leaves out " + dimension.name + ", but " +
                                  dimension.label + " = " + std::to_string(dimension.size));
    }
    add(dimension);
  }
  return RankGrid(std::move(dimensions));
}

std::vector<std::string> parse_order(const std::string& order) {
  static const std::vector<std::string> known = {"tp", "pp", "dp", "ep", "cp"};
  std::vector<std::string> names = split_names(order);
  for (size_t i = 0; i < names.size(); ++i) {
    if (std::find(known.begin(), known.end(), names[i]) == known.end()) {
      throw std::invalid_argument("order " + quote_name(order) + ": unknown dimension " + quote_name(names[i]) +
                                  " (dimensions: " + quoted_list(known) + ", joined by `-`)");
    }
    if (std::find(names.begin(), names.begin() + static_cast<long>(i), names[i]) != names.begin() + static_cast<long>(i)) {
      throw std::invalid_argument("order " + quote_name(order) + ": " + quote_name(names[i]) + " appears twice");
    }
  }
  return names;
}

// "tp*pp*cp = 8 does not divide world 12", or "" when it does. Products past 64 bits
// cannot divide a world of at most 2^31 - 1 ranks and are named as such.
std::string divides_world(const char* what, std::initializer_list<uint32_t> factors, uint32_t world,
                          uint64_t* product) {
  *product = 1;
  bool overflow = false;
  for (uint32_t factor : factors) overflow = overflow || __builtin_mul_overflow(*product, factor, product);
  if (!overflow && world % *product == 0) return "";
  return std::string(what) + " = " + (overflow ? "more than 2^64" : std::to_string(*product)) +
         " does not divide world " + std::to_string(world);
}

void check_size(const char* name, uint32_t size) {
  if (size == 0) throw std::invalid_argument(std::string(name) + ": must be at least 1, not 0");
}

}  // namespace

RankGrid::RankGrid(std::vector<Dimension> dimensions) : dimensions_(std::move(dimensions)), world_(1) {
  for (const Dimension& dimension : dimensions_) world_ *= dimension.size;
}

std::vector<bool> RankGrid::mask(std::string_view names) const {
  std::vector<bool> selected(dimensions_.size(), false);
  for (const std::string& name : split_names(names)) {
    auto found = std::find_if(dimensions_.begin(), dimensions_.end(),
                              [&](const Dimension& dimension) { return dimension.name == name; });
    if (found == dimensions_.end()) {
      throw std::invalid_argument("group " + quote_name(names) + ": no dimension " + quote_name(name) +
                                  " in this layout");
    }
    const size_t index = static_cast<size_t>(found - dimensions_.begin());
    if (selected[index]) {
      throw std::invalid_argument("group " + quote_name(names) + ": " + quote_name(name) + " appears twice");
    }
    selected[index] = true;
  }
  return selected;
}

uint32_t RankGrid::coordinate(uint32_t rank, std::string_view name) const {
  for (const Dimension& dimension : dimensions_) {
    if (dimension.name == name) return rank / dimension.stride % dimension.size;
  }
  throw std::invalid_argument("no dimension " + quote_name(name) + " in this layout");
}

// generate_masked_orthogonal_rank_groups: group g decomposes over the unmasked dimensions,
// member m over the masked ones, each the first fastest; a rank is the sum of the
// coordinates times the strides.
std::vector<RankGroup> RankGrid::groups(std::string_view names) const {
  const std::vector<bool> selected = mask(names);
  uint32_t group_size = 1;
  for (size_t d = 0; d < dimensions_.size(); ++d) {
    if (selected[d]) group_size *= dimensions_[d].size;
  }
  auto offset = [&](uint32_t index, bool masked) {
    uint32_t rank = 0;
    for (size_t d = 0; d < dimensions_.size(); ++d) {
      if (selected[d] != masked) continue;
      rank += index % dimensions_[d].size * dimensions_[d].stride;
      index /= dimensions_[d].size;
    }
    return rank;
  };
  std::vector<RankGroup> result(world_ / group_size);
  for (uint32_t g = 0; g < result.size(); ++g) {
    const uint32_t base = offset(g, false);
    for (uint32_t m = 0; m < group_size; ++m) result[g].push_back(base + offset(m, true));
  }
  return result;
}

RankGroup RankGrid::group_of(uint32_t rank, std::string_view names) const {
  const std::vector<bool> selected = mask(names);
  uint32_t base = rank;
  RankGroup members{0};
  for (size_t d = 0; d < dimensions_.size(); ++d) {
    if (!selected[d]) continue;
    const Dimension& dimension = dimensions_[d];
    base -= rank / dimension.stride % dimension.size * dimension.stride;
    // Members so far vary the earlier masked dimensions; this one varies slower.
    const size_t before = members.size();
    for (uint32_t step = 1; step < dimension.size; ++step) {
      for (size_t i = 0; i < before; ++i) members.push_back(members[i] + step * dimension.stride);
    }
  }
  for (uint32_t& member : members) member += base;
  return members;
}

const std::vector<std::string>& dense_group_names() {
  static const std::vector<std::string> names = {"tp", "cp", "dp", "pp", "dp-cp", "tp-cp", "tp-pp", "tp-dp-cp", "tp-dp"};
  return names;
}

const std::vector<std::string>& expert_group_names() {
  static const std::vector<std::string> names = {"tp", "ep", "dp", "pp", "tp-ep", "tp-ep-pp"};
  return names;
}

RankLayouts make_rank_layouts(const ParallelSizes& sizes) {
  if (sizes.world == 0 || sizes.world > max_world) {
    throw std::invalid_argument("world: must be from 1 to " + std::to_string(max_world) + ", not " +
                                std::to_string(sizes.world));
  }
  check_size("tp", sizes.tp);
  check_size("pp", sizes.pp);
  check_size("cp", sizes.cp);
  check_size("ep", sizes.ep);
  if (sizes.dp) check_size("dp", *sizes.dp);
  if (sizes.etp) check_size("etp", *sizes.etp);
  const std::vector<std::string> order = parse_order(sizes.order);

  uint64_t model = 0;
  if (std::string problem = divides_world("tp*pp*cp", {sizes.tp, sizes.pp, sizes.cp}, sizes.world, &model);
      !problem.empty()) {
    throw std::invalid_argument(problem);
  }
  const uint32_t dp = static_cast<uint32_t>(sizes.world / model);
  if (sizes.dp && *sizes.dp != dp) {
    throw std::invalid_argument("dp = " + std::to_string(*sizes.dp) + " does not match world " +
                                std::to_string(sizes.world) + " / (tp*pp*cp = " + std::to_string(model) +
                                ") = " + std::to_string(dp));
  }
  const uint32_t etp = sizes.etp.value_or(sizes.tp);
  uint64_t expert_model = 0;
  if (std::string problem = divides_world("etp*ep*pp", {etp, sizes.ep, sizes.pp}, sizes.world, &expert_model);
      !problem.empty()) {
    throw std::invalid_argument(problem);
  }
  const uint32_t expert_dp = static_cast<uint32_t>(sizes.world / expert_model);

  RankLayouts layouts{dp, etp, expert_dp,
                      grid_in_order(order, sizes.order,
                                    {{"tp", "tp", sizes.tp}, {"cp", "cp", sizes.cp}, {"dp", "dp", dp}, {"pp", "pp", sizes.pp}}),
                      grid_in_order(order, sizes.order,
                                    {{"tp", "etp", etp}, {"ep", "ep", sizes.ep}, {"dp", "expert dp", expert_dp},
                                     {"pp", "pp", sizes.pp}})};
  // initialize_model_parallel's two assertions: both layouts share their pipeline groups.
  if (order.back() != "pp" && sizes.pp != 1 && expert_dp != dp) {
    throw std::invalid_argument("order " + quote_name(sizes.order) + " does not end with pp, so with pp = " +
                                std::to_string(sizes.pp) + " the expert dp (" + std::to_string(expert_dp) +
                                ") must equal dp (" + std::to_string(dp) + ")");
  }
  if (layouts.dense.groups("pp") != layouts.expert.groups("pp")) {
    throw std::invalid_argument("order " + quote_name(sizes.order) +
                                ": the dense and expert layouts get different pp groups (Megatron requires them equal)");
  }
  return layouts;
}

}  // namespace dopant::layout
