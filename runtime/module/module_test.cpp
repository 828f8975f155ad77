//===- runtime/module/module_test.cpp - Loader, inputs, comparison --------===//
#include "common/file_util.h"
#include "runtime/module/compare.h"
#include "runtime/module/element_io.h"
#include "runtime/module/executor.h"
#include "runtime/module/inputs.h"
#include "runtime/module/module.h"

#include "common/tool_search.h"
#include "runtime/hal/drivers/registration.h"
#include "runtime/testing/device_environment.h"
#include "runtime/testing/module_writer.h"
#include "runtime/testing/sample_modules.h"

#include <chrono>
#include <gtest/gtest.h>

#include <set>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstring>

namespace kb::module {
namespace {

using testing::writeModule;

/// The sample program (GLSL via glslc), built once per test binary.
const StatusOr<Module> &sampleOrError() {
  static StatusOr<Module> m = testing::makeSampleProgram({});
  return m;
}
const Module *sample() {
  return sampleOrError().ok() ? &*sampleOrError() : nullptr;
}
/// Skips when glslc is not installed (asked of the tool search, not read
/// from the build's error); with glslc there, a sample that does not build
/// is a failure: the loader tests would otherwise all skip on a regression.
#define REQUIRE_SAMPLE()                                                       \
  do {                                                                         \
    if (!searchTool("glslc").ok())                                             \
      GTEST_SKIP() << "glslc is not installed; the sample program needs it";   \
    ASSERT_TRUE(sampleOrError().ok()) << sampleOrError().status().message();   \
  } while (false)

hal::DeviceProperties fakeVulkan() {
  hal::DeviceProperties p;
  p.driver = "vulkan";
  p.name = "fake";
  p.limits.maxWorkgroupSize = {1024, 1024, 64};
  p.limits.maxWorkgroupInvocations = 1024;
  p.limits.maxWorkgroupCount = {65535, 65535, 65535};
  p.limits.maxSharedMemoryBytes = 32768;
  p.limits.maxConstantBytes = 128;
  p.limits.maxBindings = 16;
  p.limits.maxBindingRange = uint64_t(1) << 32;
  return p;
}

TEST(ModuleTest, RoundTripsThroughTheSchema) {
  REQUIRE_SAMPLE();
  for (bool typed : {true, false}) {
    testing::WriteOptions options;
    options.typedConstants = typed;
    auto parsed = parseModule(writeModule(*sample(), options), "sample.kbm");
    ASSERT_TRUE(parsed.ok()) << parsed.status().message();
    EXPECT_EQ(parsed->schemaVersion, kSchemaVersion);
    EXPECT_EQ(parsed->entryFunction, "main");
    ASSERT_EQ(parsed->executables.size(), 2u);
    EXPECT_EQ(parsed->executables[0].variants.size(), 2u);
    EXPECT_EQ(parsed->executables[0].variants[1].role, VariantRole::Candidate);
    EXPECT_EQ(parsed->executables[1].variants[0].exports[0].constants.size(),
              3u);
    const Function &fn = parsed->functions[0];
    ASSERT_EQ(fn.ops.size(), 6u);
    EXPECT_EQ(fn.ops[5].constants, sample()->functions[0].ops[5].constants)
        << (typed ? "typed" : "raw");
    EXPECT_EQ(fn.buffers[1].init.distribution, Distribution::Normal);
    EXPECT_EQ(parsed->benchmarks[0].dispatchOp, 4u);
  }
}

TEST(ModuleTest, SubgroupSizeAndSpecializationAreStoredPerVariant) {
  REQUIRE_SAMPLE();
  Module m = *sample();
  KernelAbi &candidate = m.executables[0].variants[1].exports[0];
  candidate.subgroupSize = 16;
  candidate.fullSubgroups = true;
  candidate.specialization = {{3, "TILE", 4, 8},
                              {5, "BIG", 8, uint64_t(1) << 40}};
  auto parsed = parseModule(writeModule(m), "pipeline.kbm");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  const KernelAbi &c = parsed->executables[0].variants[1].exports[0];
  EXPECT_EQ(c.subgroupSize, 16u);
  EXPECT_TRUE(c.fullSubgroups);
  ASSERT_EQ(c.specialization.size(), 2u);
  EXPECT_EQ(c.specialization[0].id, 3u);
  EXPECT_EQ(c.specialization[0].name, "TILE");
  EXPECT_EQ(c.specialization[0].size, 4u);
  EXPECT_EQ(c.specialization[0].bits, 8u);
  EXPECT_EQ(c.specialization[1].size, 8u);
  EXPECT_EQ(c.specialization[1].bits, uint64_t(1) << 40);
  // The reference variant of the same executable keeps none.
  const KernelAbi &r = parsed->executables[0].variants[0].exports[0];
  EXPECT_EQ(r.subgroupSize, 0u);
  EXPECT_FALSE(r.fullSubgroups);
  EXPECT_TRUE(r.specialization.empty());

  candidate.specialization = {{3, "A", 4, 1}, {3, "B", 4, 2}};
  auto twice = parseModule(writeModule(m), "twice.kbm");
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.status().message().find("specialization constant 3 is set "
                                          "twice"),
            std::string::npos)
      << twice.status().message();
  candidate.specialization = {{3, "A", 2, 1}};
  auto size = parseModule(writeModule(m), "size.kbm");
  ASSERT_FALSE(size.ok());
  EXPECT_NE(size.status().message().find("expected 4 or 8 bytes"),
            std::string::npos)
      << size.status().message();
}

// A handwritten kernel with its own workgroup-count rule (kernel.toml [abi]
// workload_per_workgroup): the dispatch records its workload, each variant
// its rule, so candidate and reference run their own counts.
TEST(ModuleTest, EachVariantRunsItsOwnWorkgroupCount) {
  REQUIRE_SAMPLE();
  Module m = *sample();
  Op *dispatch = nullptr;
  for (Op &op : m.functions[0].ops)
    if (op.kind == Op::Kind::Dispatch && op.executable == 0)
      dispatch = &op;
  ASSERT_NE(dispatch, nullptr);
  dispatch->workload = std::array<uint64_t, 3>{1000, 1, 1};
  m.executables[0]
      .variants[1]
      .exports[dispatch->exportIndex]
      .workloadPerWorkgroup = {128, 1, 1};
  auto parsed = parseModule(writeModule(m), "count.kbm");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  const Op *op = nullptr;
  for (const Op &o : parsed->functions[0].ops)
    if (o.kind == Op::Kind::Dispatch && o.executable == 0)
      op = &o;
  ASSERT_NE(op, nullptr);
  ASSERT_TRUE(op->workload.has_value());
  const Executable &exe = parsed->executables[0];
  EXPECT_EQ(op->workgroupCountFor(exe.variants[1]),
            (std::array<uint32_t, 3>{8, 1, 1})); // ceildiv(1000, 128)
  // The reference declares none: the dispatch's own count.
  EXPECT_EQ(op->workgroupCountFor(exe.variants[0]), dispatch->workgroupCount);

  m.executables[0]
      .variants[1]
      .exports[dispatch->exportIndex]
      .workloadPerWorkgroup = {128, 0, 1};
  auto zero = parseModule(writeModule(m), "zero.kbm");
  ASSERT_FALSE(zero.ok());
  EXPECT_NE(zero.status().message().find(
                "workload per workgroup has a zero dimension"),
            std::string::npos)
      << zero.status().message();
}

// A CUDA kernel with a parameter order of its own: read back per variant;
// an order that is not a permutation of the export's slots is refused
// before any launch could read past them.
TEST(ModuleTest, AVariantKeepsItsParameterOrder) {
  REQUIRE_SAMPLE();
  Module m = *sample();
  KernelAbi &own = m.executables[0].variants[1].exports[0];
  size_t slots = own.bindings.size() + own.constants.size();
  ASSERT_GE(slots, 2u);
  for (size_t i = slots; i-- > 0;)
    own.parameterOrder.push_back(static_cast<uint32_t>(i));
  auto parsed = parseModule(writeModule(m), "order.kbm");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->executables[0].variants[1].exports[0].parameterOrder,
            own.parameterOrder);
  EXPECT_TRUE(
      parsed->executables[0].variants[0].exports[0].parameterOrder.empty());

