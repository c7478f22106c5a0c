// Cancelling a conversion in the library: a cancel predicate that turns true after the
// first progress report stops `gather` and `stream` with DPT_CANCELLED, and the writer,
// never finalized, leaves neither the destination nor its temporary folder behind.
#include <dopant/megatron_hf/convert.hpp>
#include <dopant/megatron_hf/mapping.hpp>
#include <dopant/megatron_hf/source.hpp>
#include <dopant/safetensors/writer.hpp>
#include <dopant/sdk/errors.hpp>

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <memory>

namespace dopant::megatron_hf {
namespace {

namespace fs = std::filesystem;

TEST(ConvertCancel, CancellingAfterTheFirstProgressReportLeavesNothing) {
  const fs::path folder = fs::temp_directory_path() / ("dopant-convert-cancel-" + std::to_string(::getpid()));
  fs::remove_all(folder);
  fs::create_directories(folder);
  // qwen2_stacked's common.pt records its heads, query groups and vocabulary.
  const std::unique_ptr<ChunkSource> source =
      open_megatron(std::string(DOPANT_CHECKPOINT_FIXTURES) + "/megatron/qwen2_stacked");
  ModelArgs args;
  args.model = Model::kQwen2;
  args.heads = 4;
  args.query_groups = 2;
  args.vocab_size = 10;
  const std::vector<OutputTensor> plan = plan_hf(source->listing(), args);
  ASSERT_GT(plan.size(), 4u);
  for (const char* strategy : {"gather", "stream"}) {
    SCOPED_TRACE(strategy);
    std::atomic<int> reports{0};
    ConvertOptions options;
    options.strategy = strategy;
    options.block_bytes = 1;  // a task per tensor, so there is work left after the first report
    options.progress = [&](uint64_t, uint64_t) { ++reports; };
    options.is_cancelled = [&] { return reports > 0; };
    const fs::path destination = folder / strategy;
    try {
      safetensors::Writer writer(destination.string(), 512, {{"format", "pt"}}, nullptr);
      convert(*source, plan, writer, options);
      writer.finalize();
      ADD_FAILURE() << "the conversion was not cancelled";
    } catch (const sdk::Error& e) {
      EXPECT_EQ(e.code(), DPT_CANCELLED) << e.what();
    }
    EXPECT_EQ(reports, 1) << "work went on after the predicate answered true";
    EXPECT_FALSE(fs::exists(destination));
    EXPECT_TRUE(fs::is_empty(folder)) << "a temporary folder was left behind";
  }
  fs::remove_all(folder);
}

}  // namespace
}  // namespace dopant::megatron_hf
