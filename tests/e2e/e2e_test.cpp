//===- tests/e2e/e2e_test.cpp - build with the compiler, then run ---------===//
//
// The main flows of a kernel-bench built with the compiler, through the
// built binary: `kernel-bench build` compiles the project's program with the
// kernels substituted (program.kbm + one bench/<name>.kbm per dispatch,
// build.json "program"), then `kernel-bench run` executes it on lavapipe with
// and without the substitutions and the outputs agree. Bad programs and bad
// substitutions exit 1 with the compiler's diagnostic and leave no module.
// Tests skip when a tool (nvcc, glslc, ...) or the Vulkan device is missing.
//
//===----------------------------------------------------------------------===//
#include "tests/support/cli_test_support.h"

#include "common/test_util.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

namespace fs = std::filesystem;
using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

namespace {

const fs::path kSourceDir = KB_SOURCE_DIR;
const fs::path kFixtures = kSourceDir / "tests/e2e/fixtures";

using kb::test::CliRun;
using kb::test::replaceInFile;

class EndToEndTest : public kb::test::KernelBenchTest {
protected:
  EndToEndTest() : KernelBenchTest("kb_e2e_test") {}

  CliRun build(const fs::path &project, std::vector<std::string> extra = {}) {
    return buildProject(project, std::move(extra));
  }

  /// `kernel-bench run OUT --device vulkan` (lavapipe where there is no
  /// GPU); exit 77 when there is no Vulkan device (SKIP_WITHOUT_VULKAN).
  CliRun runOnVulkan() {
    return run({"run", out_.string(), "--device", "vulkan"});
  }

