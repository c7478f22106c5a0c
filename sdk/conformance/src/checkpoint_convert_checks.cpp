// Checks of the "dopant.checkpoint.convert/1" extension of a checkpoint plugin, on what
// every strategy must do whatever formats it knows: an existing destination is refused
// with DPT_ALREADY_EXISTS and left as it was; a source format it does not know is
// DPT_UNIMPLEMENTED and leaves nothing behind; the outputs read 0 after a failure.
// Converting real checkpoints is each strategy's own test, since only it knows its formats.
#include <dopant/checkpoint.h>

#include "outcome.hpp"
#include "registry.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace dopant::conformance {

namespace {

namespace fs = std::filesystem;

// A fresh folder holding an (empty) source folder; ok() when both were made.
struct Scratch {
  FreshFolder folder;
  Scratch() {
    if (!folder.path().empty()) fs::create_directory(source());
  }
  bool ok() const { return !folder.path().empty(); }
  fs::path source() const { return folder.path() / "source"; }
  fs::path destination() const { return folder.path() / "destination"; }
  const fs::path& path() const { return folder.path(); }
};

// Convert args from `source` to `destination`, outputs preset to a value a failure must clear.
dpt_checkpoint_convert_args convert_args(const std::string& source, const std::string& destination,
                                         const char* from) {
  dpt_checkpoint_convert_args args = DPT_CHECKPOINT_CONVERT_ARGS_INIT;
  args.source = source.c_str();
  args.destination = destination.c_str();
  args.from = from;
  args.to = "hf";
  args.model = "llama";
  args.tensors_written = args.bytes_written = args.files_written = 7;
  return args;
}

void expect_outputs_cleared(const dpt_checkpoint_convert_args& args) {
  EXPECT_EQ(args.tensors_written, 0u);
  EXPECT_EQ(args.bytes_written, 0u);
  EXPECT_EQ(args.files_written, 0u);
}

void check_existing_destination_is_refused(const Target& target) {
  const PluginInstance plugin(target);
  const Scratch scratch;
  ASSERT_TRUE(plugin.ok() && scratch.ok());
  const auto& convert = *static_cast<const dpt_checkpoint_convert_v1*>(
      target.info->descriptor->get_extension(DPT_EXT_CHECKPOINT_CONVERT));
  const std::string source = scratch.source().string(), destination = scratch.destination().string();
  std::ofstream(destination) << "keep me";
  dpt_checkpoint_convert_args args = convert_args(source, destination, "megatron");
  const Outcome outcome = take(convert.convert(plugin.handle(), &args));
  EXPECT_EQ(outcome.code, DPT_ALREADY_EXISTS) << outcome.message;
  std::ifstream kept(destination);
  const std::string content((std::istreambuf_iterator<char>(kept)), std::istreambuf_iterator<char>());
  EXPECT_EQ(content, "keep me");
  expect_outputs_cleared(args);
}

void check_unknown_format_leaves_nothing(const Target& target) {
  const PluginInstance plugin(target);
  const Scratch scratch;
  ASSERT_TRUE(plugin.ok() && scratch.ok());
  const auto& convert = *static_cast<const dpt_checkpoint_convert_v1*>(
      target.info->descriptor->get_extension(DPT_EXT_CHECKPOINT_CONVERT));
  const std::string source = scratch.source().string(), destination = scratch.destination().string();
  dpt_checkpoint_convert_args args = convert_args(source, destination, "no-such-format");
  const Outcome outcome = take(convert.convert(plugin.handle(), &args));
  EXPECT_EQ(outcome.code, DPT_UNIMPLEMENTED) << outcome.message;
  EXPECT_NE(outcome.message.find("no-such-format"), std::string::npos) << "the error should name the format";
  EXPECT_FALSE(fs::exists(destination));
  EXPECT_EQ(std::distance(fs::directory_iterator(scratch.path()), fs::directory_iterator()), 1)
      << "a refused conversion left files in " << scratch.path();
  expect_outputs_cleared(args);
}

}  // namespace

void register_checkpoint_convert_checks(const Target& target) {
  add_check(target, "checkpoint_convert_existing_destination_is_refused",
            [target] { check_existing_destination_is_refused(target); });
  add_check(target, "checkpoint_convert_unknown_format_leaves_nothing",
            [target] { check_unknown_format_leaves_nothing(target); });
}

}  // namespace dopant::conformance