  own.parameterOrder.back() = own.parameterOrder.front();
  auto twice = parseModule(writeModule(m), "twice.kbm");
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.status().message().find("parameter order: "),
            std::string::npos)
      << twice.status().message();
  EXPECT_NE(twice.status().message().find("is listed twice"), std::string::npos)
      << twice.status().message();
}

// A Vulkan kernel that takes its constants in a uniform block: its
// binding and std140 offsets are read back per variant (the other keeps
// push constants); a block at a storage buffer's binding, with an offset
// per constant missing, or a constant past its end is refused at load.
TEST(ModuleTest, AVariantKeepsItsUniformConstants) {
  REQUIRE_SAMPLE();
  Module m = *sample();
  ASSERT_EQ(m.executables[0].variants[1].format, hal::ExecutableFormat::Spirv);
  KernelAbi &own = m.executables[0].variants[1].exports[0];
  ASSERT_GE(own.constants.size(), 1u);
  uint32_t after = static_cast<uint32_t>(own.bindings.size());
  UniformConstants block{after + 1, {}, 0};
  for (size_t i = 0; i < own.constants.size(); ++i)
    block.offsets.push_back(static_cast<uint32_t>(16 * i));
  block.size = static_cast<uint32_t>(16 * own.constants.size());
  own.uniformConstants = block;
  auto parsed = parseModule(writeModule(m), "uniform.kbm");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->executables[0].variants[1].exports[0].uniformConstants,
            block);
  EXPECT_FALSE(parsed->executables[0].variants[0].exports[0].uniformConstants);

  auto refused = [&](UniformConstants bad, const std::string &message) {
    own.uniformConstants = bad;
    auto wrong = parseModule(writeModule(m), "bad.kbm");
    ASSERT_FALSE(wrong.ok()) << message;
    EXPECT_NE(wrong.status().message().find(message), std::string::npos)
        << wrong.status().message();
  };
  UniformConstants bad = block;
  bad.binding = 0;
  refused(bad, "uniform constants at binding 0, which is binding 0");
  bad = block;
  bad.offsets.pop_back();
  refused(bad,
          "offsets for " + std::to_string(own.constants.size()) + " constants");
  bad = block;
  bad.offsets.back() = bad.size;
  refused(bad, "ends past the block's");
  // A binding no descriptor set layout should be sized by.
  bad = block;
  bad.binding = 0xFFFFFFFFu;
  refused(bad, "uniform constants at binding 4294967295: at most 64 bindings "
               "past the last storage buffer");
}