  /// The .kbm files under OUT/bench.
  std::set<std::string> benchFiles() {
    std::set<std::string> files;
    std::error_code ec;
    for (auto &entry : fs::directory_iterator(out_ / "bench", ec))
      files.insert("bench/" + entry.path().filename().string());
    return files;
  }
};

/// The build.json "program" record of a successful compile: every field
/// workbench/README.md documents, with its type.
void expectValidProgramRecord(const json &program) {
  ASSERT_TRUE(program.is_object()) << program.dump(2);
  EXPECT_EQ(program.at("status"), "ok");
  // A standalone kernel's record names its kernel and synthesized program.
  if (program.contains("kernel"))
    for (const char *key : {"kernel", "manifest", "program"})
      EXPECT_TRUE(program.at(key).is_string()) << key;
  else
    EXPECT_TRUE(program.at("path").is_string());
  EXPECT_TRUE(program.at("targets").is_array());
  EXPECT_TRUE(program.at("diagnostics").is_string());
  EXPECT_THAT(program.at("module").get<std::string>(),
              ::testing::EndsWith("program.kbm"));
  for (const json &s : program.at("substitutions"))
    for (const char *key : {"executable", "variant", "kind", "kernel",
                            "manifest", "file", "reference"})
      EXPECT_TRUE(s.at(key).is_string()) << key << " in " << s.dump();
  for (const json &b : program.at("benchmarks")) {
    for (const char *key : {"name", "executable", "export", "file"})
      EXPECT_TRUE(b.at(key).is_string()) << key << " in " << b.dump();
    EXPECT_EQ(b.at("workload").size(), 3u);
    EXPECT_EQ(b.at("workgroup_count").size(), 3u);
    for (const char *key : {"candidates", "references", "sites"})
      EXPECT_TRUE(b.at(key).is_array()) << key << " in " << b.dump();
  }
  for (const json &u : program.at("unbenchmarked"))
    for (const char *key : {"executable", "export", "site", "reason"})
      EXPECT_TRUE(u.at(key).is_string()) << key;
  for (const json &c : program.at("codegen")) {
    for (const char *key : {"executable", "variant", "target"})
      EXPECT_TRUE(c.at(key).is_string()) << key;
    EXPECT_TRUE(c.at("milliseconds").is_number());
  }
}

TEST_F(EndToEndTest, QuickstartBuildsTheProgramThenRunsAgreeing) {
  for (const char *tool : {"nvcc", "ptxas", "glslc", "spirv-val"})
    REQUIRE_TOOL(tool);
  CliRun r = build(kSourceDir / "examples/quickstart", {"-j", "2"});
  ASSERT_EQ(r.exitCode, 0) << r.output;
  json report = buildJson();
  const json &program = report.at("program");
  expectValidProgramRecord(program);
  EXPECT_EQ(program.at("targets"), json({"cuda:sm_90", "vulkan:1.2"}));

  // Every (kernel, target) of a kernel with `substitutes` replaced its
  // variant, and build.json says which kernel did.
  std::map<std::string, std::string> substitutes = {
      {"saxpy", "saxpy"},
      {"reduce_sum", "reduce_sum"},
      {"softmax", "softmax"},
      {"matmul_tiled", "matmul"}};
  std::set<std::pair<std::string, std::string>> seen;
  for (const json &s : program.at("substitutions")) {
    std::string kernel = s.at("kernel");
    ASSERT_TRUE(substitutes.count(kernel)) << s.dump();
    EXPECT_EQ(s.at("executable"), substitutes[kernel]);
    EXPECT_EQ(s.at("kind"), "object");
    EXPECT_THAT(s.at("manifest").get<std::string>(),
                HasSubstr("kernels/" + kernel + "/kernel.toml"));
    EXPECT_TRUE(fs::is_regular_file(out_ / s.at("file").get<std::string>()))
        << s.dump();
    EXPECT_FALSE(s.at("reference").get<std::string>().empty());
    seen.insert({kernel, s.at("variant")});
  }
  std::set<std::pair<std::string, std::string>> expected;
  for (const auto &[kernel, exe] : substitutes)
    for (const char *variant : {"cuda_sm_90", "vulkan_1_2"})
      expected.insert({kernel, variant});
  EXPECT_EQ(seen, expected);

  // One benchmark per dispatch (the two reduce_sum passes differ in
  // shape), each with the handwritten candidates and generated references.
  EXPECT_TRUE(fs::is_regular_file(out_ / "program.kbm"));
  const json &benchmarks = program.at("benchmarks");
  EXPECT_EQ(benchmarks.size(), 5u) << benchmarks.dump(2);
  EXPECT_TRUE(program.at("unbenchmarked").empty()) << program.dump(2);
  std::set<std::string> files;
  std::map<std::string, int> perExecutable;
  for (const json &b : benchmarks) {
    files.insert(b.at("file").get<std::string>());
    ++perExecutable[b.at("executable")];
    EXPECT_EQ(b.at("candidates").size(), 2u) << b.dump();
    EXPECT_EQ(b.at("references").size(), 2u) << b.dump();
  }
  EXPECT_EQ(files, benchFiles());
  EXPECT_EQ(
      perExecutable,
      (std::map<std::string, int>{
          {"saxpy", 1}, {"reduce_sum", 2}, {"softmax", 1}, {"matmul", 1}}));
  EXPECT_FALSE(program.at("codegen").empty());

  CliRun ran = runOnVulkan();
  SKIP_WITHOUT_VULKAN(ran);
  EXPECT_EQ(ran.exitCode, 0) << ran.output;
  EXPECT_THAT(ran.output, HasSubstr("result: outputs agree"));
  EXPECT_THAT(ran.output,
              Not(HasSubstr("no substituted (candidate) variants")));
}

TEST_F(EndToEndTest, SmallProgramRecordsTheSubstitutionAndRunsOnLavapipe) {
  REQUIRE_TOOL("glslc");
  REQUIRE_TOOL("spirv-val");
  CliRun r = build(kFixtures / "scale_program");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  json program = buildJson().at("program");
  expectValidProgramRecord(program);
  ASSERT_EQ(program.at("substitutions").size(), 1u) << program.dump(2);
  const json &s = program.at("substitutions")[0];
  EXPECT_EQ(s.at("executable"), "scale");
  EXPECT_EQ(s.at("variant"), "vulkan_1_2");
  EXPECT_EQ(s.at("kernel"), "scale");
  EXPECT_EQ(s.at("manifest"),
            "tests/e2e/fixtures/scale_program/scale/kernel.toml");
  EXPECT_EQ(s.at("file"), "kernels/scale/vulkan1.2.spv");
  ASSERT_EQ(program.at("benchmarks").size(), 1u);
  const json &b = program.at("benchmarks")[0];
  EXPECT_EQ(b.at("executable"), "scale");
  EXPECT_EQ(b.at("workload"), json({4096, 1, 1}));
  EXPECT_EQ(b.at("candidates"), json({"vulkan_1_2"}));
  EXPECT_EQ(b.at("references").size(), 1u);
  EXPECT_EQ(benchFiles(),
            std::set<std::string>{b.at("file").get<std::string>()});
  ASSERT_EQ(program.at("codegen").size(), 1u);
  EXPECT_EQ(program.at("codegen")[0].at("target"), "vulkan:1.2");

  CliRun ran = runOnVulkan();
  SKIP_WITHOUT_VULKAN(ran);
  EXPECT_EQ(ran.exitCode, 0) << ran.output;
  EXPECT_THAT(ran.output, HasSubstr("result: outputs agree"));
}

TEST_F(EndToEndTest, ProgramErrorExitsOneAndRemovesEarlierModules) {
  REQUIRE_TOOL("glslc");
  REQUIRE_TOOL("spirv-val");
  fs::path project = tmp_ / "project";
  fs::copy(kFixtures / "scale_program", project, fs::copy_options::recursive);
  ASSERT_EQ(build(project).exitCode, 0);
  ASSERT_TRUE(fs::exists(out_ / "program.kbm"));
  ASSERT_FALSE(benchFiles().empty());

  {
    std::ofstream broken(project / "program.mlir");
    broken << "// line 4 uses an op the kb dialect does not have\n"
              "func.func @main() {\n"
              "  %c1 = arith.constant 1 : index\n"
              "  kb.bogus %c1 : index\n"
              "  return\n"
              "}\n";
  }
  CliRun r = build(project);
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("program.mlir failed:"));
  EXPECT_THAT(r.output,
              HasSubstr("FAILED: the program step (above); built 1 kernel"));
  EXPECT_THAT(r.output,
              ::testing::ContainsRegex("program\\.mlir:4:[0-9]+: error: "));
  // A build whose program failed leaves no module an earlier build wrote:
  // `kernel-bench run` must not run a stale program.
  EXPECT_FALSE(fs::exists(out_ / "program.kbm"));
  EXPECT_TRUE(benchFiles().empty());
  EXPECT_FALSE(fs::exists(out_ / ".kb-program-stamp"));
  json program = buildJson().at("program");
  EXPECT_EQ(program.at("status"), "failed");
  EXPECT_THAT(program.at("diagnostics").get<std::string>(),
              HasSubstr("error: "));
  // The kernels themselves built.
  EXPECT_TRUE(fs::is_regular_file(out_ / "kernels/scale/vulkan1.2.spv"));
}

