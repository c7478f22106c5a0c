// The XML well-formedness checker used by the report tests.
#include "xml_well_formed.hpp"

#include <cctype>
#include <set>
#include <vector>

namespace dopant::ab::testing {
namespace {

bool is_name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == ':'; }
bool is_name_char(char c) {
  return is_name_start(c) || std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '.';
}

class Checker {
 public:
  explicit Checker(std::string_view text) : text_(text) {}

  std::string run() {
    if (text_.substr(0, 5) == "<?xml") {
      const size_t end = text_.find("?>");
      if (end == std::string_view::npos) return "unterminated XML declaration";
      pos_ = end + 2;
    }
    std::vector<std::string> open;
    bool root_seen = false;
    while (pos_ < text_.size()) {
      if (text_[pos_] != '<') {
        if (std::string problem = text_run(!open.empty()); !problem.empty()) return problem;
        continue;
      }
      if (text_.substr(pos_, 4) == "<!--") {
        const size_t end = text_.find("-->", pos_);
        if (end == std::string_view::npos) return "unterminated comment";
        pos_ = end + 3;
        continue;
      }
      if (text_.substr(pos_, 2) == "</") {
        pos_ += 2;
        const std::string name = read_name();
        skip_space();
        if (open.empty() || name != open.back() || !consume('>')) return "mismatched end tag </" + name + ">" + where();
        open.pop_back();
        continue;
      }
      ++pos_;
      const std::string name = read_name();
      if (name.empty()) return "bad tag name" + where();
      if (open.empty() && root_seen) return "second root element <" + name + ">";
      root_seen = true;
      std::set<std::string> attributes;
      while (true) {
        skip_space();
        if (consume('>')) {
          open.push_back(name);
          break;
        }
        if (text_.substr(pos_, 2) == "/>") {
          pos_ += 2;
          break;
        }
        const std::string attribute = read_name();
        if (attribute.empty()) return "bad attribute in <" + name + ">" + where();
        if (!attributes.insert(attribute).second) return "duplicate attribute " + attribute + where();
        skip_space();
        if (!consume('=')) return "attribute " + attribute + " without value" + where();
        skip_space();
        if (pos_ >= text_.size() || (text_[pos_] != '"' && text_[pos_] != '\'')) return "unquoted attribute" + where();
        const char quote = text_[pos_++];
        while (pos_ < text_.size() && text_[pos_] != quote) {
          if (text_[pos_] == '<') return "'<' in attribute value" + where();
          if (text_[pos_] == '&') {
            if (std::string problem = entity(); !problem.empty()) return problem;
          } else {
            ++pos_;
          }
        }
        if (!consume(quote)) return "unterminated attribute value" + where();
      }
    }
    if (!root_seen) return "no root element";
    if (!open.empty()) return "unclosed element <" + open.back() + ">";
    return "";
  }

 private:
  std::string where() const { return " at byte " + std::to_string(pos_); }

  bool consume(char c) {
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  std::string read_name() {
    const size_t start = pos_;
    if (pos_ < text_.size() && is_name_start(text_[pos_])) {
      while (pos_ < text_.size() && is_name_char(text_[pos_])) ++pos_;
    }
    return std::string(text_.substr(start, pos_ - start));
  }

  std::string entity() {
    const size_t end = text_.find(';', pos_);
    if (end == std::string_view::npos) return "unterminated entity" + where();
    const std::string_view name = text_.substr(pos_ + 1, end - pos_ - 1);
    static const std::set<std::string_view> known{"amp", "lt", "gt", "quot", "apos"};
    const bool numeric = name.size() > 1 && name[0] == '#';
    if (!numeric && !known.count(name)) return "unknown entity &" + std::string(name) + ";" + where();
    pos_ = end + 1;
    return "";
  }

  // Character data up to the next '<'; only whitespace is allowed outside the root.
  std::string text_run(bool inside_root) {
    while (pos_ < text_.size() && text_[pos_] != '<') {
      if (text_[pos_] == '&') {
        if (std::string problem = entity(); !problem.empty()) return problem;
        continue;
      }
      if (!inside_root && !std::isspace(static_cast<unsigned char>(text_[pos_]))) return "text outside the root" + where();
      ++pos_;
    }
    return "";
  }

  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

std::string xml_problem(std::string_view document) { return Checker(document).run(); }

}  // namespace dopant::ab::testing