TEST(ModuleTest, ADeviceWithoutTheRequiredSubgroupSizeCannotRunIt) {
  REQUIRE_SAMPLE();
  Module m = *sample();
  m.executables[0].variants[1].exports[0].subgroupSize = 64;
  hal::DeviceProperties props = fakeVulkan();
  props.minSubgroupSize = props.maxSubgroupSize = 8; // lavapipe
  std::string why = whyDeviceCannotRun(m, m.functions[0], props);
  EXPECT_NE(why.find("executable `saxpy` export 0 (`main`) requires subgroup "
                     "size 64, but vulkan:0 (fake) supports 8 to 8"),
            std::string::npos)
      << why;
  props.maxSubgroupSize = 64;
  EXPECT_EQ(whyDeviceCannotRun(m, m.functions[0], props), "");
}

TEST(ModuleTest, NotAModuleAndTruncatedModulesAreDataLoss) {
  REQUIRE_SAMPLE();
  auto junk = parseModule("this is not a flatbuffer at all", "junk.kbm");
  EXPECT_EQ(junk.status().code(), StatusCode::DataLoss);
  EXPECT_NE(junk.status().message().find("junk.kbm: not a .kbm module"),
            std::string::npos);
  std::string bytes = writeModule(*sample());
  for (size_t cut : {size_t(12), bytes.size() / 3, bytes.size() - 9}) {
    auto truncated = parseModule(bytes.substr(0, cut), "t.kbm");
    ASSERT_FALSE(truncated.ok()) << cut;
    EXPECT_EQ(truncated.status().code(), StatusCode::DataLoss) << cut;
  }
  EXPECT_EQ(loadModuleFile("/nonexistent/program.kbm").status().code(),
            StatusCode::NotFound);
}

