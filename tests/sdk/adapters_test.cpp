// The kind adapters: table sizes and optional slots, NULL-safe destroy, exceptions from the
// user class returned as errors, input structs checked and widened, output structs written
// only up to the caller's size, and descriptors/library records filled from the headers.
#include <dopant/sdk/sdk.hpp>

#include "test_runtime.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <memory>

namespace sdk = dopant::sdk;

namespace {

// Counts steps; fails on demand; reports memory.
class CountingOptimizer {
 public:
  CountingOptimizer(const dpt_host*, const sdk::Config&) {}
  void add_param_group(const dpt_param_group& group) {
    if (group.tensor_count > 0) throw sdk::Error(DPT_UNIMPLEMENTED, "no tensors, please");
  }
  void step(const dpt_step_args& args, dpt_stream*) { steps += args.lr_scale; }
  void export_state(const sdk::StateVisitor&) const { throw std::runtime_error("export broke"); }
  void import_state(const char*, const char*, const DLTensor&) {}
  dpt_optimizer_memory memory() const { return {DPT_OPTIMIZER_MEMORY_SIZE_1_0, 11, 22, 33}; }
  double steps = 0;
};

// The same without `memory`.
class PlainOptimizer {
 public:
  PlainOptimizer(const dpt_host*, const sdk::Config&) {}
  void add_param_group(const dpt_param_group&) {}
  void step(const dpt_step_args&, dpt_stream*) {}
  void export_state(const sdk::StateVisitor&) const {}
  void import_state(const char*, const char*, const DLTensor&) {}
};

class FailingConstructor {
 public:
  FailingConstructor(const dpt_host*, const sdk::Config&) {
    throw sdk::Error(DPT_UNAVAILABLE, "no device today");
  }
  void route(const dpt_route_args&, dpt_stream*) {}
};

struct NoopCheckpointReader {
  sdk::CheckpointListing listed;
  const sdk::CheckpointListing& listing() const { return listed; }
  void read(uint64_t, uint64_t, void*, uint64_t) const {}
};
struct NoopCheckpointWriter {
  void add(const char*, const DLTensor&) {}
  void finalize() {}
};
class NoopCheckpoint {
 public:
  NoopCheckpoint(const dpt_host*, const sdk::Config&) {}
  std::unique_ptr<NoopCheckpointReader> open(const char*) { return std::make_unique<NoopCheckpointReader>(); }
  std::unique_ptr<NoopCheckpointWriter> begin(const char*, const sdk::Metadata&) {
    return std::make_unique<NoopCheckpointWriter>();
  }
};

class ReadOnlyCheckpoint {
 public:
  ReadOnlyCheckpoint(const dpt_host*, const sdk::Config&) {}
  std::unique_ptr<NoopCheckpointReader> open(const char*) { return std::make_unique<NoopCheckpointReader>(); }
};

class NoopSandbox {
 public:
  NoopSandbox(const dpt_host*, const sdk::Config&) {}
  dpt_sandbox_box* acquire() { return nullptr; }
  void release(dpt_sandbox_box*) {}
  // Sets an output, then fails: the caller must not see the output.
  void exec(dpt_sandbox_exec_args& args) {
    args.stdout_data = "partial";
    args.stdout_bytes = 7;
    throw sdk::Error(DPT_UNAVAILABLE, "box is gone");
  }
  void put(const dpt_sandbox_put_args&) {}
  void get(dpt_sandbox_get_args&) {}
  void reset(dpt_sandbox_box*) {}
  dpt_sandbox_stats stats() { return {}; }
};

class NoopParallel {
 public:
  NoopParallel(const dpt_host*, const sdk::Config&) {}
  void layout(dpt_parallel_layout_args&) {}
  void shard(dpt_parallel_shard_args&) {}
  void setup(const dpt_parallel_topology&) {}
  void dispatch(dpt_dispatch_args&, dpt_stream*) {}
  void combine(dpt_combine_args&, dpt_stream*) {}
  void release(dpt_parallel_exchange*) noexcept {}
};

using Counting = sdk::OptimizerAdapter<CountingOptimizer>;
using Plain = sdk::OptimizerAdapter<PlainOptimizer>;

TEST(SdkAdapters, TablesCarryTheirCurrentSize) {
  EXPECT_EQ(Counting::table.struct_size, DPT_OPTIMIZER_V1_SIZE_1_1);
  EXPECT_EQ(sdk::RouterAdapter<FailingConstructor>::table.struct_size, DPT_ROUTER_V1_SIZE_1_5);
  EXPECT_EQ(sdk::ParallelAdapter<NoopParallel>::table.struct_size, DPT_PARALLEL_V1_SIZE_1_5);
  EXPECT_EQ(sdk::SandboxAdapter<NoopSandbox>::table.struct_size, DPT_SANDBOX_V1_SIZE_1_4);
  EXPECT_EQ(sdk::CheckpointAdapter<NoopCheckpoint>::table.struct_size,
            DPT_CHECKPOINT_V1_SIZE_1_6);
}

TEST(SdkAdapters, OptionalSlotsAreNullWhenTheClassLacksThem) {
  EXPECT_NE(Counting::table.memory, nullptr);
  EXPECT_EQ(Plain::table.memory, nullptr);
}

TEST(SdkAdapters, AReadOnlyCheckpointFormatAnswersUnimplementedToWriterBegin) {
  using ReadOnly = sdk::CheckpointAdapter<ReadOnlyCheckpoint>;
  TestRuntime runtime;
  const dpt_host* host = runtime.host();
  dpt_instance* handle = nullptr;
  ASSERT_EQ(take_error(host, ReadOnly::table.create(host, nullptr, &handle)).message, "");
  dpt_checkpoint_begin_args begin{DPT_CHECKPOINT_BEGIN_ARGS_SIZE_1_6, nullptr, "anywhere", 0, nullptr, nullptr,
                                  nullptr};
  const TakenError refused = take_error(host, ReadOnly::table.writer_begin(handle, &begin));
  EXPECT_EQ(refused.code, DPT_UNIMPLEMENTED);
  EXPECT_EQ(refused.message, "this checkpoint format is read-only");
  EXPECT_EQ(begin.writer, nullptr);
  ReadOnly::table.destroy(handle);
}

// A conversion strategy: no reader, no writer; `convert` fails for the source "bad".
class CountingConvert {
 public:
  CountingConvert(const dpt_host*, const sdk::Config&) {}
  void convert(dpt_checkpoint_convert_args& args) {
    if (std::strcmp(args.source, "bad") == 0) throw sdk::Error(DPT_DATA_LOSS, "bad: truncated");
    args.tensors_written = 3;
    args.bytes_written = 12;
    args.files_written = 1;
  }
};

TEST(SdkAdapters, AConversionStrategyReadsNothingAndClearsItsOutputsOnFailure) {
  using Strategy = sdk::CheckpointAdapter<CountingConvert>;
  const auto* convert = static_cast<const dpt_checkpoint_convert_v1*>(
      sdk::checkpoint_convert_extension<CountingConvert>(DPT_EXT_CHECKPOINT_CONVERT));
  ASSERT_NE(convert, nullptr);
  EXPECT_EQ(sdk::checkpoint_convert_extension<CountingConvert>(DPT_EXT_ROUTER_REPLAY), nullptr);
  TestRuntime runtime;
  const dpt_host* host = runtime.host();
  dpt_instance* handle = nullptr;
  ASSERT_EQ(take_error(host, Strategy::table.create(host, nullptr, &handle)).message, "");
  dpt_checkpoint_open_args open = DPT_CHECKPOINT_OPEN_ARGS_INIT;
  open.path = "anywhere";
  EXPECT_EQ(take_error(host, Strategy::table.reader_open(handle, &open)).code, DPT_UNIMPLEMENTED);
  EXPECT_EQ(open.reader, nullptr);
  dpt_checkpoint_convert_args args = DPT_CHECKPOINT_CONVERT_ARGS_INIT;
  args.destination = "out";
  args.from = "megatron";
  args.to = "hf";
  args.model = "llama";
  args.source = "bad";
  args.tensors_written = args.bytes_written = args.files_written = 7;
  const TakenError failed = take_error(host, convert->convert(handle, &args));
  EXPECT_EQ(failed.code, DPT_DATA_LOSS);
  EXPECT_EQ(args.tensors_written + args.bytes_written + args.files_written, 0u);
  args.source = "good";
  EXPECT_EQ(take_error(host, convert->convert(handle, &args)).message, "");
  EXPECT_EQ(args.tensors_written, 3u);
  EXPECT_EQ(args.bytes_written, 12u);
  EXPECT_EQ(args.files_written, 1u);
  args.model = nullptr;
  EXPECT_EQ(take_error(host, convert->convert(handle, &args)).code, DPT_INVALID_ARGUMENT);
  Strategy::table.destroy(handle);
}

// Each adapter's destroy(NULL) runs in a child process that must exit normally, so an
// adapter that touches the handle fails here instead of crashing the test binary.
TEST(SdkAdapters, DestroyAcceptsNull) {
  using Destroy = void (*)(dpt_instance*);
  for (const Destroy destroy : {Counting::table.destroy, sdk::RouterAdapter<FailingConstructor>::table.destroy,
                                sdk::ParallelAdapter<NoopParallel>::table.destroy,
                                sdk::SandboxAdapter<NoopSandbox>::table.destroy,
                                sdk::CheckpointAdapter<NoopCheckpoint>::table.destroy}) {
    EXPECT_EXIT(
        {
          destroy(nullptr);
          std::exit(0);
        },
        ::testing::ExitedWithCode(0), "");
  }
  EXPECT_EXIT(
      {
        sdk::CheckpointAdapter<NoopCheckpoint>::table.reader_close(nullptr, nullptr);
        sdk::CheckpointAdapter<NoopCheckpoint>::table.writer_abort(nullptr, nullptr);
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(SdkAdapters, SlotsReachTheObjectAndReturnItsErrors) {
  TestRuntime runtime;
  const dpt_host* host = runtime.host();
  dpt_instance* handle = nullptr;
  ASSERT_EQ(take_error(host, Counting::table.create(host, nullptr, &handle)).message, "");
  ASSERT_NE(handle, nullptr);

  const dpt_step_args args{DPT_STEP_ARGS_SIZE_1_0, nullptr, 2.5, 1.0, 0, nullptr};
  EXPECT_EQ(Counting::table.step(handle, &args, nullptr), nullptr);
  EXPECT_EQ(sdk::instance_of<CountingOptimizer>(handle)->object.steps, 2.5);

  const char* names[] = {"w"};
  const dpt_param_group group{DPT_PARAM_GROUP_SIZE_1_0, nullptr, "g", 0, 0, 0, 0, 0, 1, names,
                              nullptr, nullptr};
  const TakenError refused = take_error(host, Counting::table.add_param_group(handle, &group));
  EXPECT_EQ(refused.code, DPT_UNIMPLEMENTED);
  EXPECT_EQ(refused.message, "no tensors, please");

  const auto visitor = [](void*, const char*, const char*, const DLTensor*) -> dpt_error* {
    return nullptr;
  };
  const TakenError broke = take_error(host, Counting::table.export_state(handle, visitor, nullptr));
  EXPECT_EQ(broke.code, DPT_INTERNAL);
  EXPECT_EQ(broke.message, "export broke");
  Counting::table.destroy(handle);
}

TEST(SdkAdapters, ConstructorExceptionsFailCreateAndLeaveNoInstance) {
  TestRuntime runtime;
  const dpt_host* host = runtime.host();
  auto* handle = reinterpret_cast<dpt_instance*>(&runtime);  // must be reset
  const TakenError e =
      take_error(host, sdk::RouterAdapter<FailingConstructor>::table.create(host, nullptr, &handle));
  EXPECT_EQ(e.code, DPT_UNAVAILABLE);
  EXPECT_EQ(e.message, "no device today");
  EXPECT_EQ(handle, nullptr);
}

TEST(SdkAdapters, InputStructsAreCheckedForNullAndSize) {
  TestRuntime runtime;
  const dpt_host* host = runtime.host();
  dpt_instance* handle = nullptr;
  ASSERT_EQ(take_error(host, Counting::table.create(host, nullptr, &handle)).message, "");
  EXPECT_EQ(take_error(host, Counting::table.step(handle, nullptr, nullptr)).code,
            DPT_INVALID_ARGUMENT);
  const dpt_step_args too_small{8, nullptr, 1.0, 1.0, 0, nullptr};
  EXPECT_EQ(take_error(host, Counting::table.step(handle, &too_small, nullptr)).code,
            DPT_INVALID_ARGUMENT);
  Counting::table.destroy(handle);
}

TEST(SdkAdapters, OutputStructsAreFilledAndTooSmallOnesRefused) {
  TestRuntime runtime;
  const dpt_host* host = runtime.host();
  dpt_instance* handle = nullptr;
  ASSERT_EQ(take_error(host, Counting::table.create(host, nullptr, &handle)).message, "");
  dpt_optimizer_memory full{DPT_OPTIMIZER_MEMORY_SIZE_1_0, 0, 0, 0};
  ASSERT_EQ(Counting::table.memory(handle, &full), nullptr);
  EXPECT_EQ(full.device_state_bytes, 11u);
  EXPECT_EQ(full.host_state_bytes, 22u);
  EXPECT_EQ(full.device_staging_bytes, 33u);
  dpt_optimizer_memory too_small{8, 0, 0, 0};
  EXPECT_EQ(take_error(host, Counting::table.memory(handle, &too_small)).code,
            DPT_INVALID_ARGUMENT);
  EXPECT_EQ(too_small.device_state_bytes, 0u);
  Counting::table.destroy(handle);
}

// A sandbox call names the missing field, and a failed exec leaves no output pointer behind.
TEST(SdkAdapters, SandboxArgsAreCheckedAndAFailedExecLeavesNoOutput) {
  using Adapter = sdk::SandboxAdapter<NoopSandbox>;
  TestRuntime runtime;
  const dpt_host* host = runtime.host();
  dpt_instance* handle = nullptr;
  ASSERT_EQ(take_error(host, Adapter::table.create(host, nullptr, &handle)).message, "");
  const char* argv[] = {"/bin/true", nullptr};
  dpt_sandbox_exec_args args{};
  args.struct_size = DPT_SANDBOX_EXEC_ARGS_SIZE_1_4;
  args.argv = argv;
  const TakenError no_box = take_error(host, Adapter::table.exec(handle, &args));
  EXPECT_EQ(no_box.code, DPT_INVALID_ARGUMENT);
  EXPECT_EQ(no_box.message, "exec args: `box` is NULL");

  int box_storage = 0;
  args.box = reinterpret_cast<dpt_sandbox_box*>(&box_storage);
  args.stdout_data = "stale";
  args.stdout_bytes = 5;
  const TakenError gone = take_error(host, Adapter::table.exec(handle, &args));
  EXPECT_EQ(gone.code, DPT_UNAVAILABLE);
  EXPECT_EQ(args.stdout_data, nullptr);
  EXPECT_EQ(args.stdout_bytes, 0u);

  dpt_sandbox_get_args get{DPT_SANDBOX_GET_ARGS_SIZE_1_4, nullptr, args.box, nullptr, nullptr, 0};
  EXPECT_EQ(take_error(host, Adapter::table.get(handle, &get)).message, "get args: `path` is NULL");
  Adapter::table.destroy(handle);
}

// A caller built before a field existed gives a smaller struct_size: the writer stops there
// and the reader sees zero for the fields the caller did not have.
TEST(SdkAdapters, StructsAreTouchedOnlyUpToTheCallersSize) {
  constexpr size_t two_fields = DPT_STRUCT_SIZE(dpt_optimizer_memory, host_state_bytes);
  dpt_optimizer_memory older{static_cast<uint32_t>(two_fields), 0, 0, 777};
  sdk::write_struct(&older, dpt_optimizer_memory{DPT_OPTIMIZER_MEMORY_SIZE_1_0, 11, 22, 33},
                    two_fields, "memory");
  EXPECT_EQ(older.struct_size, two_fields);
  EXPECT_EQ(older.host_state_bytes, 22u);
  EXPECT_EQ(older.device_staging_bytes, 777u);

  const dpt_optimizer_memory read = sdk::read_struct(&older, two_fields, "memory");
  EXPECT_EQ(read.struct_size, two_fields);  // the caller's, so DPT_HAS_FIELD still answers
  EXPECT_EQ(read.device_state_bytes, 11u);
  EXPECT_EQ(read.device_staging_bytes, 0u);
}

// Arguments of a later minor whose new field has a meaningful zero: `momentum_scale` 0
// switches momentum off, while a caller built before the field existed means the default, 1.
struct ProbeArgs {
  uint32_t struct_size;
  double lr_scale;
  double momentum_scale;  // added later
};
constexpr size_t kProbeArgsSizeOld = DPT_STRUCT_SIZE(ProbeArgs, lr_scale);

double momentum_scale_of(const ProbeArgs* given) {
  const ProbeArgs args = sdk::read_struct(given, kProbeArgsSizeOld, "probe args");
  return DPT_HAS_FIELD(&args, ProbeArgs, momentum_scale) ? args.momentum_scale : 1.0;
}

TEST(SdkAdapters, ReadStructKeepsTheCallersSizeSoAZeroFieldIsNotAMissingOne) {
  const ProbeArgs older{static_cast<uint32_t>(kProbeArgsSizeOld), 1.0, 0.0};
  const ProbeArgs newer{static_cast<uint32_t>(sizeof(ProbeArgs)), 1.0, 0.0};
  EXPECT_EQ(momentum_scale_of(&older), 1.0);  // the field was not sent: its default
  EXPECT_EQ(momentum_scale_of(&newer), 0.0);  // sent as zero: zero
  const ProbeArgs larger{static_cast<uint32_t>(sizeof(ProbeArgs) + 8), 1.0, 0.5};
  EXPECT_EQ(sdk::read_struct(&larger, kProbeArgsSizeOld, "probe args").struct_size, sizeof(ProbeArgs));
}

// An optimizer that records what its step saw of the caller's dpt_step_args.
class StepArgsProbe {
 public:
  StepArgsProbe(const dpt_host*, const sdk::Config&) {}
  void add_param_group(const dpt_param_group&) {}
  void step(const dpt_step_args& args, dpt_stream*) {
    saw_grads_field = DPT_HAS_FIELD(&args, dpt_step_args, grads);
    step_grads = sdk::step_gradients(args, 2);
  }
  void export_state(const sdk::StateVisitor&) const {}
  void import_state(const char*, const char*, const DLTensor&) {}
  bool saw_grads_field = false;
  const DLTensor* step_grads = nullptr;
};

TEST(SdkAdapters, AStepSeesWhetherItsCallerKnowsPerStepGradients) {
  using Probe = sdk::OptimizerAdapter<StepArgsProbe>;
  TestRuntime runtime;
  const dpt_host* host = runtime.host();
  dpt_instance* handle = nullptr;
  ASSERT_EQ(take_error(host, Probe::table.create(host, nullptr, &handle)).message, "");
  StepArgsProbe& probe = sdk::instance_of<StepArgsProbe>(handle)->object;

  const dpt_step_args older{DPT_STEP_ARGS_SIZE_1_0, nullptr, 1.0, 1.0, 2, nullptr};  // 1.0 caller
  EXPECT_EQ(take_error(host, Probe::table.step(handle, &older, nullptr)).message, "");
  EXPECT_FALSE(probe.saw_grads_field);
  EXPECT_EQ(probe.step_grads, nullptr);  // the bytes past its size were never read

  dpt_step_args plain = DPT_STEP_ARGS_INIT;
  EXPECT_EQ(take_error(host, Probe::table.step(handle, &plain, nullptr)).message, "");
  EXPECT_TRUE(probe.saw_grads_field);
  EXPECT_EQ(probe.step_grads, nullptr);

  const DLTensor grads[2] = {};
  plain.grad_count = 2;
  plain.grads = grads;
  EXPECT_EQ(take_error(host, Probe::table.step(handle, &plain, nullptr)).message, "");
  EXPECT_EQ(probe.step_grads, grads);

  plain.grad_count = 1;
  const TakenError miscounted = take_error(host, Probe::table.step(handle, &plain, nullptr));
  EXPECT_EQ(miscounted.code, DPT_INVALID_ARGUMENT);
  EXPECT_EQ(miscounted.message, "step args: 1 per-step gradients for 2 tensors");
  Probe::table.destroy(handle);
}

constexpr dpt_param_decl kParams[] = {sdk::float_param("lr", "0.1", "learning rate")};
constexpr dpt_plugin_descriptor kCounting =
    sdk::describe<Counting>("counting", "1.2.3", "counts steps", sdk::param_list<kParams>);
constexpr dpt_plugin_descriptor kPlain = sdk::describe<Plain>("plain", "0.0.1", "does nothing");

TEST(SdkAdapters, DescriptorFindsItsKindTableAndNothingElse) {
  EXPECT_EQ(kCounting.struct_size, DPT_PLUGIN_DESCRIPTOR_SIZE_1_0);
  EXPECT_STREQ(kCounting.kind, DPT_KIND_OPTIMIZER);
  EXPECT_STREQ(kCounting.version, "1.2.3");
  EXPECT_EQ(kCounting.param_count, 1u);
  EXPECT_EQ(kCounting.params[0], &kParams[0]);
  EXPECT_EQ(kCounting.get_extension(DPT_KIND_OPTIMIZER), &Counting::table);
  EXPECT_EQ(kCounting.get_extension(DPT_KIND_ROUTER), nullptr);
  EXPECT_EQ(kCounting.get_extension(nullptr), nullptr);
  EXPECT_EQ(kPlain.param_count, 0u);
  EXPECT_EQ(kPlain.params, nullptr);
}

const void* replay_extension(const char* id) {
  static const int marker = 0;
  return std::strcmp(id, "dopant.test.replay/1") == 0 ? &marker : nullptr;
}

TEST(SdkAdapters, ExtraLookupAnswersOtherCapabilities) {
  constexpr dpt_plugin_descriptor with_extra =
      sdk::describe<Plain, &replay_extension>("plain", "1.0.0", "with an extension");
  EXPECT_EQ(with_extra.get_extension(DPT_KIND_OPTIMIZER), &Plain::table);
  EXPECT_NE(with_extra.get_extension("dopant.test.replay/1"), nullptr);
  EXPECT_EQ(with_extra.get_extension("dopant.test.other/1"), nullptr);
}

TEST(SdkAdapters, LibraryRecordCarriesTheHeadersAbiVersion) {
  static constexpr const dpt_plugin_descriptor* plugins[] = {&kCounting, &kPlain};
  constexpr dpt_library library = sdk::make_library("lib", "9.9.9", plugins);
  EXPECT_EQ(library.struct_size, DPT_LIBRARY_SIZE_1_3);
  EXPECT_EQ(library.deinit, nullptr);
  EXPECT_EQ(library.abi_major, static_cast<uint32_t>(DPT_ABI_MAJOR));
  EXPECT_EQ(library.abi_minor, static_cast<uint32_t>(DPT_ABI_MINOR));
  EXPECT_EQ(library.plugin_count, 2u);
  EXPECT_EQ(library.plugins[1], &kPlain);
  EXPECT_EQ(library.init, nullptr);
}

}  // namespace
