// Turns conformance checks into GoogleTest tests registered at run time.
#include "registry.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <utility>

namespace dopant::conformance {

namespace {

class CheckTest : public testing::Test {
 public:
  explicit CheckTest(std::function<void()> body) : body_(std::move(body)) {}
  void TestBody() override { body_(); }

 private:
  std::function<void()> body_;
};

// Plugin ids may hold '-', which --gtest_filter reads as "exclude": suites use '_'.
std::string suite_name(const char* plugin_id) {
  std::string name = plugin_id;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

}  // namespace

void add_check(const Target& target, const std::string& name, std::function<void()> body) {
  testing::RegisterTest(suite_name(target.id()).c_str(), name.c_str(), nullptr, nullptr,
                        __FILE__, __LINE__, [body = std::move(body)]() -> testing::Test* {
                          return new CheckTest(body);
                        });
}

}  // namespace dopant::conformance