TEST_F(EndToEndTest, FailedKernelSkipsTheProgramAndRemovesEarlierModules) {
  REQUIRE_TOOL("glslc");
  REQUIRE_TOOL("spirv-val");
  fs::path project = tmp_ / "project";
  fs::copy(kFixtures / "scale_program", project, fs::copy_options::recursive);
  CliRun first = build(project);
  ASSERT_EQ(first.exitCode, 0) << first.output;
  EXPECT_THAT(first.output,
              HasSubstr("program.kbm, 1 substitution, 1 benchmark; "));
  ASSERT_TRUE(fs::exists(out_ / "program.kbm"));
  // The user's own module where the program's benchmarks go: a build removes
  // only the modules it provably wrote.
  std::ofstream(out_ / "bench/mybench.kbm") << "mine";

  std::ofstream(project / "scale/scale.comp", std::ios::app)
      << "this is not GLSL\n";
  CliRun r = build(project);
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_EQ(buildJson().at("program").at("status"), "skipped");
  EXPECT_FALSE(fs::exists(out_ / "program.kbm"));
  EXPECT_EQ(benchFiles(), std::set<std::string>{"bench/mybench.kbm"});
  EXPECT_EQ(kb::test::readFile(out_ / "bench/mybench.kbm"), "mine");
  EXPECT_FALSE(fs::exists(out_ / ".kb-program-stamp"));

  // Fixed again: compiled, not taken from the discarded outputs.
  std::ofstream(project / "scale/scale.comp", std::ios::trunc)
      << std::ifstream(kFixtures / "scale_program/scale/scale.comp").rdbuf();
  CliRun fixed = build(project);
  ASSERT_EQ(fixed.exitCode, 0) << fixed.output;
  EXPECT_EQ(buildJson().at("program").at("cached"), false);
  EXPECT_TRUE(fs::exists(out_ / "program.kbm"));
}