// A FIFO given as a module blocked `run` forever in open().
// Anything that is not a regular file is refused before it is read.
TEST(ModuleTest, NonRegularFilesAreRefusedWithoutBlocking) {
  auto scratch = kb::TempDir::create(::testing::TempDir(), "kb-module-fifo");
  ASSERT_TRUE(scratch.ok()) << scratch.status().message();
  std::string dir = scratch->path().string();
  std::string fifo = dir + "/program.kbm";
  ::unlink(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  for (const std::string &path : {fifo, dir, std::string("/dev/zero")}) {
    auto start = std::chrono::steady_clock::now();
    auto m = loadModuleFile(path);
    // Reading a FIFO with no writer or /dev/zero never ends: any bound
    // shows the refusal came first; a wide one holds on a loaded machine.
    EXPECT_LT(std::chrono::steady_clock::now() - start,
              std::chrono::seconds(30));
    ASSERT_FALSE(m.ok()) << path;
    EXPECT_EQ(m.status().code(), StatusCode::InvalidArgument) << path;
    EXPECT_NE(m.status().message().find("not a regular file"),
              std::string::npos)
        << m.status().message();
  }
  ::unlink(fifo.c_str());
}

TEST(ModuleTest, NewerSchemaVersionIsRefused) {
  REQUIRE_SAMPLE();
  testing::WriteOptions options;
  options.schemaVersion = 2;
  auto m = parseModule(writeModule(*sample(), options), "new.kbm");
  EXPECT_EQ(m.status().code(), StatusCode::InvalidArgument);
  EXPECT_NE(m.status().message().find("schema version 2"), std::string::npos);
  EXPECT_NE(m.status().message().find("update kernel-bench"),
            std::string::npos);
}

void expectError(const Module &m, const std::string &needle) {
  auto parsed = parseModule(writeModule(m), "bad.kbm");
  ASSERT_FALSE(parsed.ok()) << "expected an error containing: " << needle;
  EXPECT_EQ(parsed.status().code(), StatusCode::InvalidArgument);
  EXPECT_NE(parsed.status().message().find(needle), std::string::npos)
      << parsed.status().message();
}

TEST(ModuleTest, StructuralErrorsNameTheOffendingElement) {
  REQUIRE_SAMPLE();
  Module m = *sample();
  m.functions[0].ops[4].executable = 5;
  expectError(
      m,
      "bad.kbm: function 0 (`main`) op 4: executable index 5 is out of range");

  m = *sample();
  std::swap(m.functions[0].ops[0], m.functions[0].ops[4]);
  expectError(m, "before its alloc op");

  m = *sample();
  m.functions[0].buffers[0].elementType = ElementType::I32;
  expectError(m,
              "binding 0 (`x`): expects f32 elements but buffer 0 holds i32");

  m = *sample();
  m.functions[0].ops[4].bindings[2].offset = 3996;
  m.functions[0].ops[4].bindings[2].length = 8;
  expectError(m, "exceeds buffer 2 of 4000 bytes");

  m = *sample();
  m.functions[0].ops[5].constants.resize(8);
  expectError(
      m, "raw constant data has 8 bytes; the export's constant block has 20");

  m = *sample();
  m.executables[1].variants.push_back(m.executables[0].variants[0]);
  expectError(m, "executable 1 (`widen`) variant 1");

  m = *sample();
  m.functions[0].outputs[0].buffer = 9;
  expectError(m, "output 0: buffer 9 is not an allocated buffer");

  m = *sample();
  m.entryFunction = "nope";
  expectError(m, "names `nope`");

  m = *sample();
  m.benchmarks[0].dispatchOp = 1;
  expectError(m, "op 1 of `main` is not a dispatch");
}

/// One dispatch of a SPIR-V kernel whose binding 0 holds 64 structs of
/// 32 bytes: two vec2 and a uint, 12 bytes of padding (no SPIR-V is read
/// at load, so its object is a stand-in).
Module structModule() {
  Module m;
  m.schemaVersion = kSchemaVersion;
  m.name = "structs";
  KernelAbi abi;
  abi.entry = "main";
  abi.bindings = {{"particles", ElementType::U8, Access::ReadWrite}};
  abi.bindings[0].structLayout =
      StructLayout{"Particle",
                   32,
                   {{"pos", ElementType::F32, 0, 2, 1, 0},
                    {"vel", ElementType::F32, 8, 2, 1, 0},
                    {"id", ElementType::U32, 16, 1, 1, 0}}};
  abi.workgroupSize = {64, 1, 1};
  Variant variant;
  variant.format = hal::ExecutableFormat::Spirv;
  variant.target = "vulkan1.2";
  variant.role = VariantRole::Candidate;
  variant.data = std::string("\x03\x02\x23\x07", 4);
  variant.exports = {abi};
  m.executables = {{"particles", {variant}}};
  Function fn;
  fn.name = "main";
  fn.buffers = {{"particles", ElementType::U8, 64 * 32, {}}};
  fn.buffers[0].init.distribution = Distribution::Range;
  fn.buffers[0].init.start = 1;
  Op alloc;
  alloc.kind = Op::Kind::Alloc;
  Op dispatch;
  dispatch.kind = Op::Kind::Dispatch;
  dispatch.bindings = {{0, 0, 0}};
  fn.ops = {alloc, dispatch};
  m.functions = {fn};
  m.entryFunction = "main";
  return m;
}

// A binding of structs keeps its layout through the .kbm; the buffer it
// binds takes it and is filled member by member, padding left zero.
TEST(ModuleTest, AStructBindingLaysOutAndFillsItsBuffer) {
  Module m = structModule();
  auto parsed = parseModule(writeModule(m), "structs.kbm");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  const StructLayout &layout =
      *m.executables[0].variants[0].exports[0].bindings[0].structLayout;
  EXPECT_EQ(
      parsed->executables[0].variants[0].exports[0].bindings[0].structLayout,
      layout);
  const BufferDecl &buffer = parsed->functions[0].buffers[0];
  ASSERT_EQ(buffer.structLayout, layout);
  std::vector<uint8_t> bytes = generateContents(buffer);
  ASSERT_EQ(bytes.size(), 64u * 32u);
  // A range counts components: element 1's pos.x is the 6th value drawn.
  float pos[2];
  uint32_t id = 0;
  std::memcpy(pos, bytes.data() + 32, 8);
  std::memcpy(&id, bytes.data() + 32 + 16, 4);
  EXPECT_EQ(pos[0], 6.0f);
  EXPECT_EQ(pos[1], 7.0f);
  EXPECT_EQ(id, 10u);
  for (size_t e = 0; e < 64; ++e)
    for (size_t b = 20; b < 32; ++b)
      ASSERT_EQ(bytes[e * 32 + b], 0) << "padding of element " << e;
}

TEST(ModuleTest, ABadStructLayoutIsRefusedAtLoad) {
  Module m = structModule();
  StructLayout &layout =
      *m.executables[0].variants[0].exports[0].bindings[0].structLayout;
  layout.members[2].offset = 30;
  expectError(m, "binding 0's struct layout: member 2 (`id`) ends at byte "
                 "34, past the stride of 32 bytes");
  m = structModule();
  m.executables[0].variants[0].exports[0].bindings[0].elementType =
      ElementType::F32;
  m.functions[0].buffers[0].elementType = ElementType::F32;
  expectError(m, "binding 0's struct layout on f32 elements; a struct "
                 "binding's buffer is bytes (u8)");
  m = structModule();
  m.executables[0].variants[0].format = hal::ExecutableFormat::Ptx;
  m.executables[0].variants[0].target = "sm_90";
  expectError(m, "a struct binding is a Vulkan (SPIR-V) layout");
  m = structModule();
  m.functions[0].ops[1].bindings[0].offset = 16;
  expectError(m, "offset and length must be multiples of the element size 32");
}

TEST(ModuleTest, DeviceChecksRunBeforeAnyDriverCall) {
  REQUIRE_SAMPLE();
  hal::DeviceProperties props = fakeVulkan();
  EXPECT_TRUE(
      checkModuleForDevice(*sample(), props, VariantChoice::PreferCandidate)
          .ok());
  // Limits: saxpy's workgroup of 64 does not fit a 32-wide device.
  props.limits.maxWorkgroupSize[0] = 32;
  Status s =
      checkModuleForDevice(*sample(), props, VariantChoice::ReferenceOnly);
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_NE(s.message().find("executable `saxpy` export 0 (`main`): workgroup "
                             "size 64x1x1 exceeds the device limit"),
            std::string::npos)
      << s.message();
  // ABI: the candidate's SPIR-V is really `widen` (2 bindings, 3 constants).
  Module m = *sample();
  m.executables[0].variants[1].data = m.executables[1].variants[0].data;
  s = checkModuleForDevice(m, fakeVulkan(), VariantChoice::PreferCandidate);
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_NE(
      s.message().find("executable `saxpy` (spirv, vulkan1.1, candidate) "
                       "export 0 (`main`) does not match its declared ABI"),
      std::string::npos)
      << s.message();
  // ...which the reference-only run does not load.
  EXPECT_TRUE(
      checkModuleForDevice(m, fakeVulkan(), VariantChoice::ReferenceOnly).ok());
}

TEST(ModuleTest, VariantSelectionExplainsWhatIsMissing) {
  REQUIRE_SAMPLE();
  hal::DeviceProperties cuda = fakeVulkan();
  cuda.driver = "cuda";
  cuda.ccMajor = 9;
  auto v = selectVariant(sample()->executables[0], cuda,
                         VariantChoice::PreferCandidate);
  EXPECT_EQ(v.status().code(), StatusCode::NotFound);
  EXPECT_NE(v.status().message().find(
                "needs a cubin for sm_90 or PTX for sm_90 or older"),
            std::string::npos)
      << v.status().message();
  auto c = selectVariant(sample()->executables[0], fakeVulkan(),
                         VariantChoice::PreferCandidate);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ((*c)->role, VariantRole::Candidate);
  auto r = selectVariant(sample()->executables[0], fakeVulkan(),
                         VariantChoice::ReferenceOnly);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)->role, VariantRole::Reference);
}

