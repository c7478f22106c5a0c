// Megatron-compatible rank layouts: from the world size, tp/pp/dp/ep/cp/etp and an order
// string, each rank's coordinates and the rank groups of every dimension and of combined
// dimensions ("tp-pp", "dp-cp"), for the dense layout and the separate expert layout. The
// groups are those of Megatron-core's `RankGenerator` (`parallel_state.py`,
// `generate_masked_orthogonal_rank_groups`), checked against a re-statement of it in
// tests/parallel/fixtures/make_layout_fixture.py.
//
// It lives in dopant_support because the `dopant layout` command, the communicator's
// sub-communicators and the parallel plugins all need the same tables; it depends on the
// standard library only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dopant::layout {

// Megatron's default order: tp varies fastest between neighbouring ranks, pp slowest.
inline constexpr std::string_view default_order = "tp-cp-ep-dp-pp";

// Sizes as a user gives them. dp and etp are derived when absent: dp = world / (tp*pp*cp),
// etp = tp.
struct ParallelSizes {
  uint32_t world = 1;
  uint32_t tp = 1;
  uint32_t pp = 1;
  uint32_t cp = 1;
  uint32_t ep = 1;
  std::optional<uint32_t> dp;
  std::optional<uint32_t> etp;
  std::string order{default_order};
};

// One dimension of a grid: its Megatron name, its size and the rank distance between
// neighbours along it (the product of the sizes before it in the order).
struct Dimension {
  std::string name;
  uint32_t size;
  uint32_t stride;
};

using RankGroup = std::vector<uint32_t>;

// One Megatron `RankGenerator`: dimensions in the order's sequence, the first varying
// fastest. A group of some dimensions ("tp", "dp-cp") holds the ranks that differ only in
// those dimensions.
class RankGrid {
 public:
  explicit RankGrid(std::vector<Dimension> dimensions);

  uint32_t world() const { return world_; }
  const std::vector<Dimension>& dimensions() const { return dimensions_; }
  // Position of `rank` along the dimension `name`.
  uint32_t coordinate(uint32_t rank, std::string_view name) const;
  // Every group of the dimensions named in `names` ("tp", "tp-pp"), in Megatron's order:
  // groups ordered by the other dimensions, the first fastest; members ordered by the
  // named dimensions, the first fastest. Throws std::invalid_argument on an unknown or
  // repeated name.
  std::vector<RankGroup> groups(std::string_view names) const;
  // The group of `names` that holds `rank`, members in the same order as in groups().
  RankGroup group_of(uint32_t rank, std::string_view names) const;

 private:
  std::vector<bool> mask(std::string_view names) const;

  std::vector<Dimension> dimensions_;
  uint32_t world_;
};

// The two layouts of one configuration, as initialize_model_parallel builds them.
struct RankLayouts {
  uint32_t dp;         // derived or checked
  uint32_t etp;        // tp unless given
  uint32_t expert_dp;  // world / (etp*ep*pp): cp folded in, as Megatron does
  RankGrid dense;      // tp, cp, dp, pp (Megatron's dense generator has ep = 1)
  RankGrid expert;     // tp = etp, ep, dp = expert_dp, pp (its cp is 1)
};

// The groups Megatron's initialize_model_parallel builds from each layout, as group names.
const std::vector<std::string>& dense_group_names();
const std::vector<std::string>& expert_group_names();

// Checks the sizes and builds both layouts. Throws std::invalid_argument naming the size
// or the product at fault: "tp*pp*cp = 8 does not divide world 12".
RankLayouts make_rank_layouts(const ParallelSizes& sizes);

}  // namespace dopant::layout