// Standalone kernels are independent of the program and of each other: one
// that fails is reported and skipped, the program and the other standalone
// kernels still build, and the exit status is 1.
TEST_F(EndToEndTest, FailingStandaloneKernelLeavesTheOthersBuilt) {
  REQUIRE_TOOL("glslc");
  REQUIRE_TOOL("spirv-val");
  fs::path project = tmp_ / "project";
  fs::copy(kFixtures / "scale_program", project, fs::copy_options::recursive);
  for (const char *kernel : {"scale_ref", "scale_noref"})
    fs::copy(kFixtures / "standalone" / kernel, project / kernel,
             fs::copy_options::recursive);
  fs::create_directories(project / "broken");
  std::ofstream(project / "broken/broken.comp") << "this is not GLSL\n";
  std::string toml = kb::test::readFile(project / "scale_noref/kernel.toml");
  toml.replace(toml.find("name = \"scale_noref\""), 20, "name = \"broken\"");
  toml.replace(toml.find("../../scale_program/scale/scale.comp"), 36,
               "broken.comp");
  std::ofstream(project / "broken/kernel.toml") << toml;
  // The copies sit one level higher than in the fixture.
  for (const char *kernel : {"scale_ref", "scale_noref"})
    replaceInFile(project / kernel / "kernel.toml",
                  "../../scale_program/scale/scale.comp",
                  "../scale/scale.comp");
  std::ofstream(project / "workbench.toml", std::ios::trunc)
      << "[project]\nname = \"mixed\"\nprogram = \"program.mlir\"\n"
         "kernels = [\"scale\", \"scale_ref\", \"scale_noref\", \"broken\"]\n"
         "targets = [\"vulkan:1.2\"]\n";

  CliRun r = build(project);
  EXPECT_EQ(r.exitCode, 1) << r.output;
  json program = buildJson().at("program");
  EXPECT_EQ(program.at("status"), "ok") << program.dump(2);
  EXPECT_TRUE(fs::exists(out_ / "program.kbm"));
  std::map<std::string, json> byKernel;
  for (const json &entry : program.at("standalone"))
    byKernel[entry.at("kernel")] = entry;
  ASSERT_EQ(byKernel.size(), 3u) << program.dump(2);
  EXPECT_EQ(byKernel.at("broken").at("status"), "skipped");
  EXPECT_EQ(byKernel.at("broken").at("reason"), "its kernel jobs failed");
  EXPECT_FALSE(fs::exists(out_ / "standalone/broken"));
  for (const char *kernel : {"scale_ref", "scale_noref"}) {
    EXPECT_EQ(byKernel.at(kernel).at("status"), "ok") << kernel;
    EXPECT_TRUE(fs::exists(out_ / "standalone" / kernel / "program.kbm"))
        << kernel;
  }
  EXPECT_FALSE(fs::exists(out_ / ".kb-program-stamp"));
}

TEST_F(EndToEndTest, NoOpRebuildReusesTheProgramAndAnyChangeRecompiles) {
  REQUIRE_TOOL("glslc");
  REQUIRE_TOOL("spirv-val");
  fs::path project = tmp_ / "project";
  fs::copy(kFixtures / "scale_program", project, fs::copy_options::recursive);
  const fs::path stamp = out_ / ".kb-program-stamp";

  // Builds and says whether the program step reused the previous outputs.
  // With -v, which always runs the full check: a plain no-op is decided
  // from stat() alone and keeps build.json as the last compile wrote it.
  auto buildCached = [&](std::vector<std::string> extra = {}) {
    extra.push_back("-v");
    CliRun r = build(project, extra);
    EXPECT_EQ(r.exitCode, 0) << r.output;
    json program = buildJson().at("program");
    expectValidProgramRecord(program);
    EXPECT_TRUE(fs::is_regular_file(stamp));
    bool cached = program.at("cached").get<bool>();
    EXPECT_EQ(r.output.find("program.kbm (cached), ") != std::string::npos,
              cached)
        << r.output;
    return cached;
  };

  ASSERT_FALSE(buildCached());
  json first = buildJson().at("program");
  ASSERT_TRUE(buildCached());
  // The reused record is the compile's, complete.
  json second = buildJson().at("program");
  second["cached"] = false;
  EXPECT_EQ(second, first);
  EXPECT_THAT(run({"build", project.string(), "-o", out_.string(),
                   "--cache-dir", cache_.string()})
                  .output,
              HasSubstr("program.kbm (cached), 1 substitution, 1 benchmark; "));

  // The program's contents.
  std::ofstream(project / "program.mlir", std::ios::app) << "// edited\n";
  EXPECT_FALSE(buildCached());
  EXPECT_TRUE(buildCached());

  // The substituted kernel's object.
  replaceInFile(project / "scale/scale.comp", "2.0 * x[i]", "3.0 * x[i]");
  EXPECT_FALSE(buildCached());
  EXPECT_TRUE(buildCached());

  // An output deleted, or corrupted: recompiled, and restored.
  std::set<std::string> bench = benchFiles();
  ASSERT_EQ(bench.size(), 1u);
  const fs::path kbm = out_ / *bench.begin();
  std::string bytes = kb::test::readFile(kbm);
  fs::remove(kbm);
  EXPECT_FALSE(buildCached());
  EXPECT_TRUE(fs::is_regular_file(kbm));
  std::ofstream(kbm, std::ios::binary | std::ios::trunc)
      << std::string(bytes.size(), '\0');
  EXPECT_FALSE(buildCached());
  EXPECT_EQ(kb::test::readFile(kbm), bytes);
  EXPECT_TRUE(buildCached());

  // The targets.
  replaceInFile(project / "workbench.toml", R"(targets = ["vulkan:1.2"])",
                R"(targets = ["vulkan:1.3"])");
  EXPECT_FALSE(buildCached());
  EXPECT_EQ(buildJson().at("program").at("targets"), json({"vulkan:1.3"}));
  EXPECT_TRUE(buildCached());

  // --no-cache compiles again.
  EXPECT_FALSE(buildCached({"--no-cache"}));
}