TEST(ModuleTest, ATunedCandidateRunsOnItsModelOnly) {
  hal::DeviceProperties here = fakeVulkan();
  auto variant = [](VariantRole role, const std::string &device) {
    Variant v;
    v.format = hal::ExecutableFormat::Spirv;
    v.target = "vulkan1.2";
    v.role = role;
    v.device = device;
    return v;
  };
  Executable exe;
  exe.name = "matmul";
  exe.variants = {variant(VariantRole::Reference, ""),
                  variant(VariantRole::Candidate, ""),
                  variant(VariantRole::Candidate, "Other GPU"),
                  variant(VariantRole::Candidate, here.name)};
  // Tuned for this model: preferred over the default parameters.
  auto chosen = selectVariant(exe, here, VariantChoice::PreferCandidate);
  ASSERT_TRUE(chosen.ok());
  EXPECT_EQ(*chosen, &exe.variants[3]);
  EXPECT_EQ(tuningNote(exe, **chosen, here), "tuned for " + here.name);
  // Another model: the default parameters, and the note says so.
  hal::DeviceProperties other = here;
  other.name = "Third GPU";
  chosen = selectVariant(exe, other, VariantChoice::PreferCandidate);
  ASSERT_TRUE(chosen.ok());
  EXPECT_EQ(*chosen, &exe.variants[1]);
  EXPECT_EQ(tuningNote(exe, **chosen, other),
            "default parameters: none tuned for Third GPU (tuned for: "
            "Other GPU, fake)");
  // A model name from a user's tuned.toml is printed on one line.
  exe.variants[2].device = "Other\nGPU";
  EXPECT_EQ(tuningNote(exe, **chosen, other),
            "default parameters: none tuned for Third GPU (tuned for: "
            "Other?GPU, fake)");
  // Without a default candidate, the generated kernel runs: nothing to say.
  exe.variants.erase(exe.variants.begin() + 1);
  chosen = selectVariant(exe, other, VariantChoice::PreferCandidate);
  ASSERT_TRUE(chosen.ok());
  EXPECT_EQ((*chosen)->role, VariantRole::Reference);
  EXPECT_EQ(tuningNote(exe, **chosen, other), "");
  // References never carry a device; the reference-only run ignores tuning.
  chosen = selectVariant(exe, here, VariantChoice::ReferenceOnly);
  ASSERT_TRUE(chosen.ok());
  EXPECT_EQ((*chosen)->role, VariantRole::Reference);
}

TEST(InputsTest, SeededAndWithinTheDistribution) {
  BufferDecl b{"x", ElementType::F32, 4096, {}};
  b.init.distribution = Distribution::Uniform;
  b.init.seed = 42;
  b.init.low = -2;
  b.init.high = 3;
  std::vector<uint8_t> first = generateContents(b), again = generateContents(b);
  EXPECT_EQ(first, again);
  b.init.seed = 43;
  EXPECT_NE(first, generateContents(b));
  const float *f = reinterpret_cast<const float *>(first.data());
  double sum = 0;
  for (size_t i = 0; i < 4096; ++i) {
    ASSERT_GE(f[i], -2.0f);
    ASSERT_LT(f[i], 3.0f);
    sum += f[i];
  }
  EXPECT_NEAR(sum / 4096, 0.5, 0.1);

  BufferDecl r{"r", ElementType::I8, 300, {}};
  r.init.distribution = Distribution::Range;
  r.init.start = 0;
  r.init.step = 1;
  std::vector<uint8_t> ints = generateContents(r);
  EXPECT_EQ(static_cast<int8_t>(ints[5]), 5);
  EXPECT_EQ(static_cast<int8_t>(ints[200]), 127) << "clamped, not wrapped";

  BufferDecl z{"z", ElementType::F16, 7, {}};
  EXPECT_EQ(generateContents(z), std::vector<uint8_t>(14, 0));
}

