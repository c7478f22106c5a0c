// A small well-formedness check for XML documents (the SVG report): one root element,
// properly nested and closed tags, quoted attributes without duplicates, known entities
// only, no stray '<' or '&' in text. Returns an empty string when well formed, else why not.
#pragma once

#include <string>
#include <string_view>

namespace dopant::ab::testing {

std::string xml_problem(std::string_view document);

}  // namespace dopant::ab::testing