TEST_F(EndToEndTest, TargetFlagNarrowsTheProgramsTargets) {
  REQUIRE_TOOL("glslc");
  REQUIRE_TOOL("spirv-val");
  fs::path project = tmp_ / "project";
  fs::copy(kFixtures / "scale_program", project, fs::copy_options::recursive);
  replaceInFile(project / "workbench.toml", R"(targets = ["vulkan:1.2"])",
                R"(targets = ["vulkan:1.2", "vulkan:1.3"])");
  CliRun both = build(project);
  ASSERT_EQ(both.exitCode, 0) << both.output;
  EXPECT_EQ(buildJson().at("program").at("targets"),
            json({"vulkan:1.2", "vulkan:1.3"}));

  CliRun one = build(project, {"--target", "vulkan:1.3"});
  ASSERT_EQ(one.exitCode, 0) << one.output;
  json program = buildJson().at("program");
  EXPECT_EQ(program.at("cached"), false); // the targets are in the key
  EXPECT_EQ(program.at("targets"), json({"vulkan:1.3"}));
  ASSERT_EQ(program.at("codegen").size(), 1u) << program.dump(2);
  EXPECT_EQ(program.at("codegen")[0].at("target"), "vulkan:1.3");
  ASSERT_EQ(program.at("substitutions").size(), 1u);
  EXPECT_EQ(program.at("substitutions")[0].at("variant"), "vulkan_1_3");
}

TEST_F(EndToEndTest, SubstitutingAnUnknownExecutableIsAnError) {
  REQUIRE_TOOL("glslc");
  REQUIRE_TOOL("spirv-val");
  fs::path project = tmp_ / "project";
  fs::copy(kFixtures / "scale_program", project, fs::copy_options::recursive);
  replaceInFile(project / "scale/kernel.toml", "substitutes = \"scale\"",
                "substitutes = \"scael\"");
  CliRun r = build(project);
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output,
              HasSubstr("no kb.executable matches 'scael/vulkan_1_2'"));
  EXPECT_THAT(r.output, HasSubstr("executables: @scale"));
  EXPECT_FALSE(fs::exists(out_ / "program.kbm"));
}

TEST_F(EndToEndTest, DuplicateSubstitutionNamesBothKernelTomls) {
  REQUIRE_TOOL("glslc");
  REQUIRE_TOOL("spirv-val");
  CliRun r = build(kFixtures / "duplicate");
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output,
              HasSubstr("tests/e2e/fixtures/scale_program/scale/kernel.toml"));
  EXPECT_THAT(r.output,
              HasSubstr("tests/e2e/fixtures/duplicate/scale2/kernel.toml"));
  EXPECT_THAT(r.output, HasSubstr("'scale'"));
  EXPECT_FALSE(fs::exists(out_ / "program.kbm"));
  EXPECT_TRUE(benchFiles().empty());
  EXPECT_EQ(buildJson().at("program").at("status"), "failed");
}