TEST(ElementIoTest, HalfAndBfloat16Conversions) {
  EXPECT_EQ(floatToHalf(1.0f), 0x3c00);
  EXPECT_EQ(floatToHalf(-2.0f), 0xc000);
  EXPECT_EQ(floatToHalf(65504.0f), 0x7bff);
  EXPECT_EQ(floatToHalf(1e6f), 0x7c00);
  EXPECT_EQ(floatToHalf(1e-9f), 0x0000);
  EXPECT_EQ(floatToHalf(5.9604645e-8f), 0x0001); // smallest subnormal
  EXPECT_EQ(halfToFloat(0x0001), 5.9604645e-8f);
  EXPECT_EQ(halfToFloat(0x3555), 0.333251953125f);
  EXPECT_EQ(floatToHalf(1.0f + 1.0f / 2048), 0x3c00) << "ties to even";
  EXPECT_EQ(floatToBfloat16(1.0f), 0x3f80);
  EXPECT_EQ(bfloat16ToFloat(0x4049), 3.140625f);
  EXPECT_TRUE(std::isnan(halfToFloat(floatToHalf(NAN))));
}

TEST(CompareTest, TolerancesNansAndExactIntegers) {
  std::vector<float> ref = {1.0f, 2.0f, NAN, INFINITY, 100.0f};
  std::vector<float> cand = {1.0f + 1e-6f, 2.5f, NAN, INFINITY, 100.001f};
  auto bytes = [](const std::vector<float> &v) {
    std::vector<uint8_t> b(v.size() * 4);
    std::memcpy(b.data(), v.data(), b.size());
    return b;
  };
  Comparison c = compareElements(ElementType::F32, bytes(ref), bytes(cand),
                                 defaultTolerance(ElementType::F32));
  EXPECT_EQ(c.elementCount, 5u);
  EXPECT_EQ(c.mismatchCount, 1u);
  ASSERT_EQ(c.firstMismatches.size(), 1u);
  EXPECT_EQ(c.firstMismatches[0].index, 1u);
  EXPECT_EQ(c.firstMismatches[0].candidate, 2.5);

  std::vector<uint8_t> a(16, 0), b(16, 0);
  b[9] = 1; // element 1 of two u64s differs by 256
  Comparison ints = compareElements(ElementType::U64, a, b,
                                    defaultTolerance(ElementType::U64));
  EXPECT_EQ(ints.mismatchCount, 1u);
  EXPECT_EQ(ints.firstMismatches[0].index, 1u);
}

// A float sum over n elements in another order than the reference's is off
// by ~sqrt(n) ulps: the default tolerance flags it, a declared reduction
// length (tolerance.h) scales abs and rel by sqrt(n) and accepts it; a wrong
// result stays wrong, and integers stay exact whatever the length.
TEST(CompareTest, ReductionLengthScalesFloatTolerances) {
  const uint64_t n = 1 << 20;
  std::vector<float> input(n);
  uint32_t state = 12345;
  for (float &v : input) {
    state = state * 1664525u + 1013904223u;
    v = static_cast<float>(state >> 8) / float(1 << 24) * 2 - 1;
  }
  // The reference sums in order, the candidate as 256 strided partials (a
  // GPU reduction's order); both in float.
  float serial = 0;
  for (float v : input)
    serial += v;
  std::vector<float> partials(256, 0);
  for (uint64_t i = 0; i < n; ++i)
    partials[i % 256] += input[i];
  float strided = 0;
  for (float p : partials)
    strided += p;
  auto bytes = [](float v) {
    std::vector<uint8_t> b(4);
    std::memcpy(b.data(), &v, 4);
    return b;
  };
  ASSERT_NE(serial, strided) << "the orders must round differently";
  Tolerance plain = resolveTolerance(ElementType::F32, {});
  EXPECT_FALSE(
      compareElements(ElementType::F32, bytes(serial), bytes(strided), plain)
          .ok())
      << serial << " vs " << strided;
  ToleranceOverride declared;
  declared.reductionLength = double(n);
  Tolerance scaled = resolveTolerance(ElementType::F32, {&declared});
  EXPECT_DOUBLE_EQ(scaled.abs, 1e-5 * 1024);
  EXPECT_DOUBLE_EQ(scaled.rel, 1e-4 * 1024);
  EXPECT_TRUE(
      compareElements(ElementType::F32, bytes(serial), bytes(strided), scaled)
          .ok());
  EXPECT_FALSE(
      compareElements(ElementType::F32, bytes(serial), bytes(-serial), scaled)
          .ok());
  EXPECT_EQ(resolveTolerance(ElementType::I32, {&declared}).abs, 0);

  // Layers: later ones win field by field; the output's length over the
  // kernel's.
  ToleranceOverride module{0.5, std::nullopt, std::nullopt, std::nullopt};
  ToleranceOverride output{std::nullopt, 0.25, 2u, 4.0};
  Tolerance layered = resolveTolerance(ElementType::F64,
                                       {&module, nullptr, &declared, &output});
  EXPECT_DOUBLE_EQ(layered.abs, 0.5 * 2);
  EXPECT_DOUBLE_EQ(layered.rel, 0.25 * 2);
  EXPECT_EQ(layered.ulp, 2u);
}

