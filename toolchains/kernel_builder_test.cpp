//===- toolchains/kernel_builder_test.cpp ---------------------------------===//
//
// The job pipeline with the real tools (each test skips when a tool it needs
// is missing), and the bad inputs at this layer: missing source,
// syntax errors in the source and in an included header, missing includes,
// spills as errors, PTX and SPIR-V ABI mismatches, a missing toolchain and a
// hanging one. Every failure must publish nothing and leave the cache alone.
//
//===----------------------------------------------------------------------===//

#include "common/sha256.h"
#include "common/test_util.h"
#include "toolchains/build_cache.h"
#include "common/file_util.h"
#include "toolchains/kernel_builder.h"
#include "toolchains/toolchains.h"

#include <cstring>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <set>
#include <signal.h>
#include <sys/stat.h>
#include <thread>

namespace kb::toolchains {
namespace {

namespace fs = std::filesystem;

const fs::path kTestData = fs::path(KB_SOURCE_DIR) / "toolchains" / "testdata";

/// saxpy's ABI: x (f32 readonly), y (f32 readwrite), a (f32), n (u32), 256.
KernelAbi saxpyAbi(const std::string &entry) {
  KernelAbi abi;
  abi.entry = entry;
  abi.bindings = {{"x", ElementType::F32, Access::ReadOnly},
                  {"y", ElementType::F32, Access::ReadWrite}};
  abi.constants = {{"a", ScalarType::F32}, {"n", ScalarType::U32}};
  abi.workgroupSize = {256, 1, 1};
  return abi;
}

using kb::testing::processAlive;

std::set<std::string> filesUnder(const fs::path &dir) {
  std::set<std::string> files;
  std::error_code ec;
  if (!fs::exists(dir, ec))
    return files;
  for (const auto &entry : fs::recursive_directory_iterator(dir))
    if (entry.is_regular_file())
      files.insert(entry.path().lexically_relative(dir).string());
  return files;
}

std::string describe(const BuildJobResult &result) {
  std::string text = result.status.toString() + "\n";
  for (const Diagnostic &d : result.diagnostics)
    text += formatDiagnostic(d, false) + "\n";
  return text + result.failureLog;
}

class KernelBuilderTest : public ::testing::Test {
protected:
  void SetUp() override {
    auto dir = TempDir::create(fs::temp_directory_path(), "kb-builder-test-");
    ASSERT_TRUE(dir.ok()) << dir.status().message();
    dir_.emplace(std::move(*dir));
    auto cache = BuildCache::open(root() / "cache");
    ASSERT_TRUE(cache.ok()) << cache.status().message();
    cache_ = std::move(*cache);
  }

  fs::path root() const { return dir_->path(); }
  fs::path out() const { return root() / "out"; }

  /// Skips the test unless every tool is installed.
  bool need(std::initializer_list<const char *> tools) {
    for (const char *tool : tools) {
      auto found = toolchains_.find(tool);
      if (!found.ok()) {
        skipReason_ = found.status().message();
        return false;
      }
    }
    return true;
  }

  KernelSpec cudaSpec(const std::string &file,
                      const fs::path &dir = kTestData) {
    KernelSpec spec;
    spec.name = "saxpy";
    spec.source = dir / file;
    spec.language = Language::Cuda;
    spec.entry = file == "spill.cu" ? "spill" : "saxpy";
    spec.includeDirs = {dir / "include"};
    spec.abi = saxpyAbi(spec.entry);
    spec.manifest = dir / "kernel.toml";
    return spec;
  }
  KernelSpec glslSpec(const std::string &file,
                      const fs::path &dir = kTestData) {
    KernelSpec spec = cudaSpec(file, dir);
    spec.language = Language::Glsl;
    spec.entry = "main";
    spec.abi.entry = "main";
    return spec;
  }

  BuildJobResult build(const KernelSpec &spec, const std::string &target,
                       BuildCache *cache = nullptr,
                       const Toolchains *toolchains = nullptr,
                       BuildOptions options = {}) {
    auto parsed = Target::parse(target);
    EXPECT_TRUE(parsed.ok()) << parsed.status().message();
    KernelBuilder builder(toolchains ? *toolchains : toolchains_, cache,
                          options);
    return builder.build(spec, *parsed, out());
  }

  /// The failure contract: an error, nothing published or left staged.
  void expectNothingPublished(const BuildJobResult &result) {
    EXPECT_FALSE(result.status.ok());
    EXPECT_TRUE(result.outputs.empty());
    EXPECT_EQ(filesUnder(out()), std::set<std::string>()) << describe(result);
  }

  const Diagnostic *findDiagnostic(const BuildJobResult &result,
                                   const std::string &fileSuffix) {
    for (const Diagnostic &d : result.diagnostics)
      if (d.file.size() >= fileSuffix.size() &&
          d.file.compare(d.file.size() - fileSuffix.size(), fileSuffix.size(),
                         fileSuffix) == 0 &&
          (d.severity == Severity::Error || d.severity == Severity::Fatal))
        return &d;
    return nullptr;
  }

  size_t cacheFileCount() const {
    return filesUnder(root() / "cache" / "v1").size();
  }