TEST_F(EndToEndTest, AbiMismatchFailsWithTheCompilersDiagnostic) {
  REQUIRE_TOOL("glslc");
  REQUIRE_TOOL("spirv-val");
  CliRun r = build(kFixtures / "abi_mismatch");
  EXPECT_EQ(r.exitCode, 1) << r.output;
  // The kernel fits its own kernel.toml (the job succeeds); the compiler
  // rejects it at the export it substitutes.
  EXPECT_TRUE(fs::is_regular_file(out_ / "kernels/scale_wide/vulkan1.2.spv"));
  EXPECT_THAT(
      r.output,
      HasSubstr("tests/e2e/fixtures/scale_program/program.mlir:3:3: error: "));
  EXPECT_THAT(r.output, HasSubstr("does not match the ABI of export @scale"));
  EXPECT_THAT(r.output, HasSubstr("expected 64x1x1, found 128x1x1"));
  EXPECT_FALSE(fs::exists(out_ / "program.kbm"));
  EXPECT_TRUE(benchFiles().empty());
}

TEST_F(EndToEndTest, KernelsOnlySkipsTheProgram) {
  REQUIRE_TOOL("glslc");
  REQUIRE_TOOL("spirv-val");
  CliRun r = build(kFixtures / "scale_program", {"--kernels-only"});
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_TRUE(buildJson().at("program").is_null());
  EXPECT_FALSE(fs::exists(out_ / "program.kbm"));
  EXPECT_TRUE(fs::is_regular_file(out_ / "kernels/scale/vulkan1.2.spv"));
}

// A --kernels-only rebuild into a directory that held a full build leaves
// no program behind: `run` and `abi` then say there is none, instead of
// checking the earlier build's program and reporting that outputs agree.
TEST_F(EndToEndTest, KernelsOnlyLeavesNoStaleProgram) {
  REQUIRE_TOOL("glslc");
  REQUIRE_TOOL("spirv-val");
  CliRun r = build(kFixtures / "scale_program");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  ASSERT_TRUE(fs::exists(out_ / "program.kbm"));
  ASSERT_FALSE(benchFiles().empty());
  r = build(kFixtures / "scale_program", {"--kernels-only"});
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_TRUE(buildJson().at("program").is_null());
  EXPECT_FALSE(fs::exists(out_ / "program.kbm"));
  EXPECT_TRUE(benchFiles().empty());
  EXPECT_FALSE(fs::exists(out_ / ".kb-program-stamp"));
  CliRun ran = run({"run", out_.string(), "--device", "vulkan"});
  EXPECT_NE(ran.exitCode, 0) << ran.output;
  EXPECT_THAT(ran.output, Not(HasSubstr("outputs agree")));
  CliRun abi = run({"abi", out_.string()});
  EXPECT_NE(abi.exitCode, 0) << abi.output;
  // The full build afterwards compiles the program again (no stale stamp).
  r = build(kFixtures / "scale_program");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_TRUE(fs::exists(out_ / "program.kbm"));
}

TEST_F(EndToEndTest, StandaloneKernelsGetTheirOwnBenchmarkProgram) {
  REQUIRE_TOOL("glslc");
  REQUIRE_TOOL("spirv-val");
  CliRun r = build(kFixtures / "standalone");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  json program = buildJson().at("program");
  EXPECT_TRUE(program.at("path").is_null());
  EXPECT_EQ(program.at("status"), "ok");
  EXPECT_FALSE(fs::exists(out_ / "program.kbm"));
  std::map<std::string, json> byKernel;
  for (const json &entry : program.at("standalone")) {
    expectValidProgramRecord(entry);
    byKernel[entry.at("kernel")] = entry;
  }
  ASSERT_EQ(byKernel.size(), 2u) << program.dump(2);

  // With a reference: the compiler generates it from scale.mlir and the
  // handwritten kernel substitutes it, so the benchmark carries both.
  const json &ref = byKernel.at("scale_ref");
  EXPECT_EQ(ref.at("module"), "standalone/scale_ref/program.kbm");
  ASSERT_EQ(ref.at("substitutions").size(), 1u);
  EXPECT_EQ(ref.at("substitutions")[0].at("kernel"), "scale_ref");
  ASSERT_EQ(ref.at("benchmarks").size(), 1u);
  const json &b = ref.at("benchmarks")[0];
  EXPECT_EQ(b.at("workload"), json({5000, 1, 1})); // workload = ["n"]
  EXPECT_EQ(b.at("workgroup_count"), json({79, 1, 1}));
  EXPECT_EQ(b.at("candidates"), json({"vulkan_1_2"}));
  EXPECT_EQ(b.at("references").size(), 1u);
  EXPECT_TRUE(fs::is_regular_file(out_ / b.at("file").get<std::string>()));
  EXPECT_TRUE(fs::is_regular_file(out_ / "standalone/scale_ref/program.mlir"));

  // Without one: the handwritten kernel is the only variant.
  const json &noref = byKernel.at("scale_noref");
  // The targets built, with or without a reference.
  EXPECT_EQ(ref.at("targets"), json({"vulkan:1.2"}));
  EXPECT_EQ(noref.at("targets"), json({"vulkan:1.2"}));
  ASSERT_EQ(noref.at("benchmarks").size(), 1u);
  EXPECT_TRUE(noref.at("benchmarks")[0].at("references").empty());
  EXPECT_TRUE(noref.at("codegen").empty());
  EXPECT_TRUE(fs::is_regular_file(
      out_ / noref.at("benchmarks")[0].at("file").get<std::string>()));

  // A no-op rebuild reuses both synthesized programs (-v: the full check,
  // which records that; a plain no-op keeps build.json as it is).
  EXPECT_EQ(program.at("cached"), false);
  CliRun again = build(kFixtures / "standalone", {"-v"});
  ASSERT_EQ(again.exitCode, 0) << again.output;
  EXPECT_THAT(again.output, HasSubstr("programs cached, "));
  json reused = buildJson().at("program");
  EXPECT_EQ(reused.at("cached"), true);
  reused["cached"] = false;
  EXPECT_EQ(reused, program);

  CliRun ran = run(
      {"run", (out_ / "standalone/scale_ref").string(), "--device", "vulkan"});
  SKIP_WITHOUT_VULKAN(ran);
  EXPECT_EQ(ran.exitCode, 0) << ran.output;
  EXPECT_THAT(ran.output, HasSubstr("candidate spirv"));
  EXPECT_THAT(ran.output, HasSubstr("result: outputs agree"));
}

