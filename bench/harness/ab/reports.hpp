// The reports of an A/B result, each rendered to text: the terminal table, JSON (with the
// raw samples and the order of runs), CSV, Markdown and a self-contained SVG chart.
#pragma once

#include "ab_data.hpp"

#include <string>

namespace dopant::ab {

std::string render_table(const AbResult& result);
std::string render_json(const AbResult& result);
std::string render_csv(const AbResult& result);
std::string render_markdown(const AbResult& result);
std::string render_svg(const AbResult& result);

}  // namespace dopant::ab