// A struct output compares member by member, each with its own type's
// tolerance (an integer member exactly), padding ignored; a struct with
// several wrong members counts once.
TEST(CompareTest, StructsCompareMemberByMember) {
  StructLayout layout{"P",
                      16,
                      {{"pos", ElementType::F32, 0, 2, 1, 0},
                       {"id", ElementType::U32, 8, 1, 1, 0}}};
  std::vector<uint8_t> ref(32, 0), cand;
  float pos[4] = {1.0f, 2.0f, 3.0f, 4.0f};
  uint32_t ids[2] = {7, 8};
  for (int e = 0; e < 2; ++e) {
    std::memcpy(ref.data() + 16 * e, pos + 2 * e, 8);
    std::memcpy(ref.data() + 16 * e + 8, ids + e, 4);
  }
  cand = ref;
  cand[12] = 0xff; // padding
  float close = 2.0f + 1e-6f;
  std::memcpy(cand.data() + 4, &close, 4); // within f32's tolerance
  Comparison same = compareStructs(layout, ref, cand, {});
  EXPECT_TRUE(same.ok());
  EXPECT_EQ(same.elementCount, 2u);
  float far = 3.5f;
  uint32_t id = 9;
  std::memcpy(cand.data() + 16, &far, 4);
  std::memcpy(cand.data() + 24, &id, 4);
  Comparison wrong = compareStructs(layout, ref, cand, {});
  EXPECT_EQ(wrong.mismatchCount, 1u);
  ASSERT_EQ(wrong.firstMismatches.size(), 2u);
  EXPECT_EQ(wrong.firstMismatches[0].index, 1u);
  EXPECT_EQ(wrong.firstMismatches[0].member, "pos[0]");
  EXPECT_EQ(wrong.firstMismatches[0].candidate, 3.5);
  EXPECT_EQ(wrong.firstMismatches[1].member, "id");
  // A declared tolerance reaches every member, as it does every element.
  ToleranceOverride loose;
  loose.abs = 0.6;
  EXPECT_EQ(compareStructs(layout, ref, cand, {&loose}).firstMismatches.size(),
            1u);
}

TEST(CompareTest, UlpToleranceInTheElementsOwnType) {
  float one = 1.0f, next = std::nextafter(std::nextafter(1.0f, 2.0f), 2.0f);
  std::vector<uint8_t> r(4), c(4);
  std::memcpy(r.data(), &one, 4);
  std::memcpy(c.data(), &next, 4);
  Tolerance none{0, 0, 0};
  EXPECT_FALSE(compareElements(ElementType::F32, r, c, none).ok());
  EXPECT_FALSE(compareElements(ElementType::F32, r, c, {0, 0, 1}).ok());
  EXPECT_TRUE(compareElements(ElementType::F32, r, c, {0, 0, 2}).ok());
  // Across zero: -0.0 and the smallest positive denormal are 1 ulp apart.
  float negZero = -0.0f, denormal = std::nextafter(0.0f, 1.0f);
  std::memcpy(r.data(), &negZero, 4);
  std::memcpy(c.data(), &denormal, 4);
  EXPECT_TRUE(compareElements(ElementType::F32, r, c, {0, 0, 1}).ok());
  // f16: 1.0 (0x3c00) and 0x3c03 are 3 ulps apart.
  std::vector<uint8_t> h1 = {0x00, 0x3c}, h2 = {0x03, 0x3c};
  EXPECT_FALSE(compareElements(ElementType::F16, h1, h2, {0, 0, 2}).ok());
  EXPECT_TRUE(compareElements(ElementType::F16, h1, h2, {0, 0, 3}).ok());
  // NaN matches NaN only; an ulp budget does not bridge NaN and a number.
  float nan = NAN;
  std::memcpy(r.data(), &nan, 4);
  std::memcpy(c.data(), &one, 4);
  EXPECT_FALSE(compareElements(ElementType::F32, r, c, {0, 0, 1u << 30}).ok());
}

TEST(InputsTest, SpecialValuesGoIntoFloatsOnly) {
  auto f32s = [](std::vector<float> v) {
    std::vector<uint8_t> b(v.size() * 4);
    std::memcpy(b.data(), v.data(), b.size());
    return b;
  };
  auto floatAt = [](const std::vector<uint8_t> &b, size_t i) {
    float v;
    std::memcpy(&v, b.data() + 4 * i, 4);
    return v;
  };
  std::vector<float> values(40, 0.5f);
  std::vector<uint8_t> large = f32s(values);
  applySpecialValues(ElementType::F32, SpecialValues::Large, large);
  EXPECT_EQ(floatAt(large, 0), 0.5f * 1048576);
  EXPECT_EQ(largeInputFactor(ElementType::F16), 16);

  std::vector<uint8_t> nan = f32s(values);
  applySpecialValues(ElementType::F32, SpecialValues::Nan, nan);
  for (size_t i = 0; i < values.size(); ++i)
    EXPECT_EQ(std::isnan(floatAt(nan, i)), i % 16 == 3) << i;

  std::vector<uint8_t> inf = f32s(values);
  applySpecialValues(ElementType::F32, SpecialValues::Inf, inf);
  EXPECT_EQ(floatAt(inf, 3), INFINITY);
  EXPECT_EQ(floatAt(inf, 19), -INFINITY);
  EXPECT_EQ(floatAt(inf, 35), INFINITY);
  EXPECT_EQ(floatAt(inf, 4), 0.5f);

  std::vector<uint8_t> ints(64, 7);
  for (SpecialValues s :
       {SpecialValues::Large, SpecialValues::Nan, SpecialValues::Inf}) {
    std::vector<uint8_t> copy = ints;
    applySpecialValues(ElementType::I32, s, copy);
    EXPECT_EQ(copy, ints) << toString(s);
  }
}