TEST_F(EndToEndTest, BadBenchTablesAreLocatedErrors) {
  fs::path kernel = tmp_ / "project/k";
  fs::create_directories(kernel);
  std::ofstream(tmp_ / "project/workbench.toml")
      << "[project]\nname = \"p\"\nkernels = [\"k\"]\n"
         "targets = [\"vulkan:1.2\"]\n";
  const std::string head =
      "[kernel]\nname = \"k\"\nsources = [\"" +
      (kFixtures / "scale_program/scale/scale.comp").string() + "\"]\n";
  const std::string abi =
      "[abi]\nworkgroup_size = [64, 1, 1]\nbindings = [\n"
      "  { name = \"x\", type = \"f32\", access = \"readonly\" },\n"
      "  { name = \"y\", type = \"f32\", access = \"writeonly\" },\n]\n"
      "constants = [{ name = \"n\", type = \"u32\" }]\n";
  struct Case {
    std::string toml;
    std::string message;
  } cases[] = {
      {head + abi +
           "[bench]\nworkload = [\"n\"]\nelements = { x = 1, y = 1 }\n",
       "kernel.toml:11:1: [bench] constants: no value for constant 0 `n` "
       "(u32)"},
      {head + abi +
           "[bench]\nworkload = [\"m\"]\nconstants = { n = 4 }\n"
           "elements = { x = 1, y = 1 }\n",
       "kernel.toml:12:13: `workload[0]`: `m` column 1: unknown name `m`; "
       "known names: n (a size names integer [bench] constants and "
       "[specialization] values)"},
      {head + abi +
           "[bench]\nworkload = [\"n / 3\"]\nconstants = { n = 4 }\n"
           "elements = { x = \"n / 2\", y = \"(n + 2) / 2\" }\n",
       "kernel.toml:12:13: `workload[0]`: `n / 3` is 1.333333; expected a "
       "positive whole number (`/` divides exactly: its operands must "
       "divide)"},
      {head + abi +
           "[bench]\nworkload = [4]\nconstants = { n = -1 }\n"
           "elements = { x = 1, y = 1 }\n",
       "`constants.n`: expected an integer that fits u32, found"},
      {head + "substitutes = \"scale\"\n" + abi +
           "[bench]\nworkload = [4]\nconstants = { n = 4 }\n"
           "elements = { x = 1, y = 1 }\n",
       "[bench] is for a standalone kernel, but this one `substitutes` "
       "`scale`"},
  };
  for (const Case &c : cases) {
    std::ofstream(kernel / "kernel.toml") << c.toml;
    CliRun r = build(tmp_ / "project");
    EXPECT_EQ(r.exitCode, 1) << r.output;
    EXPECT_THAT(r.output, HasSubstr(c.message)) << c.toml;
    EXPECT_FALSE(fs::exists(out_ / "standalone"));
  }
}

} // namespace

