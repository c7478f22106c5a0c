// Checks every plugin passes whatever its kind: a sane descriptor, a kind table of at least
// its first released size with every mandatory slot, create/destroy with the declared defaults,
// destroy(NULL), and distinct instances from one factory.
#include "kinds.hpp"
#include "outcome.hpp"
#include "registry.hpp"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

namespace dopant::conformance {

namespace {

bool non_empty(const char* text) { return text != nullptr && text[0] != '\0'; }

void check_param_decl(const dpt_param_decl* decl, uint32_t index) {
  ASSERT_NE(decl, nullptr) << "parameter " << index << " is NULL";
  EXPECT_GE(decl->struct_size, DPT_PARAM_DECL_SIZE_1_0) << "parameter " << index;
  ASSERT_TRUE(non_empty(decl->name)) << "parameter " << index << " has no name";
  EXPECT_NE(decl->default_value, nullptr) << "parameter `" << decl->name << "` has no default";
  EXPECT_TRUE(decl->type >= DPT_PARAM_BOOL && decl->type <= DPT_PARAM_ENUM)
      << "parameter `" << decl->name << "` has unknown type " << decl->type;
  EXPECT_TRUE(non_empty(decl->doc)) << "parameter `" << decl->name << "` has no doc line";
  if (decl->type == DPT_PARAM_ENUM) {
    EXPECT_TRUE(decl->choices != nullptr && decl->choice_count > 0)
        << "enum parameter `" << decl->name << "` has no choices";
  }
}

void check_descriptor(const Target& target) {
  const dpt_plugin_descriptor* d = target.info->descriptor;
  ASSERT_NE(d, nullptr);
  EXPECT_GE(d->struct_size, DPT_PLUGIN_DESCRIPTOR_SIZE_1_0);
  EXPECT_TRUE(non_empty(d->id));
  EXPECT_NE(find_kind(d->kind), nullptr)
      << "kind `" << (d->kind ? d->kind : "(null)") << "` is none of " << known_kind_ids();
  EXPECT_TRUE(non_empty(d->version) && std::isdigit(static_cast<unsigned char>(d->version[0])))
      << "version should look like \"1.2.0\"";
  EXPECT_TRUE(non_empty(d->description)) << "a one-line description is required";
  ASSERT_TRUE(d->param_count == 0 || d->params != nullptr);
  for (uint32_t i = 0; i < d->param_count; ++i) check_param_decl(d->params[i], i);
  ASSERT_NE(d->get_extension, nullptr);
  EXPECT_NE(d->get_extension(d->kind), nullptr) << "get_extension(kind id) must give the table";
  EXPECT_EQ(d->get_extension("dopant.conformance.no-such-capability/1"), nullptr);
}

void check_kind_table(const Target& target, const KindInfo& kind) {
  const void* table = target.info->descriptor->get_extension(kind.id);
  ASSERT_NE(table, nullptr);
  uint32_t size = 0;
  std::memcpy(&size, table, sizeof size);
  ASSERT_GE(size, kind.min_table_size) << "struct_size of the " << kind.id << " table";
  for (const Slot& slot : kind.mandatory) {
    EXPECT_NE(slot_at<AnySlot>(table, slot.offset), nullptr)
        << "mandatory slot `" << slot.name << "` is NULL";
  }
}

void check_create_destroy(const Target& target) {
  PluginInstance instance(target);
  ASSERT_TRUE(instance.ok());
  EXPECT_NE(instance.handle(), nullptr);
}

// destroy(NULL) runs in a child process: a plugin that crashes on it fails this check, and
// the rest of the run goes on.
void check_destroy_null(const Target& target, const KindInfo& kind) {
  const void* table = target.info->descriptor->get_extension(kind.id);
  ASSERT_NE(table, nullptr);
  const auto destroy = slot_at<DestroyFn>(table, kind.destroy_offset);
  ASSERT_NE(destroy, nullptr);
  std::fflush(nullptr);  // the child must not write the parent's buffered output again
  const pid_t child = fork();
  ASSERT_NE(child, -1) << "fork: " << std::strerror(errno);
  if (child == 0) {
    destroy(nullptr);
    _exit(0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << "destroy(NULL) must do nothing; it "
      << (WIFSIGNALED(status) ? "died of signal " + std::to_string(WTERMSIG(status))
                              : "exited with status " + std::to_string(WEXITSTATUS(status)));
}

void check_distinct_instances(const Target& target) {
  PluginInstance first(target);
  PluginInstance second(target);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_NE(first.handle(), second.handle()) << "two creates returned the same handle";
}

}  // namespace

void register_generic_checks(const Target& target) {
  add_check(target, "descriptor", [target] { check_descriptor(target); });
  const KindInfo* kind = find_kind(target.info->descriptor->kind);
  if (kind == nullptr) return;  // the descriptor check reports it
  add_check(target, "kind_table", [target, kind] { check_kind_table(target, *kind); });
  add_check(target, "create_destroy_defaults", [target] { check_create_destroy(target); });
  add_check(target, "destroy_null", [target, kind] { check_destroy_null(target, *kind); });
  add_check(target, "distinct_instances", [target] { check_distinct_instances(target); });
}

}  // namespace dopant::conformance