  Toolchains toolchains_;
  std::optional<TempDir> dir_;
  std::unique_ptr<BuildCache> cache_;
  std::string skipReason_;
};

#define NEED(...)                                                              \
  if (!need({__VA_ARGS__}))                                                    \
  GTEST_SKIP() << skipReason_

TEST_F(KernelBuilderTest, CudaBuildPublishesPtxAndCubinWithResources) {
  NEED("nvcc", "ptxas", "host-cxx");
  KernelSpec spec = cudaSpec("saxpy.cu");
  spec.defines = {{"KB_SCALE", "3.0f"}};
  std::vector<std::string> steps;
  KernelBuilder builder(toolchains_, nullptr, BuildOptions{});
  BuildJobResult result =
      builder.build(spec, *Target::parse("cuda:sm_90"), out(),
                    [&](const std::string &step) { steps.push_back(step); });
  ASSERT_TRUE(result.status.ok()) << describe(result);
  EXPECT_FALSE(result.cacheHit);
  EXPECT_EQ(filesUnder(out()),
            (std::set<std::string>{"kernels/saxpy/sm_90.cubin",
                                   "kernels/saxpy/sm_90.ptx"}));
  ASSERT_EQ(result.outputs.size(), 2u);
  for (const OutputFile &output : result.outputs) {
    auto bytes = readFile(output.path);
    ASSERT_TRUE(bytes.ok());
    EXPECT_EQ(output.sha256, sha256Hex(*bytes));
    EXPECT_EQ(output.bytes, bytes->size());
  }
  auto ptx = readFile(out() / "kernels/saxpy/sm_90.ptx");
  EXPECT_NE(ptx->find(".entry saxpy"), std::string::npos);
  EXPECT_NE(ptx->find("0f40400000"), std::string::npos)
      << "-DKB_SCALE=3.0f did not reach nvcc";
  ASSERT_TRUE(result.resources.has_value());
  EXPECT_GT(result.resources->registers, 0u);
  EXPECT_EQ(result.resources->spillStoreBytes, 0u);
  ASSERT_EQ(result.commands.size(), 2u);
  EXPECT_EQ(result.commands[0].tool, "nvcc");
  EXPECT_TRUE(fs::path(result.commands[0].argv[0]).is_absolute());
  EXPECT_EQ(result.commands[1].tool, "ptxas");
  EXPECT_EQ(steps.size(), 2u);
  EXPECT_NE(steps[0].find("nvcc sm_90"), std::string::npos) << steps[0];
  EXPECT_NE(result.toolVersions["nvcc"].find("release"), std::string::npos);
  EXPECT_FALSE(result.toolVersions["host-cxx"].empty());
}

// No __launch_bounds__: the workgroup size cannot be checked against the
// PTX, which is said in a note, not an error.
TEST_F(KernelBuilderTest, CudaWithoutLaunchBoundsGetsANote) {
  NEED("nvcc", "ptxas", "host-cxx");
  auto noteCount = [](const BuildJobResult &result) {
    int notes = 0;
    for (const Diagnostic &d : result.diagnostics)
      if (d.severity == Severity::Note &&
          d.message.find("workgroup size 256x1x1 cannot be checked") !=
              std::string::npos &&
          d.message.find("__launch_bounds__") != std::string::npos)
        ++notes;
    return notes;
  };
  BuildJobResult result = build(cudaSpec("no_launch_bounds.cu"), "cuda:sm_90");
  ASSERT_TRUE(result.status.ok()) << describe(result);
  EXPECT_EQ(noteCount(result), 1) << describe(result);
  BuildJobResult bounded = build(cudaSpec("saxpy.cu"), "cuda:sm_90");
  ASSERT_TRUE(bounded.status.ok()) << describe(bounded);
  EXPECT_EQ(noteCount(bounded), 0) << describe(bounded);
}

/// template_saxpy.cu's instance |instance| as the entry.
KernelSpec templateSpec(KernelSpec spec, const std::string &instance) {
  spec.templateInstance = instance;
  spec.entry = instance;
  spec.abi.entry = instance;
  return spec;
}

// A template the source never instantiates: the build instantiates the one
// `entry` names, and finds its mangled .entry by the demangled name.
TEST_F(KernelBuilderTest, CudaTemplateInstanceIsInstantiatedAndResolved) {
  NEED("nvcc", "ptxas", "host-cxx");
  KernelSpec spec = templateSpec(cudaSpec("template_saxpy.cu"), "saxpyT<256>");
  BuildJobResult result = build(spec, "cuda:sm_90", cache_.get());
  ASSERT_TRUE(result.status.ok()) << describe(result);
  auto ptx = readFile(out() / "kernels/saxpy/sm_90.ptx");
  ASSERT_TRUE(ptx.ok());
  EXPECT_NE(ptx->find(".entry _Z6saxpyTILi256EEvPKfPffj("), std::string::npos)
      << *ptx;
  EXPECT_EQ(ptx->find("ILi128E"), std::string::npos);
  // ptxas's report is the instance's (resolved like the ABI check).
  ASSERT_TRUE(result.resources.has_value());
  EXPECT_GT(result.resources->registers, 0u);
  // __launch_bounds__(BLOCK) checked the workgroup size: no note.
  for (const Diagnostic &d : result.diagnostics)
    EXPECT_NE(d.severity, Severity::Error) << formatDiagnostic(d, false);

  // A define that is a template argument is not passed with -D: a macro
  // would replace the template parameter of its name.
  KernelSpec named = spec;
  named.defines = {{"BLOCK", "256"}, {"KB_SCALE", "2.0f"}};
  named.templateArgumentNames = {"BLOCK"};
  BuildJobResult macros = build(named, "cuda:sm_90");
  ASSERT_TRUE(macros.status.ok()) << describe(macros);
  std::string nvcc;
  for (const std::string &arg : macros.commands.at(0).argv)
    nvcc += arg + " ";
  EXPECT_EQ(nvcc.find("-DBLOCK"), std::string::npos) << nvcc;
  EXPECT_NE(nvcc.find("-DKB_SCALE=2.0f"), std::string::npos) << nvcc;

  // Another instance is another build, not a cache hit of this one.
  KernelSpec other = templateSpec(spec, "saxpyT<128>");
  other.abi.workgroupSize = {128, 1, 1};
  BuildJobResult second = build(other, "cuda:sm_90", cache_.get());
  ASSERT_TRUE(second.status.ok()) << describe(second);
  EXPECT_FALSE(second.cacheHit);
  ptx = readFile(out() / "kernels/saxpy/sm_90.ptx");
  EXPECT_NE(ptx->find(".entry _Z6saxpyTILi128EEvPKfPffj("), std::string::npos);
  BuildJobResult again = build(spec, "cuda:sm_90", cache_.get());
  ASSERT_TRUE(again.status.ok()) << describe(again);
  EXPECT_TRUE(again.cacheHit);

  // The workgroup size is checked against the instance's .maxntid.
  KernelSpec tooBig = spec;
  tooBig.abi.workgroupSize = {512, 1, 1};
  BuildJobResult mismatch = build(tooBig, "cuda:sm_90");
  EXPECT_FALSE(mismatch.status.ok());
  EXPECT_NE(mismatch.status.message().find(".maxntid 256x1x1"),
            std::string::npos)
      << describe(mismatch);
}

TEST_F(KernelBuilderTest, CudaTemplateTheSourceDoesNotDefineIsNamed) {
  NEED("nvcc", "ptxas", "host-cxx");
  KernelSpec spec = templateSpec(cudaSpec("template_saxpy.cu"), "saxpy<256>");
  BuildJobResult result = build(spec, "cuda:sm_90", cache_.get());
  EXPECT_EQ(result.status.code(), StatusCode::InvalidArgument);
  EXPECT_NE(result.status.message().find(
                "`entry` names the template `saxpy`, which " +
                spec.source.string() +
                " does not define (nor any header it includes)"),
            std::string::npos)
      << describe(result);
  const Diagnostic *d = findDiagnostic(result, "testdata/template_saxpy.cu");
  ASSERT_NE(d, nullptr) << describe(result);
  EXPECT_EQ(d->line, 0); // the generated file's line means nothing here
  expectNothingPublished(result);
  EXPECT_EQ(cacheFileCount(), 0u);
}

// nvcc's own error, at the line of the user's file it is about.
TEST_F(KernelBuilderTest, CudaInstanceNvccRejectsPointsIntoTheSource) {
  NEED("nvcc", "ptxas", "host-cxx");
  KernelSpec spec = templateSpec(cudaSpec("template_saxpy.cu"), "saxpyT<100>");
  BuildJobResult result = build(spec, "cuda:sm_90");
  EXPECT_EQ(result.status.code(), StatusCode::InvalidArgument);
  EXPECT_NE(result.status.message().find("instantiating `saxpyT<100>`"),
            std::string::npos)
      << describe(result);
  const Diagnostic *d = findDiagnostic(result, "testdata/template_saxpy.cu");
  ASSERT_NE(d, nullptr) << describe(result);
  EXPECT_EQ(d->line, 7);
  EXPECT_NE(d->message.find("BLOCK must be a multiple of a warp"),
            std::string::npos);
  expectNothingPublished(result);

  // Arguments the template does not take: nvcc cannot form the instance.
  spec = templateSpec(spec, "saxpyT<256, 2>");
  result = build(spec, "cuda:sm_90");
  EXPECT_EQ(result.status.code(), StatusCode::InvalidArgument);
  EXPECT_NE(result.status.message().find("cannot instantiate `saxpyT<256, 2>`"),
            std::string::npos)
      << describe(result);
  expectNothingPublished(result);
}

TEST_F(KernelBuilderTest, CudaCacheHitsUntilAnIncludedHeaderChanges) {
  NEED("nvcc", "ptxas", "host-cxx");
  fs::path src = root() / "src";
  fs::create_directories(src / "include");
  fs::copy_file(kTestData / "saxpy.cu", src / "saxpy.cu");
  fs::copy_file(kTestData / "include" / "scale.h", src / "include" / "scale.h");
  KernelSpec spec = cudaSpec("saxpy.cu", src);

  BuildJobResult first = build(spec, "cuda:sm_90", cache_.get());
  ASSERT_TRUE(first.status.ok()) << describe(first);
  EXPECT_FALSE(first.cacheHit);
  fs::remove_all(out());

  BuildJobResult second = build(spec, "cuda:sm_90", cache_.get());
  ASSERT_TRUE(second.status.ok()) << describe(second);
  EXPECT_TRUE(second.cacheHit);
  ASSERT_EQ(second.outputs.size(), 2u);
  for (size_t i = 0; i < 2; ++i)
    EXPECT_EQ(second.outputs[i].sha256, first.outputs[i].sha256);
  EXPECT_TRUE(fs::exists(out() / "kernels/saxpy/sm_90.cubin"));
  ASSERT_TRUE(second.resources.has_value());
  EXPECT_EQ(second.resources->registers, first.resources->registers);

  ASSERT_TRUE(
      writeFileAtomic(src / "include" / "scale.h", "#define KB_SCALE 3.0f\n")
          .ok());
  BuildJobResult third = build(spec, "cuda:sm_90", cache_.get());
  ASSERT_TRUE(third.status.ok()) << describe(third);
  EXPECT_FALSE(third.cacheHit) << "a header edit must invalidate the entry";
  EXPECT_NE(third.outputs[0].sha256, first.outputs[0].sha256);

  // A flag change is a different key.
  spec.extraFlags["ptxas"] = {"-O2"};
  EXPECT_FALSE(build(spec, "cuda:sm_90", cache_.get()).cacheHit);
}

TEST_F(KernelBuilderTest, GlslBuildValidatesOptimizesAndCaches) {
  NEED("glslc", "spirv-val", "spirv-opt");
  KernelSpec spec = glslSpec("saxpy.comp");
  // Staging left behind by a build that was killed is cleaned up.
  ASSERT_TRUE(
      writeFileAtomic(out() / "kernels/saxpy/.vulkan1.2.tmp-dead/x.spv", "half")
          .ok());
  BuildJobResult result = build(spec, "vulkan:1.2", cache_.get());
  ASSERT_TRUE(result.status.ok()) << describe(result);
  EXPECT_EQ(filesUnder(out()),
            std::set<std::string>{"kernels/saxpy/vulkan1.2.spv"});
  ASSERT_EQ(result.commands.size(), 2u);
  EXPECT_EQ(result.commands[1].tool, "spirv-val");
  // spirv-val takes the space form of --target-env.
  EXPECT_EQ(result.commands[1].argv[1], "--target-env");
  EXPECT_EQ(result.commands[1].argv[2], "vulkan1.2");

  BuildJobResult hit = build(spec, "vulkan:1.2", cache_.get());
  ASSERT_TRUE(hit.status.ok()) << describe(hit);
  EXPECT_TRUE(hit.cacheHit);
  EXPECT_EQ(hit.outputs[0].sha256, result.outputs[0].sha256);

  spec.optimizeSpirv = true;
  BuildJobResult optimized = build(spec, "vulkan:1.3", cache_.get());
  ASSERT_TRUE(optimized.status.ok()) << describe(optimized);
  EXPECT_FALSE(optimized.cacheHit);
  ASSERT_EQ(optimized.commands.size(), 4u);
  EXPECT_EQ(optimized.commands[2].tool, "spirv-opt");
  EXPECT_EQ(optimized.commands[3].tool, "spirv-val");
}

// KernelBuilder::build is called from the workbench's worker threads: jobs
// of one kernel for several targets share the output directory and cache.
TEST_F(KernelBuilderTest, ConcurrentJobsShareOutputDirectoryAndCache) {
  NEED("nvcc", "ptxas", "host-cxx", "glslc", "spirv-val");
  KernelBuilder builder(toolchains_, cache_.get(), BuildOptions{});
  KernelSpec cuda = cudaSpec("saxpy.cu");
  KernelSpec glsl = glslSpec("saxpy.comp");
  std::vector<std::pair<const KernelSpec *, std::string>> jobs = {
      {&cuda, "cuda:sm_90"},
      {&cuda, "cuda:sm_80"},
      {&glsl, "vulkan:1.2"},
      {&glsl, "vulkan:1.3"}};
  for (int round = 0; round < 2; ++round) {
    std::vector<BuildJobResult> results(jobs.size());
    std::vector<std::thread> threads;
    for (size_t i = 0; i < jobs.size(); ++i)
      threads.emplace_back([&, i] {
        results[i] = builder.build(*jobs[i].first,
                                   *Target::parse(jobs[i].second), out());
      });
    for (std::thread &t : threads)
      t.join();
    for (const BuildJobResult &r : results) {
      ASSERT_TRUE(r.status.ok()) << describe(r);
      EXPECT_EQ(r.cacheHit, round == 1) << r.target.toString();
    }
  }
  EXPECT_EQ(filesUnder(out()),
            (std::set<std::string>{
                "kernels/saxpy/sm_80.cubin", "kernels/saxpy/sm_80.ptx",
                "kernels/saxpy/sm_90.cubin", "kernels/saxpy/sm_90.ptx",
                "kernels/saxpy/vulkan1.2.spv", "kernels/saxpy/vulkan1.3.spv"}));
}

// Kernels of one source, target and flags share one compile
// (one nvcc + ptxas for CUDA, one glslc + spirv-val for GLSL); each job still
// checks its own entry and publishes its own outputs. The tools are wrapped
// to count how often they ran.
TEST_F(KernelBuilderTest, KernelsOfOneSourceShareOneCompile) {
  NEED("nvcc", "ptxas", "host-cxx", "glslc", "spirv-val");
  fs::path bin = root() / "counting-bin";
  fs::path log = root() / "tool.log";
  ToolchainsConfig config;
  for (const char *tool : {"nvcc", "glslc"}) {
    fs::path wrapper = bin / tool;
    ASSERT_TRUE(
        writeFileAtomic(wrapper, "#!/bin/sh\n[ \"$1\" = --version ] || echo " +
                                     std::string(tool) + " >> '" +
                                     log.string() + "'\nexec '" +
                                     toolchains_.find(tool)->path.string() +
                                     "' \"$@\"\n")
            .ok());
    ::chmod(wrapper.c_str(), 0755);
    config.overrides[tool] = wrapper;
  }
  Toolchains counting(config);
  KernelBuilder builder(counting, /*cache=*/nullptr, BuildOptions{});
  std::vector<KernelSpec> specs;
  for (const char *entry : {"saxpy", "saxmy", "saxpy", "saxmy"}) {
    KernelSpec spec = cudaSpec("two_kernels.cu");
    spec.name = std::string(entry) + std::to_string(specs.size());
    spec.entry = entry;
    spec.abi.entry = entry;
    specs.push_back(spec);
  }
  KernelSpec glslA = glslSpec("saxpy.comp"), glslB = glslA;
  glslA.name = "glsl_a";
  glslB.name = "glsl_b";
  std::vector<std::pair<const KernelSpec *, std::string>> jobs = {
      {&specs[0], "cuda:sm_90"}, {&specs[1], "cuda:sm_90"},
      {&specs[2], "cuda:sm_90"}, {&specs[3], "cuda:sm_90"},
      {&glslA, "vulkan:1.2"},    {&glslB, "vulkan:1.2"}};
  std::vector<BuildJobResult> results(jobs.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < jobs.size(); ++i)
    threads.emplace_back([&, i] {
      results[i] =
          builder.build(*jobs[i].first, *Target::parse(jobs[i].second), out());
    });
  for (std::thread &t : threads)
    t.join();
  std::map<std::string, int> runs;
  std::ifstream in(log);
  for (std::string line; std::getline(in, line);)
    ++runs[line];
  EXPECT_EQ(runs["nvcc"], 1);
  EXPECT_EQ(runs["glslc"], 1);
  int shared = 0;
  for (const BuildJobResult &r : results) {
    ASSERT_TRUE(r.status.ok()) << describe(r);
    ASSERT_TRUE(r.outputs.size() == (r.target.isCuda() ? 2u : 1u));
    shared += !r.sharedCompileWith.empty();
    EXPECT_FALSE(r.commands.empty()) << r.kernel;
  }
  EXPECT_EQ(shared, 4); // all but the first CUDA and the first GLSL job
  // One PTX, both entries; each job reports its own entry's resources.
  EXPECT_EQ(results[0].outputs[0].sha256, results[1].outputs[0].sha256);
  ASSERT_TRUE(results[0].resources && results[1].resources);

  // A wrong entry fails only its own job, with its own ABI message.
  KernelSpec wrong = cudaSpec("two_kernels.cu");
  wrong.name = "wrong";
  wrong.abi.entry = wrong.entry = "saxpz";
  BuildJobResult failed =
      builder.build(wrong, *Target::parse("cuda:sm_90"), out());
  EXPECT_FALSE(failed.status.ok());
  EXPECT_NE(failed.status.message().find("saxpz"), std::string::npos)
      << failed.status.message();
  EXPECT_TRUE(failed.outputs.empty());
  std::ifstream again(log);
  int lines = 0;
  for (std::string line; std::getline(again, line);)
    ++lines;
  EXPECT_EQ(lines, 2) << "the failed job compiled again";
}

TEST_F(KernelBuilderTest, MissingSourceNamesTheManifest) {
  KernelSpec spec = cudaSpec("no_such_kernel.cu");
  BuildJobResult result = build(spec, "cuda:sm_90", cache_.get());
  EXPECT_EQ(result.status.code(), StatusCode::NotFound);
  EXPECT_NE(result.status.message().find("no_such_kernel.cu"),
            std::string::npos);
  EXPECT_NE(result.status.message().find("kernel.toml"), std::string::npos);
  ASSERT_FALSE(result.diagnostics.empty());
  EXPECT_EQ(result.diagnostics[0].file, spec.manifest.string());
  expectNothingPublished(result);
  EXPECT_EQ(cacheFileCount(), 0u);
}

TEST_F(KernelBuilderTest, CudaSyntaxErrorPointsIntoTheSource) {
  NEED("nvcc", "ptxas", "host-cxx");
  BuildJobResult result =
      build(cudaSpec("syntax_error.cu"), "cuda:sm_90", cache_.get());
  EXPECT_EQ(result.status.code(), StatusCode::InvalidArgument);
  const Diagnostic *d = findDiagnostic(result, "testdata/syntax_error.cu");
  ASSERT_NE(d, nullptr) << describe(result);
  EXPECT_TRUE(fs::path(d->file).is_absolute());
  EXPECT_EQ(d->line, 3);
  EXPECT_EQ(d->tool, "nvcc");
  EXPECT_NE(result.failureLog.find("expected a \";\""), std::string::npos);
  expectNothingPublished(result);
  EXPECT_EQ(cacheFileCount(), 0u);
}

TEST_F(KernelBuilderTest, CudaErrorInAnIncludedHeaderPointsIntoTheHeader) {
  NEED("nvcc", "ptxas", "host-cxx");
  BuildJobResult result = build(cudaSpec("broken_header.cu"), "cuda:sm_90");
  EXPECT_EQ(result.status.code(), StatusCode::InvalidArgument);
  const Diagnostic *d = findDiagnostic(result, "testdata/include/broken.h");
  ASSERT_NE(d, nullptr) << describe(result);
  EXPECT_EQ(d->line, 3);
  EXPECT_NE(d->message.find("undefined_scale_factor"), std::string::npos);
  expectNothingPublished(result);
}

TEST_F(KernelBuilderTest, CudaMissingIncludeIsTheHostPreprocessorsError) {
  NEED("nvcc", "ptxas", "host-cxx");
  BuildJobResult result = build(cudaSpec("missing_include.cu"), "cuda:sm_90");
  EXPECT_EQ(result.status.code(), StatusCode::InvalidArgument);
  const Diagnostic *d = findDiagnostic(result, "testdata/missing_include.cu");
  ASSERT_NE(d, nullptr) << describe(result);
  EXPECT_EQ(d->tool, "host-cxx");
  EXPECT_EQ(d->line, 1);
  EXPECT_NE(d->message.find("does_not_exist.h"), std::string::npos);
  expectNothingPublished(result);
}

// nvcc -ptx exits 255 but leaves its .ptx when its built-in ptxas check
// fails; that file must not be published.
TEST_F(KernelBuilderTest, NvccPtxasCheckFailurePublishesNothing) {
  NEED("nvcc", "ptxas", "host-cxx");
  BuildJobResult result =
      build(cudaSpec("inline_asm_error.cu"), "cuda:sm_90", cache_.get());
  EXPECT_EQ(result.status.code(), StatusCode::InvalidArgument)
      << describe(result);
  ASSERT_FALSE(result.commands.empty());
  EXPECT_EQ(result.commands[0].exitCode, 255);
  const Diagnostic *d = findDiagnostic(result, "testdata/inline_asm_error.cu");
  ASSERT_NE(d, nullptr) << describe(result);
  EXPECT_EQ(d->tool, "ptxas");
  EXPECT_NE(d->message.find("generated PTX"), std::string::npos) << d->message;
  expectNothingPublished(result);
  EXPECT_EQ(cacheFileCount(), 0u);
}

TEST_F(KernelBuilderTest, SpillsAreWarningsUnlessDeclaredErrors) {
  NEED("nvcc", "ptxas", "host-cxx");
  KernelSpec spec = cudaSpec("spill.cu");
  spec.abi.constants = {{"n", ScalarType::U32}};
  spec.abi.workgroupSize = {64, 1, 1};
  spec.extraFlags["ptxas"] = {"--maxrregcount=24"};

  BuildJobResult warned = build(spec, "cuda:sm_90");
  ASSERT_TRUE(warned.status.ok()) << describe(warned);
  ASSERT_TRUE(warned.resources.has_value());
  EXPECT_GT(warned.resources->spillStoreBytes, 0u);
  EXPECT_EQ(warned.resources->registers, 24u);
  bool sawWarning = false;
  for (const Diagnostic &d : warned.diagnostics)
    sawWarning |= d.severity == Severity::Warning &&
                  d.message.find("spilled") != std::string::npos;
  EXPECT_TRUE(sawWarning) << describe(warned);

  spec.spillsAreErrors = true;
  BuildJobResult failed = build(spec, "cuda:sm_90", cache_.get());
  EXPECT_EQ(failed.status.code(), StatusCode::InvalidArgument);
  EXPECT_NE(failed.status.message().find("Registers are spilled"),
            std::string::npos)
      << describe(failed);
  // The earlier successful build's outputs are removed too: a failed job
  // leaves no output that could pass for its result.
  expectNothingPublished(failed);
  EXPECT_EQ(cacheFileCount(), 0u);
}

TEST_F(KernelBuilderTest, PtxParameterMismatchesNameTheParameter) {
  NEED("nvcc", "ptxas", "host-cxx");
  KernelSpec missingConstant = cudaSpec("saxpy.cu");
  missingConstant.abi.constants.pop_back();
  BuildJobResult count = build(missingConstant, "cuda:sm_90", cache_.get());
  EXPECT_EQ(count.status.code(), StatusCode::InvalidArgument);
  EXPECT_NE(count.status.message().find("kernel.toml"), std::string::npos)
      << count.status.message();
  ASSERT_FALSE(count.diagnostics.empty());
  EXPECT_EQ(count.diagnostics[0].tool, "kernel-bench");
  EXPECT_EQ(count.diagnostics[0].file, missingConstant.source.string());
  expectNothingPublished(count);

  KernelSpec wideConstant = cudaSpec("saxpy.cu");
  wideConstant.abi.constants[1].type = ScalarType::U64;
  BuildJobResult size = build(wideConstant, "cuda:sm_90", cache_.get());
  EXPECT_EQ(size.status.code(), StatusCode::InvalidArgument);
  EXPECT_NE(size.status.message().find("`n`"), std::string::npos)
      << size.status.message();
  EXPECT_NE(size.status.message().find("8 bytes"), std::string::npos)
      << size.status.message();
  expectNothingPublished(size);
  EXPECT_EQ(cacheFileCount(), 0u);
}

// The ABI check also runs on a cache hit: an edited [abi] table with an
// unchanged source is still refused.
TEST_F(KernelBuilderTest, AbiIsCheckedOnCacheHitsToo) {
  NEED("nvcc", "ptxas", "host-cxx");
  KernelSpec spec = cudaSpec("saxpy.cu");
  ASSERT_TRUE(build(spec, "cuda:sm_90", cache_.get()).status.ok());
  spec.abi.bindings.pop_back();
  BuildJobResult result = build(spec, "cuda:sm_90", cache_.get());
  EXPECT_EQ(result.status.code(), StatusCode::InvalidArgument);
  EXPECT_TRUE(result.outputs.empty());
  EXPECT_EQ(filesUnder(out()), std::set<std::string>());
}

TEST_F(KernelBuilderTest, GlslSyntaxErrorAndHeaderErrorAndMissingInclude) {
  NEED("glslc", "spirv-val");
  BuildJobResult syntax = build(glslSpec("syntax_error.comp"), "vulkan:1.2");
  EXPECT_EQ(syntax.status.code(), StatusCode::InvalidArgument);
  const Diagnostic *d = findDiagnostic(syntax, "testdata/syntax_error.comp");
  ASSERT_NE(d, nullptr) << describe(syntax);
  EXPECT_GT(d->line, 3);
  EXPECT_EQ(d->tool, "glslc");
  expectNothingPublished(syntax);

  BuildJobResult header = build(glslSpec("broken_header.comp"), "vulkan:1.2");
  d = findDiagnostic(header, "testdata/include/broken.glsl");
  ASSERT_NE(d, nullptr) << describe(header);
  EXPECT_EQ(d->line, 3);
  expectNothingPublished(header);

  BuildJobResult include =
      build(glslSpec("missing_include.comp"), "vulkan:1.2");
  d = findDiagnostic(include, "testdata/missing_include.comp");
  ASSERT_NE(d, nullptr) << describe(include);
  EXPECT_EQ(d->line, 3);
  EXPECT_NE(d->message.find("does_not_exist.glsl"), std::string::npos);
  expectNothingPublished(include);
}

TEST_F(KernelBuilderTest, SpirvInterfaceMismatches) {
  NEED("glslc", "spirv-val");
  KernelSpec extraBinding = glslSpec("saxpy.comp");
  extraBinding.abi.bindings.push_back(
      {"z", ElementType::F32, Access::WriteOnly});
  // A binding the shader leaves out is bound and unused (a note); a
  // uniform block where a storage buffer is expected is refused.
  BuildJobResult binding = build(extraBinding, "vulkan:1.2");
  EXPECT_TRUE(binding.status.ok()) << binding.status.message();
  bool noted = false;
  for (const Diagnostic &d : binding.diagnostics)
    noted |= d.message.find("binding 2 (`z`): the shader declares nothing") !=
             std::string::npos;
  EXPECT_TRUE(noted);

  KernelSpec widePush = glslSpec("saxpy.comp");
  widePush.abi.constants[1].type = ScalarType::U64;
  BuildJobResult push = build(widePush, "vulkan:1.2", cache_.get());
  EXPECT_EQ(push.status.code(), StatusCode::InvalidArgument);
  EXPECT_NE(push.status.message().find("push"), std::string::npos)
      << push.status.message();
  expectNothingPublished(push);

  KernelSpec smallGroup = glslSpec("saxpy.comp");
  smallGroup.abi.workgroupSize = {128, 1, 1};
  BuildJobResult group = build(smallGroup, "vulkan:1.2", cache_.get());
  EXPECT_EQ(group.status.code(), StatusCode::InvalidArgument);
  EXPECT_NE(group.status.message().find("256"), std::string::npos)
      << group.status.message();
  expectNothingPublished(group);
  EXPECT_EQ(cacheFileCount(), 0u);
}

TEST_F(KernelBuilderTest, LanguageMustMatchTheTarget) {
  BuildJobResult result = build(glslSpec("saxpy.comp"), "cuda:sm_90");
  EXPECT_EQ(result.status.code(), StatusCode::InvalidArgument);
  EXPECT_NE(result.status.message().find("cuda:sm_90"), std::string::npos);
}

TEST_F(KernelBuilderTest, MissingToolchainIsUnavailable) {
  ToolchainsConfig config;
  config.overrides["nvcc"] = root() / "nowhere" / "nvcc";
  Toolchains missing(config);
  BuildJobResult result =
      build(cudaSpec("saxpy.cu"), "cuda:sm_90", cache_.get(), &missing);
  EXPECT_EQ(result.status.code(), StatusCode::Unavailable);
  EXPECT_NE(
      result.status.message().find((root() / "nowhere" / "nvcc").string()),
      std::string::npos)
      << result.status.message();
  expectNothingPublished(result);
  EXPECT_EQ(cacheFileCount(), 0u);
}

// A toolchain that hangs, with a child of its own (nvcc runs cicc): the
// timeout kills both, nothing is published and nothing is cached. All three
// CUDA tools are fakes, so this runs without a CUDA install.
TEST_F(KernelBuilderTest, HangingToolchainIsKilledWithItsChildren) {
  fs::path bin = root() / "fake-bin";
  fs::path pidFile = root() / "child.pid";
  auto script = [&](const std::string &name, const std::string &body) {
    fs::path path = bin / name;
    ASSERT_TRUE(writeFileAtomic(path, "#!/bin/sh\n"
                                      "if [ \"$1\" = --version ]; then echo '" +
                                          name + " fake 1.0'; exit 0; fi\n" +
                                          body)
                    .ok());
    ::chmod(path.c_str(), 0755);
  };
  script("nvcc", "sleep 300 &\necho $! > '" + pidFile.string() +
                     "'\n: > \"$TMPDIR/partial\"\nwait\n");
  script("ptxas", "exit 0\n");
  script("gcc", "exit 0\n");
  ToolchainsConfig config;
  config.overrides = {{"nvcc", bin / "nvcc"},
                      {"ptxas", bin / "ptxas"},
                      {"host-cxx", bin / "gcc"}};
  Toolchains hanging(config);
  BuildOptions options;
  options.timeout = std::chrono::milliseconds(1000);

  auto start = std::chrono::steady_clock::now();
  BuildJobResult result = build(cudaSpec("saxpy.cu"), "cuda:sm_90",
                                cache_.get(), &hanging, options);
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  EXPECT_EQ(result.status.code(), StatusCode::DeadlineExceeded)
      << describe(result);
  EXPECT_NE(result.status.message().find("timed out"), std::string::npos);
  EXPECT_LT(seconds, 10.0);
  ASSERT_EQ(result.commands.size(), 1u);
  EXPECT_TRUE(result.commands[0].timedOut);
  EXPECT_NE(result.commands[0].signal, 0);

  std::ifstream in(pidFile);
  pid_t child = 0;
  in >> child;
  ASSERT_GT(child, 0);
  for (int i = 0; i < 100 && processAlive(child); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_FALSE(processAlive(child)) << "nvcc's child " << child << " survived";
  expectNothingPublished(result);
  EXPECT_EQ(cacheFileCount(), 0u);
}

// Nvcc runs its sub-steps through `sh`, double-quoting some
// arguments and passing -Xcompiler/-Xptxas values bare. Every user-controlled
// string that reaches a tool carries every shell metacharacter here, each in
// a payload that would create its own marker file if a shell ran it. The
// build must either succeed without creating a marker or be refused with a
// message that says why (before any tool runs).
class ShellSafetyTest : public KernelBuilderTest {
protected:
  void SetUp() override {
    KernelBuilderTest::SetUp();
    // Accepted define values name their markers by absolute path, and
    // glslang's preprocessor lexes a macro body such as
    // ".../kb-builder-test-6ero3U/m1" as a malformed float ("6e", then 'r'),
    // failing the build for a reason that is not the one under test. The
    // markers live under a path without digits (mkdtemp's six-character
    // suffix has none about a third of the time).
    for (int attempt = 0; attempt < 64 && !markersDir_; ++attempt) {
      auto dir = TempDir::create(fs::temp_directory_path(), "kb-markers-");
      ASSERT_TRUE(dir.ok()) << dir.status().message();
      if (dir->path().string().find_first_of("0123456789") == std::string::npos)
        markersDir_.emplace(std::move(*dir));
    }
    ASSERT_TRUE(markersDir_.has_value())
        << "no temporary directory without digits under "
        << fs::temp_directory_path() << "; set TMPDIR to one";
    markers_ = markersDir_->path();
    // Payloads in file names cannot contain '/': they `cd` here first.
    ::setenv("KB_SHELL_MARKERS", markers_.c_str(), 1);
  }

  /// One payload per shell metacharacter, each creating a new marker: with
  /// |slashless|, payloads fit in a single file name.
  std::vector<std::string> payloads(bool slashless = false) {
    auto touch = [&] {
      std::string name = "m" + std::to_string(next_++);
      return slashless ? "cd $KB_SHELL_MARKERS;touch " + name
                       : "touch " + (markers_ / name).string();
    };
    auto into = [&] {
      std::string name = "m" + std::to_string(next_++);
      return slashless ? ";cd $KB_SHELL_MARKERS;>" + name
                       : ">" + (markers_ / name).string();
    };
    return {"a$(" + touch() + ")",     "a`" + touch() + "`",
            "a;" + touch() + ";",      "a&" + touch() + "&",
            "a|" + touch() + "|",      "a" + into(),
            "a\"$(" + touch() + ")\"", "a\";" + touch() + ";\"",
            "a';" + touch() + ";'",    "a\\\";" + touch() + ";#",
            "a\n" + touch() + "\n",    "a\t(" + touch() + ")",
            "a{ " + touch() + "; }",   "a\\$(" + touch() + ")",
            "a*?[b]~#!<" + into()};
  }

  /// A directory whose path contains every payload, one per component.
  fs::path hostileDirectory(const std::string &base) {
    fs::path dir = root() / base;
    for (const std::string &payload : payloads())
      dir /= payload;
    fs::create_directories(dir);
    return dir;
  }

  void expectSafe(const BuildJobResult &result, const std::string &what,
                  bool mustSucceed) {
    SCOPED_TRACE(what);
    EXPECT_EQ(filesUnder(markers_), std::set<std::string>())
        << "a shell ran a payload from " << what << "\n"
        << describe(result);
    if (mustSucceed) {
      EXPECT_TRUE(result.status.ok()) << describe(result);
      return;
    }
    if (result.status.ok())
      return;
    EXPECT_NE(result.status.message().find("shell"), std::string::npos)
        << describe(result);
    EXPECT_TRUE(result.commands.empty()) << "refused after a tool ran";
  }

  /// Both languages, each on its own kernel copy under |dir|.
  std::vector<std::pair<KernelSpec, std::string>> specs(const fs::path &dir,
                                                        const std::string &cu,
                                                        const std::string &comp,
                                                        const fs::path &inc) {
    fs::create_directories(inc);
    fs::copy_file(kTestData / "saxpy.cu", dir / cu);
    fs::copy_file(kTestData / "saxpy.comp", dir / comp);
    for (const char *header : {"scale.h", "scale.glsl"})
      fs::copy_file(kTestData / "include" / header, inc / header,
                    fs::copy_options::overwrite_existing);
    KernelSpec cuda = cudaSpec(cu, dir);
    cuda.includeDirs = {inc};
    KernelSpec glsl = glslSpec(comp, dir);
    glsl.includeDirs = {inc};
    glsl.optimizeSpirv = true;
    return {{cuda, "cuda:sm_90"}, {glsl, "vulkan:1.2"}};
  }

  std::optional<TempDir> markersDir_;
  fs::path markers_;
  int next_ = 0;
};

/// Whether a define value with this payload is refused: `$`, backquote,
/// backslash and `"` stay live inside nvcc's double quotes.
bool refusedAsDefineValue(const std::string &payload) {
  for (unsigned char c : payload)
    if (c < 0x20 || std::strchr("$`\\\"", c))
      return true;
  return false;
}

// Every payload in every define name, every refusable define value and
// every tool's flags is refused before any tool runs (fast: no tool runs).
TEST_F(ShellSafetyTest, DefinesAndFlagsWithShellCharactersAreRefused) {
  NEED("nvcc", "ptxas", "host-cxx", "glslc", "spirv-val", "spirv-opt");
  for (auto &[base, target] :
       specs(root(), "saxpy.cu", "saxpy.comp", root() / "include")) {
    for (const std::string &payload : payloads()) {
      KernelSpec spec = base;
      if (refusedAsDefineValue(payload)) {
        spec.defines = {{"UNUSED", payload}};
        expectSafe(build(spec, target), target + " define value", false);
      }
      spec.defines = {{"UNUSED" + payload, "1"}};
      expectSafe(build(spec, target), target + " define name", false);
      spec.defines.clear();
      for (const char *tool :
           {"nvcc", "ptxas", "glslc", "spirv-val", "spirv-opt"}) {
        spec.extraFlags = {{tool, {"-D" + payload}}};
        expectSafe(build(spec, target), target + " " + tool + " flag", false);
        spec.extraFlags = {{tool, {payload}}};
        expectSafe(build(spec, target), target + " " + tool + " argument",
                   false);
      }
    }
  }
}

// The payloads whose define values are accepted (their characters are
// harmless inside nvcc's double quotes) reach the tools, all in one build
// per language, and run nothing.
TEST_F(ShellSafetyTest, AcceptedDefineValuesBuildAndRunNothing) {
  NEED("nvcc", "ptxas", "host-cxx", "glslc", "spirv-val", "spirv-opt");
  for (auto &[spec, target] :
       specs(root(), "saxpy.cu", "saxpy.comp", root() / "include")) {
    int accepted = 0;
    for (const std::string &payload : payloads())
      if (!refusedAsDefineValue(payload))
        spec.defines.push_back(
            {"UNUSED" + std::to_string(accepted++), payload});
    ASSERT_GE(accepted, 6);
    expectSafe(build(spec, target), target + " define values", true);
  }
}

TEST_F(ShellSafetyTest, PathsWithShellCharactersAreStagedUnderSafeNames) {
  NEED("nvcc", "ptxas", "host-cxx", "glslc", "spirv-val", "spirv-opt");
  fs::path sourceDir = hostileDirectory("src");
  fs::path includeDir = hostileDirectory("inc");
  std::vector<std::string> names = payloads(/*slashless=*/true);
  auto cases =
      specs(sourceDir, names[0] + ".cu", names[1] + ".comp", includeDir);
  fs::path outDir = hostileDirectory("out");
  for (auto &[spec, target] : cases) {
    auto parsed = Target::parse(target);
    KernelBuilder builder(toolchains_, cache_.get(), BuildOptions{});
    BuildJobResult result = builder.build(spec, *parsed, outDir);
    expectSafe(result, target + " source, include and output paths", true);
    for (const OutputFile &output : result.outputs)
      EXPECT_TRUE(fs::is_regular_file(output.path)) << output.path;
  }
  // Every remaining payload as a source file name on its own (every third
  // through nvcc: the staging is the same for both languages, nvcc is slow).
  for (size_t i = 2; i < names.size(); ++i) {
    auto [spec, target] = specs(sourceDir, names[i] + ".cu", names[i] + ".comp",
                                includeDir)[i % 3 != 0];
    expectSafe(build(spec, target), target + " source file name", true);
  }
}

} // namespace
} // namespace kb::toolchains