namespace {

TEST_F(EndToEndTest, Bf16ReferenceCompilesForCudaThroughPtxas) {
  // LLVM 16's NVPTX backend cannot select bf16 arithmetic; codegen computes
  // it in f32 (kb-legalize-bf16-arithmetic), and ptxas accepts the PTX.
  REQUIRE_TOOL("ptxas");
  CliRun r = build(kFixtures / "bf16_program");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  json program = buildJson().at("program");
  expectValidProgramRecord(program);
  ASSERT_EQ(program.at("codegen").size(), 1u) << program.dump(2);
  EXPECT_EQ(program.at("codegen")[0].at("target"), "cuda:sm_90");
  EXPECT_TRUE(fs::is_regular_file(out_ / "program.kbm"));
}

TEST_F(EndToEndTest, LlvmFatalErrorFailsTheBuildCleanly) {
  // An i128 -> f32 conversion needs a libcall the NVPTX backend cannot
  // emit: LLVM stops with a fatal error ("Undefined external symbol
  // __floattisf"), which used to end kernel-bench (exit 134) and leave the
  // previous build's build.json beside a new program.kbm.
  fs::path project = tmp_ / "project";
  fs::copy(kFixtures / "bf16_program", project, fs::copy_options::recursive);
  CliRun first = build(project);
  ASSERT_EQ(first.exitCode, 0) << first.output;
  ASSERT_TRUE(fs::exists(out_ / "program.kbm"));

  replaceInFile(project / "program.mlir", "%w = arith.extf %v : bf16 to f32",
                "%j = arith.index_cast %i : index to i128\n"
                "      %wide = arith.muli %j, %j : i128\n"
                "      %w = arith.sitofp %wide : i128 to f32");
  CliRun r = build(project);
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("'kb.variant' op stopped LLVM with a fatal "
                                  "error in the cuda:sm_90 codegen of "
                                  "kb.executable @axpy_bf16 (variant "
                                  "@cuda_sm_90): Undefined external symbol "
                                  "\"__floattisf\""));
  EXPECT_THAT(r.output, HasSubstr("FAILED: the program step (above)"));
  // Every output describes this build: no module, a build.json that says
  // the program failed and why.
  EXPECT_FALSE(fs::exists(out_ / "program.kbm"));
  EXPECT_FALSE(fs::exists(out_ / ".kb-program-stamp"));
  json program = buildJson().at("program");
  EXPECT_EQ(program.at("status"), "failed");
  EXPECT_THAT(program.at("diagnostics").get<std::string>(),
              HasSubstr("__floattisf"));
}

/// A disk that fills up during the build: at every size from too small for
/// the kernels to too small for the program's modules, the build exits 1
/// with an error naming the file and "No space left on device", never with
/// LLVM's "IO failure on output stream" (which ended the process from the
/// program step, leaving no build.json and no summary); build.json, when
/// there was room for it, says what failed, and no module is left without
/// a record. Needs root for the tmpfs (skips otherwise).
TEST_F(EndToEndTest, AFullDiskFailsTheBuildNamingTheFile) {
  REQUIRE_TOOL("glslc");
  REQUIRE_TOOL("spirv-val");
  fs::path project = kFixtures / "scale_program";
  ASSERT_EQ(build(project).exitCode, 0);
  uint64_t total = 0;
  for (auto &e : fs::recursive_directory_iterator(out_))
    if (e.is_regular_file())
      total += e.file_size();
  for (uint64_t pages : {1, 2, 4, 8, 16, 32}) {
    if (pages * 4096 >= total)
      break;
    std::string why;
    kb::testing::SmallDisk disk(tmp_ / ("disk" + std::to_string(pages)),
                                pages * 4096, why);
    if (!why.empty())
      GTEST_SKIP() << why;
    fs::path out = disk.path() / "out";
    CliRun r = run({"build", project.string(), "-o", out.string(),
                    "--cache-dir", cache_.string()});
    SCOPED_TRACE(std::to_string(pages) + " pages: " + r.output);
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_THAT(r.output, HasSubstr("No space left on device"));
    EXPECT_THAT(r.output, Not(HasSubstr("LLVM ERROR")));
    EXPECT_THAT(r.output, Not(HasSubstr("LLVM fatal error")));
    if (fs::exists(out / "build.json")) {
      json record = json::parse(kb::testing::readFile(out / "build.json"),
                                nullptr, false);
      EXPECT_FALSE(record.is_discarded()) << "build.json is half-written";
    } else {
      EXPECT_FALSE(fs::exists(out / "program.kbm"));
    }
  }
}

} // namespace