TEST(ExecutorTest, SampleProgramComputesOnVulkan) {
  REQUIRE_SAMPLE();
  KB_SKIP_WITHOUT_VULKAN_DEVICE();
  auto selected = hal::selectDevice(hal::builtinDrivers(), "vulkan");
  ASSERT_TRUE(selected.ok()) << selected.status().message();
  const Function &fn = sample()->functions[0];
  auto result = runFunction(*selected->device, *sample(), fn,
                            VariantChoice::PreferCandidate);
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->dispatchCount, 2u);
  EXPECT_EQ(result->barrierCount, 1u) << "t is written then read";
  std::vector<uint8_t> x = generateContents(fn.buffers[0]);
  std::vector<uint8_t> y = generateContents(fn.buffers[1]);
  const float *xf = reinterpret_cast<const float *>(x.data());
  const float *yf = reinterpret_cast<const float *>(y.data());
  const float *t =
      reinterpret_cast<const float *>(result->outputs[0].bytes.data());
  const double *out =
      reinterpret_cast<const double *>(result->outputs[1].bytes.data());
  for (uint32_t i = 0; i < testing::kSampleElements; ++i) {
    ASSERT_NEAR(t[i], 2.5f * xf[i] + yf[i], 1e-5) << i;
    ASSERT_NEAR(out[i], double(t[i]) * 0.5 - 3.0, 1e-12) << i;
  }
}

// Guard bands (--sanitize) are invisible to a kernel that stays within its
// elements: the same results, nothing reported after each dispatch; the
// canaries differ per buffer (a copy that ran past its input and its output
// would copy a canary that is not the output's).
TEST(ExecutorTest, GuardBandsChangeNothingForAnInBoundsKernel) {
  REQUIRE_SAMPLE();
  KB_SKIP_WITHOUT_VULKAN_DEVICE();
  auto selected = hal::selectDevice(hal::builtinDrivers(), "vulkan");
  ASSERT_TRUE(selected.ok()) << selected.status().message();
  const Function &fn = sample()->functions[0];
  auto plain = runFunction(*selected->device, *sample(), fn,
                           VariantChoice::PreferCandidate);
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  RunHooks hooks;
  size_t dispatches = 0, damaged = 0;
  hooks.afterDispatch = [&](size_t) { ++dispatches; };
  hooks.guardBytes = 4096;
  hooks.guardDamaged = [&](size_t, const GuardDamage &) { ++damaged; };
  auto guarded = runFunction(*selected->device, *sample(), fn,
                             VariantChoice::PreferCandidate, {}, hooks);
  ASSERT_TRUE(guarded.ok()) << guarded.status().message();
  EXPECT_EQ(dispatches, 2u);
  EXPECT_EQ(damaged, 0u);
  ASSERT_EQ(guarded->outputs.size(), plain->outputs.size());
  for (size_t i = 0; i < plain->outputs.size(); ++i)
    EXPECT_EQ(guarded->outputs[i].bytes, plain->outputs[i].bytes) << i;
  std::set<uint8_t> canaries;
  for (uint32_t i = 0; i < 1000; ++i) {
    uint8_t c = PreparedFunction::canaryByte(i);
    EXPECT_TRUE(c != 0x00 && c != 0x80 && c != 0xff) << i;
    if (i < 126)
      canaries.insert(c);
  }
  EXPECT_EQ(canaries.size(), 126u); // one per buffer

  GuardDamage d{1, "saxpy.y", 4000, ElementType::F32, 4, 124, 4096};
  EXPECT_EQ(d.describe(), "wrote past the end of buffer 1 `saxpy.y` (4000 x "
                          "f32): 124 of its 4096 guard bytes changed, the "
                          "first at element 4001");
}

// A correctness check asks for one input set's buffers three times
// (candidate, read-only check, reference): generated once, shared, and equal
// to a fresh generation; another seed or special values are other contents.
TEST(ExecutorTest, InitialContentsAreGeneratedOncePerInputSet) {
  REQUIRE_SAMPLE();
  KB_SKIP_WITHOUT_VULKAN_DEVICE();
  auto selected = hal::selectDevice(hal::builtinDrivers(), "vulkan");
  ASSERT_TRUE(selected.ok()) << selected.status().message();
  const Function &fn = sample()->functions[0];
  auto candidate = PreparedFunction::create(*selected->device, *sample(), fn,
                                            VariantChoice::PreferCandidate);
  auto reference = PreparedFunction::create(*selected->device, *sample(), fn,
                                            VariantChoice::ReferenceOnly);
  ASSERT_TRUE(candidate.ok()) << candidate.status().message();
  ASSERT_TRUE(reference.ok()) << reference.status().message();
  auto first = (*candidate)->initialContents(0, 1);
  EXPECT_EQ(first.get(), (*candidate)->initialContents(0, 1).get());
  EXPECT_EQ(first.get(), (*reference)->initialContents(0, 1).get());
  BufferDecl decl = fn.buffers[0];
  decl.init.seed += 1;
  EXPECT_EQ(*first, generateContents(decl));
  EXPECT_NE(*first, *(*candidate)->initialContents(0, 2));
  EXPECT_NE(*first,
            *(*candidate)->initialContents(0, 1, false, SpecialValues::Large));
}

} // namespace
} // namespace kb::module
