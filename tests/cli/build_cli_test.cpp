//===- tests/cli/build_cli_test.cpp - `kernel-bench build` end to end ----===//
//
// Runs the built kernel-bench binary on the fixture projects in
// tests/cli/fixtures/ with the real toolchains, and checks what a user sees:
// exit codes, messages that point into the right file, build.json, what is
// (not) published under OUT_DIR/kernels, and that failures never reach the
// cache. Tests needing nvcc or glslc skip when the tool is missing.
//
//===----------------------------------------------------------------------===//
#include "tests/support/cli_test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

namespace fs = std::filesystem;
using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

namespace {

const fs::path kSourceDir = KB_SOURCE_DIR;
const fs::path kFixtures = kSourceDir / "tests/cli/fixtures";

using kb::test::CliRun;

class BuildCliTest : public kb::test::KernelBenchTest {
protected:
  BuildCliTest() : KernelBenchTest("kb_cli_test", std::chrono::seconds(300)) {}

  /// `kernel-bench build FIXTURE -o OUT --cache-dir CACHE EXTRA...`.
  CliRun build(const std::string &fixture, std::vector<std::string> extra = {},
               kb::test::EnvVars env = {}) {
    return buildProject(kFixtures / fixture, std::move(extra), std::move(env));
  }

  /// Files published for (kernel, target-stem) under OUT_DIR/kernels.
  std::vector<fs::path> published(const std::string &kernel) {
    std::vector<fs::path> files;
    std::error_code ec;
    for (auto &entry : fs::directory_iterator(out_ / "kernels" / kernel, ec))
      files.push_back(entry.path());
    return files;
  }

  /// The common contract of every failing build: exit 1, the job recorded as
  /// failed in build.json with nothing published, and a second run that does
  /// not hit the cache (failures are never stored).
  void expectFailedJobNotPublishedNorCached(const std::string &fixture,
                                            const std::string &kernel,
                                            const std::string &target,
                                            const CliRun &first) {
    EXPECT_EQ(first.exitCode, 1) << first.output;
    json report = buildJson();
    ASSERT_TRUE(report.is_object());
    ASSERT_EQ(report["jobs"].size(), 1u) << report.dump(2);
    const json &job = report["jobs"][0];
    EXPECT_EQ(job["kernel"], kernel);
    EXPECT_EQ(job["target"], target);
    EXPECT_EQ(job["status"], "failed");
    EXPECT_FALSE(job["error"].is_null());
    EXPECT_TRUE(job["outputs"].empty());
    EXPECT_EQ(job["cache"], "miss");
    EXPECT_EQ(report["totals"]["failed"], 1);
    EXPECT_THAT(published(kernel), ::testing::IsEmpty());

    CliRun second = build(fixture);
    EXPECT_EQ(second.exitCode, 1) << second.output;
    json again = buildJson();
    ASSERT_EQ(again["jobs"].size(), 1u);
    EXPECT_EQ(again["jobs"][0]["cache"], "miss")
        << "a failed job must not be stored in the cache";
    EXPECT_EQ(again["jobs"][0]["status"], "failed");
    EXPECT_THAT(published(kernel), ::testing::IsEmpty());
  }
};

/// The build.json schema of workbench/README.md: every documented field,
/// with its type.
void expectValidBuildJson(const json &j) {
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j.at("schema_version"), 1);
  EXPECT_TRUE(j.at("generator").is_string());
  for (const char *key : {"name", "directory", "manifest"})
    EXPECT_TRUE(j.at("project").at(key).is_string()) << key;
  EXPECT_TRUE(j.at("project").at("targets").is_array());
  EXPECT_TRUE(j.at("output_dir").is_string());
  const json &options = j.at("options");
  EXPECT_TRUE(options.at("jobs").is_number_unsigned());
  EXPECT_TRUE(options.at("targets").is_array());
  EXPECT_TRUE(options.at("strict").is_boolean());
  EXPECT_TRUE(options.at("cache").at("enabled").is_boolean());
  EXPECT_TRUE(options.at("timeout_seconds").is_number());
  EXPECT_TRUE(options.at("kernels_only").is_boolean());
  EXPECT_TRUE(j.at("error").is_null() || j.at("error").is_string());
  EXPECT_TRUE(j.at("tool_versions").is_object());
  EXPECT_TRUE(j.contains("program"));
  for (const json &skipped : j.at("skipped_targets")) {
    EXPECT_TRUE(skipped.at("target").is_string());
    EXPECT_TRUE(skipped.at("reason").is_string());
  }
  for (const json &job : j.at("jobs")) {
    for (const char *key :
         {"kernel", "target", "language", "source", "manifest", "entry"})
      EXPECT_TRUE(job.at(key).is_string()) << key;
    EXPECT_THAT(job.at("status").get<std::string>(),
                ::testing::AnyOf("ok", "failed"));
    EXPECT_THAT(job.at("cache").get<std::string>(),
                ::testing::AnyOf("hit", "miss", "disabled"));
    EXPECT_TRUE(job.at("seconds").is_number());
    EXPECT_TRUE(job.at("shared_compile_with").is_null() ||
                job.at("shared_compile_with").is_string());
    EXPECT_TRUE(job.at("tool_versions").is_object());
    for (const json &c : job.at("commands")) {
      EXPECT_TRUE(c.at("tool").is_string());
      EXPECT_TRUE(c.at("argv").is_array());
      EXPECT_TRUE(c.at("command_line").is_string());
      EXPECT_TRUE(c.at("seconds").is_number());
      EXPECT_TRUE(c.at("exit_code").is_number_integer());
      EXPECT_TRUE(c.at("signal").is_number_integer());
      EXPECT_TRUE(c.at("timed_out").is_boolean());
    }
    for (const json &o : job.at("outputs")) {
      EXPECT_THAT(o.at("kind").get<std::string>(),
                  ::testing::AnyOf("ptx", "cubin", "spv"));
      EXPECT_TRUE(o.at("path").is_string());
      EXPECT_EQ(o.at("sha256").get<std::string>().size(), 64u);
      EXPECT_TRUE(o.at("bytes").is_number_unsigned());
    }
    if (!job.at("resources").is_null())
      for (const char *key :
           {"registers", "stack_frame_bytes", "spill_store_bytes",
            "spill_load_bytes", "shared_memory_bytes", "barriers",
            "constant_memory_bytes"})
        EXPECT_TRUE(job.at("resources").at(key).is_number_unsigned()) << key;
    for (const json &d : job.at("diagnostics")) {
      for (const char *key : {"tool", "file", "severity", "message", "code"})
        EXPECT_TRUE(d.at(key).is_string()) << key;
      EXPECT_TRUE(d.at("line").is_number_integer());
      EXPECT_TRUE(d.at("column").is_number_integer());
    }
    if (job.at("status") == "ok")
      EXPECT_TRUE(job.at("error").is_null());
    else
      EXPECT_TRUE(job.at("error").at("message").is_string());
  }
  const json &totals = j.at("totals");
  for (const char *key :
       {"kernels", "targets", "jobs", "succeeded", "failed", "cache_hits"})
    EXPECT_TRUE(totals.at(key).is_number_unsigned()) << key;
  EXPECT_TRUE(totals.at("wall_seconds").is_number());
  EXPECT_TRUE(totals.at("tool_seconds").is_number());
  EXPECT_EQ(totals.at("jobs"), j.at("jobs").size());
}

/// Every output recorded in build.json exists with the recorded size.
void expectOutputsMatch(const json &j, const fs::path &outDir) {
  for (const json &job : j.at("jobs"))
    for (const json &o : job.at("outputs")) {
      fs::path p = outDir / o.at("path").get<std::string>();
      ASSERT_TRUE(fs::is_regular_file(p)) << p;
      EXPECT_EQ(fs::file_size(p), o.at("bytes").get<uint64_t>()) << p;
    }
}

TEST_F(BuildCliTest, UsageErrorsExitTwo) {
  CliRun r = run({"build", "--no-such-flag"});
  EXPECT_EQ(r.exitCode, 2) << r.output;
  r = run({"build", (kFixtures / "good").string(), "--target", "metal:3"});
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("--target metal:3"));
  r = run({"build", (kFixtures / "good").string(), "-j", "0"});
  EXPECT_EQ(r.exitCode, 2) << r.output;
}

TEST_F(BuildCliTest, MissingProjectDirectory) {
  CliRun r = build("no_such_fixture");
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("project directory not found"));
}

TEST_F(BuildCliTest, MalformedToml) {
  CliRun r = build("malformed_toml");
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output,
              HasSubstr("tests/cli/fixtures/malformed_toml/workbench.toml:2:"));
  EXPECT_THAT(r.output, HasSubstr("malformed TOML"));
  EXPECT_FALSE(fs::exists(out_ / "kernels"));
}

TEST_F(BuildCliTest, UnknownKeySuggestsTheNearestOne) {
  CliRun r = build("unknown_key");
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output,
              HasSubstr("tests/cli/fixtures/unknown_key/scale/kernel.toml:4:1: "
                        "unknown key `include_dir` in [kernel]; did you mean "
                        "`include_dirs`?"));
  EXPECT_FALSE(fs::exists(out_ / "kernels"));
}

TEST_F(BuildCliTest, OneBadKernelTomlFailsThatKernelOnly) {
  REQUIRE_TOOL("glslc");
  // Two kernels: `scale` as in the good fixture, `broken` with a misspelt
  // key. The bad manifest fails the build (exit 1, its error at its line)
  // but not the good kernel, which builds and is published.
  fs::path project = tmp_ / "project";
  fs::create_directories(project);
  fs::copy(kFixtures / "unknown_key/scale", project / "broken");
  kb::test::replaceInFile(project / "broken/kernel.toml", "name = \"scale\"",
                          "name = \"broken\"");
  fs::copy(kFixtures / "good/scale", project / "scale");
  std::ofstream(project / "workbench.toml")
      << "[project]\nname = \"two\"\nkernels = [\"*\"]\n"
         "targets = [\"vulkan:1.2\"]\n";
  CliRun r = buildProject(project);
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output,
              HasSubstr("broken/kernel.toml:4:1: unknown key `include_dir` in "
                        "[kernel]; did you mean `include_dirs`? (this kernel "
                        "was not built; the others were)"));
  EXPECT_THAT(r.output, HasSubstr("FAILED: 1 kernel not loaded (kernel.toml, "
                                  "above); built 1 kernel"));
  json report = buildJson();
  ASSERT_EQ(report["jobs"].size(), 1u) << report.dump(2);
  EXPECT_EQ(report["jobs"][0]["kernel"], "scale");
  EXPECT_EQ(report["jobs"][0]["status"], "ok");
  ASSERT_EQ(report["broken_kernels"].size(), 1u) << report.dump(2);
  EXPECT_THAT(report["broken_kernels"][0]["manifest"].get<std::string>(),
              HasSubstr("broken/kernel.toml"));
  EXPECT_FALSE(published("scale").empty());
  // Nothing changed, yet the next build is no silent no-op: the manifest
  // still fails it.
  CliRun again = buildProject(project);
  EXPECT_EQ(again.exitCode, 1) << again.output;
  EXPECT_THAT(again.output, HasSubstr("unknown key `include_dir`"));
}

TEST_F(BuildCliTest, ABrokenKernelLeavesNoStaleOutputsAndNoHiddenError) {
  REQUIRE_TOOL("glslc");
  // Four standalone kernels build; then one kernel.toml breaks. Its
  // benchmark program from the first build is removed (bench reads every
  // standalone/ directory), the others stay.
  fs::path project = tmp_ / "project";
  fs::copy(kSourceDir / "tests/e2e/fixtures/sanitize", project,
           fs::copy_options::recursive);
  CliRun first = buildProject(project);
  ASSERT_EQ(first.exitCode, 0) << first.output;
  ASSERT_TRUE(fs::exists(out_ / "standalone/oob_read/program.kbm"));
  kb::test::replaceInFile(project / "oob_read/kernel.toml", "[kernel]\n",
                          "[kernel]\nsorces = []\n");
  CliRun broken = buildProject(project);
  EXPECT_EQ(broken.exitCode, 1) << broken.output;
  EXPECT_THAT(broken.output, HasSubstr("oob_read/kernel.toml:2:1: unknown key "
                                       "`sorces`"));
  EXPECT_FALSE(fs::exists(out_ / "standalone/oob_read")) << broken.output;
  EXPECT_TRUE(fs::exists(out_ / "standalone/in_bounds/program.kbm"));

  // When nothing can be planned, the error says which kernel.toml did not
  // load, not only that no kernel builds for the target.
  CliRun only = build("unknown_key", {"--target", "vulkan:1.2"});
  EXPECT_EQ(only.exitCode, 1) << only.output;
  EXPECT_THAT(only.output, HasSubstr("unknown key `include_dir`"));
}

TEST_F(BuildCliTest, AnUncheckedWorkgroupSizeIsSaidWithoutVerbose) {
  REQUIRE_TOOL("nvcc");
  REQUIRE_TOOL("ptxas");
  // Without __launch_bounds__ the PTX says nothing of the block size, so
  // the declared workgroup size cannot be checked: the build says so on
  // every build, not only under -v, and still succeeds.
  fs::path project = tmp_ / "project";
  fs::copy(kFixtures / "good", project, fs::copy_options::recursive);
  kb::test::replaceInFile(project / "scale/scale.cu", "__launch_bounds__(64)",
                          "");
  CliRun r = buildProject(project, {"--target", "cuda:sm_90"});
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("note: the workgroup size 64x1x1 cannot be "
                                  "checked against `scale`"));
  EXPECT_THAT(r.output, HasSubstr("add __launch_bounds__ to the kernel"));
  EXPECT_THAT(r.output, Not(HasSubstr("warning:")));
}

TEST_F(BuildCliTest, MissingSource) {
  CliRun r = build("missing_source");
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("missing_source/scale/kernel.toml:3:12: "
                                  "source file `scale_kernel.cu` not found"));
  EXPECT_FALSE(fs::exists(out_ / "kernels"));
}

TEST_F(BuildCliTest, CudaSyntaxErrorPointsIntoTheSource) {
  REQUIRE_TOOL("nvcc");
  CliRun r = build("cu_syntax");
  EXPECT_THAT(r.output, HasSubstr("FAILED: scale cuda:sm_90"));
  // nvcc reports the missing `;` of line 5 where it notices it: line 6.
  EXPECT_THAT(r.output, ::testing::ContainsRegex(
                            "cu_syntax/scale/scale.cu:6(:[0-9]+)?: error: "
                            "expected a \";\""));
  expectFailedJobNotPublishedNorCached("cu_syntax", "scale", "cuda:sm_90", r);
  json report = buildJson();
  const json &diagnostics = report["jobs"][0]["diagnostics"];
  ASSERT_FALSE(diagnostics.empty());
  EXPECT_THAT(diagnostics[0]["file"].get<std::string>(),
              ::testing::EndsWith("cu_syntax/scale/scale.cu"));
  EXPECT_EQ(diagnostics[0]["line"], 6);
  EXPECT_EQ(diagnostics[0]["severity"], "error");
  EXPECT_EQ(diagnostics[0]["tool"], "nvcc");
}

TEST_F(BuildCliTest, SyntaxErrorInIncludedHeaderPointsIntoTheHeader) {
  REQUIRE_TOOL("nvcc");
  CliRun r = build("header_syntax");
  EXPECT_THAT(r.output,
              ::testing::ContainsRegex(
                  "header_syntax/scale/include/twice.cuh:3(:[0-9]+)?: "
                  "error: identifier \"undeclared_factor\" is "
                  "undefined"));
  expectFailedJobNotPublishedNorCached("header_syntax", "scale", "cuda:sm_90",
                                       r);
}

TEST_F(BuildCliTest, MissingInclude) {
  REQUIRE_TOOL("nvcc");
  CliRun r = build("missing_include");
  EXPECT_THAT(r.output,
              ::testing::ContainsRegex(
                  "missing_include/scale/scale.cu:1:[0-9]+: "
                  "(fatal )?error: no_such_header.cuh: No such file"));
  expectFailedJobNotPublishedNorCached("missing_include", "scale", "cuda:sm_90",
                                       r);
}

TEST_F(BuildCliTest, SpillsAreErrorsWhenTheKernelAsks) {
  REQUIRE_TOOL("nvcc");
  REQUIRE_TOOL("ptxas");
  CliRun r = build("spills");
  EXPECT_THAT(r.output, HasSubstr("FAILED: spill cuda:sm_90"));
  EXPECT_THAT(r.output, HasSubstr("Registers are spilled to local memory in "
                                  "function 'spill'"));
  expectFailedJobNotPublishedNorCached("spills", "spill", "cuda:sm_90", r);
}

TEST_F(BuildCliTest, PtxParameterMismatch) {
  REQUIRE_TOOL("nvcc");
  CliRun r = build("ptx_param_mismatch");
  EXPECT_THAT(r.output, HasSubstr("FAILED: scale cuda:sm_90"));
  // The message names the parameter, what was declared and what was found.
  EXPECT_THAT(r.output, ::testing::ContainsRegex("`n`.*expected .*u32.*found "
                                                 ".*(u64|b64|8 bytes)"));
  expectFailedJobNotPublishedNorCached("ptx_param_mismatch", "scale",
                                       "cuda:sm_90", r);
}

TEST_F(BuildCliTest, SpirvBindingMismatch) {
  REQUIRE_TOOL("glslc");
  REQUIRE_TOOL("spirv-val");
  CliRun r = build("spirv_binding_mismatch");
  EXPECT_THAT(r.output, HasSubstr("FAILED: scale vulkan:1.2"));
  EXPECT_THAT(r.output, ::testing::ContainsRegex("binding 1 \\(`y`\\)"));
  expectFailedJobNotPublishedNorCached("spirv_binding_mismatch", "scale",
                                       "vulkan:1.2", r);
}

TEST_F(BuildCliTest, SpirvPushConstantMismatch) {
  REQUIRE_TOOL("glslc");
  REQUIRE_TOOL("spirv-val");
  CliRun r = build("spirv_push_constant_mismatch");
  EXPECT_THAT(r.output, HasSubstr("FAILED: scale vulkan:1.2"));
  EXPECT_THAT(r.output, ::testing::ContainsRegex("error: push constant"));
  expectFailedJobNotPublishedNorCached("spirv_push_constant_mismatch", "scale",
                                       "vulkan:1.2", r);
}

TEST_F(BuildCliTest, SpirvWorkgroupSizeMismatch) {
  REQUIRE_TOOL("glslc");
  REQUIRE_TOOL("spirv-val");
  CliRun r = build("spirv_workgroup_mismatch");
  EXPECT_THAT(r.output, HasSubstr("FAILED: scale vulkan:1.2"));
  EXPECT_THAT(r.output, ::testing::ContainsRegex("workgroup.size.*64.*128"));
  expectFailedJobNotPublishedNorCached("spirv_workgroup_mismatch", "scale",
                                       "vulkan:1.2", r);
}

TEST_F(BuildCliTest, UnknownSpecializationConstantListsTheDeclaredOnes) {
  REQUIRE_TOOL("glslc");
  CliRun r = build("spirv_specialization_unknown");
  EXPECT_THAT(r.output, HasSubstr("FAILED: tile vulkan:1.2"));
  EXPECT_THAT(r.output,
              HasSubstr("spirv_specialization_unknown/tile/kernel.toml: "
                        "[specialization] `TILES`: no specialization constant "
                        "has this name; the module declares: local_size_x "
                        "(SpecId 0, u32, default 1), TILE (SpecId 1, u32, "
                        "default 4)"));
  expectFailedJobNotPublishedNorCached("spirv_specialization_unknown", "tile",
                                       "vulkan:1.2", r);
}

TEST_F(BuildCliTest, MissingToolchainOverride) {
  CliRun r = build("missing_tool");
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output,
              HasSubstr("nvcc not found: the override [toolchains] nvcc"));
  EXPECT_THAT(r.output, HasSubstr("no/such/dir/nvcc"));
  EXPECT_THAT(r.output, HasSubstr("cannot build cuda:sm_90 on this machine"));
  EXPECT_FALSE(fs::exists(out_ / "kernels"));
  json report = buildJson();
  EXPECT_THAT(report["error"].get<std::string>(), HasSubstr("nvcc not found"));
  EXPECT_TRUE(report["jobs"].empty());
  expectValidBuildJson(report);
}

TEST_F(BuildCliTest, MissingToolchainOnPathNamesTargetsToDrop) {
  // glslc is looked up on PATH only.
  CliRun r = build("good", {}, {{"PATH", "/nonexistent"}});
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("glslc not found"));
  EXPECT_THAT(r.output, HasSubstr("vulkan:1.2"));
  EXPECT_FALSE(fs::exists(out_ / "kernels"));
}

/// A copy of the project |source| under |tmp| with |toolchains| appended to
/// its workbench.toml.
fs::path copyProject(const fs::path &tmp, const fs::path &source,
                     const std::string &toolchains) {
  fs::path dir = tmp / ("copy_" + source.filename().string());
  fs::copy(source, dir, fs::copy_options::recursive);
  std::ofstream(dir / "workbench.toml", std::ios::app) << toolchains;
  return dir;
}

// A target whose toolchain is absent is skipped with a
// warning naming what to install; the others build and the exit status is 0.
TEST_F(BuildCliTest, MissingCudaToolkitSkipsCudaTargets) {
  REQUIRE_TOOL("glslc");
  REQUIRE_TOOL("spirv-val");
  fs::path project = copyProject(tmp_, kFixtures / "good",
                                 "[toolchains]\nnvcc = \"/no/such/nvcc\"\n");
  CliRun r = buildProject(project);
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("warning: skipping target cuda:sm_90"));
  EXPECT_THAT(r.output, HasSubstr("nvcc not found"));
  EXPECT_THAT(r.output, HasSubstr("Fix the path, or remove the override"));
  EXPECT_THAT(r.output, HasSubstr("1 target skipped"));
  json report = buildJson();
  expectValidBuildJson(report);
  ASSERT_EQ(report["skipped_targets"].size(), 1u) << report.dump(2);
  EXPECT_EQ(report["skipped_targets"][0]["target"], "cuda:sm_90");
  EXPECT_THAT(report["skipped_targets"][0]["reason"].get<std::string>(),
              HasSubstr("nvcc not found"));
  ASSERT_EQ(report["jobs"].size(), 1u) << report.dump(2);
  EXPECT_EQ(report["jobs"][0]["target"], "vulkan:1.2");
  EXPECT_EQ(report["jobs"][0]["status"], "ok");
  EXPECT_TRUE(fs::is_regular_file(out_ / "kernels/scale/vulkan1.2.spv"));

  // --strict, or asking for the target, makes it an error again.
  r = buildProject(project, {"--strict"});
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("cannot build cuda:sm_90 on this machine"));
  EXPECT_THAT(r.output, HasSubstr("--strict"));
  r = buildProject(project, {"--target", "cuda:sm_90"});
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("cannot build cuda:sm_90 on this machine"));
  EXPECT_THAT(r.output, HasSubstr("--target cuda:sm_90"));
}

TEST_F(BuildCliTest, GlslcMissingFromPathSkipsVulkanTargets) {
  for (const char *tool : {"nvcc", "ptxas", "host-cxx", "glslc"})
    REQUIRE_TOOL(tool);
  // PATH without glslc: every other program of PATH, linked into one dir.
  fs::path bin = tmp_ / "bin_without_glslc";
  fs::create_directories(bin);
  std::string path = std::getenv("PATH") ? std::getenv("PATH") : "";
  std::istringstream dirs(path);
  std::string dir;
  std::error_code ec;
  while (std::getline(dirs, dir, ':'))
    for (auto &entry : fs::directory_iterator(dir, ec)) {
      std::string name = entry.path().filename().string();
      if (name != "glslc" && !fs::exists(bin / name))
        fs::create_symlink(entry.path(), bin / name, ec);
    }
  CliRun r = build("good", {}, {{"PATH", bin.string()}});
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("warning: skipping target vulkan:1.2"));
  EXPECT_THAT(r.output, HasSubstr("apt-get install glslc"));
  json report = buildJson();
  ASSERT_EQ(report["skipped_targets"].size(), 1u) << report.dump(2);
  EXPECT_EQ(report["skipped_targets"][0]["target"], "vulkan:1.2");
  ASSERT_EQ(report["jobs"].size(), 1u) << report.dump(2);
  EXPECT_EQ(report["jobs"][0]["target"], "cuda:sm_90");
  EXPECT_EQ(report["jobs"][0]["status"], "ok");
}

TEST_F(BuildCliTest, ProgramBuildsForTheTargetsThatWereBuilt) {
  REQUIRE_TOOL("glslc");
  REQUIRE_TOOL("spirv-val");
  // The quickstart, with a missing nvcc.
  fs::path project = tmp_ / "quickstart_without_nvcc";
  fs::create_directories(project);
  std::ofstream(project / "workbench.toml")
      << "[project]\nname = \"quickstart\"\nprogram = \""
      << (kSourceDir / "examples/quickstart/program.mlir").string()
      << "\"\nkernels = [\""
      << fs::relative(kSourceDir / "kernels", project).string()
      << "/*\"]\ntargets = [\"cuda:sm_90\", \"vulkan:1.2\"]\n"
      << "[toolchains]\nnvcc = \"/no/such/nvcc\"\n";
  CliRun r = buildProject(project);
  EXPECT_EQ(r.exitCode, 0) << r.output;
  json report = buildJson();
  EXPECT_EQ(report["skipped_targets"][0]["target"], "cuda:sm_90");
  ASSERT_TRUE(report["program"].is_object()) << report.dump(2);
  EXPECT_EQ(report["program"]["status"], "ok") << report.dump(2);
  EXPECT_EQ(report["program"]["targets"], json({"vulkan:1.2"}));
}

/// A Vulkan kernel `scale` whose source includes twice.glsl, in a project
/// whose `kernels` glob is `*`.
void writeIncludingProject(const fs::path &project) {
  fs::create_directories(project / "scale");
  std::ofstream(project / "workbench.toml")
      << "[project]\nname = \"stamped\"\nkernels = [\"*\"]\n"
         "targets = [\"vulkan:1.2\"]\n";
  std::ofstream(project / "scale/kernel.toml")
      << "[kernel]\nname = \"scale\"\nsources = [\"scale.comp\"]\n"
         "[abi]\nworkgroup_size = [64, 1, 1]\nbindings = [\n"
         "  { name = \"x\", type = \"f32\", access = \"readonly\" },\n"
         "  { name = \"y\", type = \"f32\", access = \"writeonly\" },\n]\n"
         "constants = [{ name = \"n\", type = \"u32\" }]\n";
  std::ofstream(project / "scale/twice.glsl")
      << "float twice(float v) { return 2.0 * v; }\n";
  std::ofstream(project / "scale/scale.comp")
      << "#version 450\n#extension GL_GOOGLE_include_directive : require\n"
         "#include \"twice.glsl\"\nlayout(local_size_x = 64) in;\n"
         "layout(set = 0, binding = 0) readonly buffer X { float x[]; };\n"
         "layout(set = 0, binding = 1) writeonly buffer Y { float y[]; };\n"
         "layout(push_constant) uniform Constants { uint n; };\n"
         "void main() {\n  uint i = gl_GlobalInvocationID.x;\n"
         "  if (i < n)\n    y[i] = twice(x[i]);\n}\n";
}

/// Inputs are stamped only once they are a second old (build_stamp.h).
void letInputsSettle() {
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
}

/// Every file under |dir| with its size and modification time.
std::map<std::string, std::pair<uintmax_t, fs::file_time_type>>
filesIn(const fs::path &dir) {
  std::map<std::string, std::pair<uintmax_t, fs::file_time_type>> files;
  for (const auto &entry : fs::recursive_directory_iterator(dir))
    if (entry.is_regular_file())
      files[entry.path().string()] = {entry.file_size(),
                                      entry.last_write_time()};
  return files;
}

TEST_F(BuildCliTest, ANoOpBuildWritesNothing) {
  REQUIRE_TOOL("glslc");
  REQUIRE_TOOL("spirv-val");
  // The quickstart for Vulkan, on copies of the kernels (one is edited).
  fs::path project = tmp_ / "quickstart";
  fs::create_directories(project);
  fs::copy(kSourceDir / "kernels", tmp_ / "kernels",
           fs::copy_options::recursive);
  std::ofstream(project / "workbench.toml")
      << "[project]\nname = \"quickstart\"\nprogram = \""
      << (kSourceDir / "examples/quickstart/program.mlir").string()
      << "\"\nkernels = [\"../kernels/*\"]\ntargets = [\"vulkan:1.2\"]\n";
  letInputsSettle();
  CliRun first = buildProject(project);
  ASSERT_EQ(first.exitCode, 0) << first.output;
  // The full check (-v always runs it) finds everything cached, and its
  // record says so.
  CliRun r = buildProject(project, {"-v"});
  ASSERT_EQ(r.exitCode, 0) << r.output;
  auto out = filesIn(out_), cache = filesIn(cache_);
  ASSERT_FALSE(out.empty());
  ASSERT_FALSE(cache.empty());
  // Neither the full check nor the one decided from stat() alone writes.
  for (std::vector<std::string> flags :
       {std::vector<std::string>{"-v"}, std::vector<std::string>{}}) {
    r = buildProject(project, flags);
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_THAT(r.output, HasSubstr("nothing changed: kept from the last "
                                    "build that did"));
    EXPECT_EQ(filesIn(out_), out) << "a no-op wrote into the output directory";
    EXPECT_EQ(filesIn(cache_), cache) << "a no-op wrote into the cache";
    EXPECT_EQ(buildJson()["program"]["cached"], true);
  }
  // Another -j is no change; an edit is, and build.json is rewritten.
  r = buildProject(project, {"-j", "1"});
  EXPECT_THAT(r.output, HasSubstr("nothing changed"));
  EXPECT_EQ(filesIn(out_), out);
  std::ofstream(tmp_ / "kernels/copy/copy.comp", std::ios::app)
      << "// edited\n";
  r = buildProject(project);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_THAT(r.output, Not(HasSubstr("nothing changed")));
  EXPECT_NE(filesIn(out_)[(out_ / "build.json").string()],
            out[(out_ / "build.json").string()]);
}

TEST_F(BuildCliTest, ANoOpIsDecidedFromStatAloneAndEveryChangeIsSeen) {
  REQUIRE_TOOL("glslc");
  REQUIRE_TOOL("spirv-val");
  const fs::path project = tmp_ / "stamped";
  writeIncludingProject(project);
  letInputsSettle();
  CliRun r = buildProject(project, {"--explain"});
  ASSERT_EQ(r.exitCode, 0) << r.output;
  // Stat alone decides: the cache is not even opened (it is gone, and stays
  // gone), and the line says what the last build said.
  fs::remove_all(cache_);
  r = buildProject(project, {"--explain"});
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("built 1 kernel \u00d7 1 target: 1 job, 1 "
                                  "cached"));
  EXPECT_THAT(r.output, HasSubstr("nothing changed"));
  EXPECT_THAT(r.output, Not(HasSubstr("explain:")));
  EXPECT_FALSE(fs::exists(cache_)) << "a no-op opened the cache";

  // A header the compile read is an input; an edit of it less than a second
  // old is not vouched for, so the next build checks in full again.
  std::ofstream(project / "scale/twice.glsl", std::ios::app) << "// edited\n";
  r = buildProject(project, {"--explain"});
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("twice.glsl changed"));
  EXPECT_THAT(r.output, HasSubstr("twice.glsl was modified less than a "
                                  "second before the build started"));
  EXPECT_EQ(buildJson()["jobs"][0]["cache"], "miss");
  letInputsSettle();
  r = buildProject(project, {"--explain"});
  EXPECT_THAT(r.output, HasSubstr("twice.glsl changed"));
  r = buildProject(project, {"--explain"});
  EXPECT_THAT(r.output, HasSubstr("nothing changed"));
  EXPECT_THAT(r.output, Not(HasSubstr("explain:")));

  // A new kernel directory is a change of the glob's directory listing.
  fs::copy(project / "scale", project / "scale2");
  kb::test::replaceInFile(project / "scale2/kernel.toml", "name = \"scale\"",
                          "name = \"scale2\"");
  letInputsSettle();
  r = buildProject(project, {"--explain"});
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("the listing of"));
  EXPECT_EQ(buildJson()["jobs"].size(), 2u);

  // A deleted output, other options, another environment, a damaged stamp:
  // each is seen, and the full build puts things right.
  fs::path spv;
  for (const auto &entry :
       fs::recursive_directory_iterator(out_ / "kernels" / "scale"))
    if (entry.path().extension() == ".spv")
      spv = entry.path();
  ASSERT_FALSE(spv.empty());
  fs::remove(spv);
  r = buildProject(project, {"--explain"});
  EXPECT_THAT(r.output, HasSubstr("is gone"));
  EXPECT_TRUE(fs::exists(spv));
  r = buildProject(project, {"--explain", "--strict"});
  EXPECT_THAT(r.output, HasSubstr("other options or another environment"));
  r = buildProject(project, {"--explain"},
                   {{"PATH", std::string(std::getenv("PATH")) + ":/nowhere"}});
  EXPECT_THAT(r.output, HasSubstr("other options or another environment"));
  r = buildProject(project, {"--explain"});
  EXPECT_THAT(r.output, HasSubstr("other options or another environment"));
  fs::resize_file(out_ / ".kernel-bench-stamp",
                  fs::file_size(out_ / ".kernel-bench-stamp") / 2);
  r = buildProject(project, {"--explain"});
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("is damaged"));
  r = buildProject(project, {"--explain"});
  EXPECT_THAT(r.output, HasSubstr("nothing changed"));
  EXPECT_THAT(r.output, Not(HasSubstr("explain:")));
}

TEST_F(BuildCliTest, ABuildWithWarningsIsAlwaysCheckedInFull) {
  REQUIRE_TOOL("glslc");
  REQUIRE_TOOL("spirv-val");
  REQUIRE_TOOL("nvcc");
  REQUIRE_TOOL("ptxas");
  CliRun r = build("warning", {"--explain"});
  ASSERT_EQ(r.exitCode, 0) << r.output;
  r = build("warning", {"--explain"});
  EXPECT_THAT(r.output, HasSubstr("warning:"))
      << "a no-op must print the warnings again";
  EXPECT_THAT(r.output, HasSubstr("has warnings, which every build prints"));
}

TEST_F(BuildCliTest, ARunawayToolMeetsItsMemoryLimitAndTheErrorSaysSo) {
  REQUIRE_TOOL("glslc");
  REQUIRE_TOOL("spirv-val");
  // `#include "/dev/zero"`: glslc reads without end (2 GB in 5 s unbounded).
  const fs::path project = tmp_ / "runaway";
  writeIncludingProject(project);
  kb::test::replaceInFile(project / "scale/scale.comp",
                          "#include \"twice.glsl\"", "#include \"/dev/zero\"");
  std::ofstream(project / "workbench.toml", std::ios::app)
      << "[build]\ntool_memory = \"256MiB\"\ntimeout = 120\n";
  CliRun r = buildProject(project);
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("FAILED: scale vulkan:1.2"));
  EXPECT_THAT(r.output, HasSubstr("glslc failed"));
  EXPECT_THAT(r.output, HasSubstr("it ran under a memory limit of 256 MiB"));
  EXPECT_THAT(r.output, Not(HasSubstr("timed out")));
  // The flag overrides the file; a size that is not one is refused.
  r = buildProject(project, {"--tool-memory", "lots"});
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("--tool-memory: expected a size in bytes"));
  kb::test::replaceInFile(project / "workbench.toml", "\"256MiB\"",
                          "\"256 MB\"");
  r = buildProject(project);
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("workbench.toml:"));
  EXPECT_THAT(r.output, HasSubstr("`tool_memory`: expected a size in bytes"));
}

TEST_F(BuildCliTest, HangingToolchainIsKilledAtTheTimeout) {
  REQUIRE_TOOL("ptxas");
  REQUIRE_TOOL("host-cxx");
  fs::path pidFile = tmp_ / "hang.pid";
  CliRun r = build("hanging_tool", {"--timeout", "1"},
                   {{"KB_TEST_HANG_PIDFILE", pidFile.string()}});
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_LT(r.seconds, 30) << "the timeout did not stop the build";
  EXPECT_THAT(r.output, HasSubstr("FAILED: scale cuda:sm_90"));
  EXPECT_THAT(r.output, HasSubstr("timed out"));
  EXPECT_THAT(published("scale"), ::testing::IsEmpty());

  // The tool's own child was killed with it (the whole process group).
  std::ifstream in(pidFile);
  pid_t child = 0;
  ASSERT_TRUE(in >> child) << "the hanging tool did not start";
  bool alive = ::kill(child, 0) == 0;
  if (alive) { // A zombie waiting for init to reap it is dead too.
    std::ifstream stat("/proc/" + std::to_string(child) + "/stat");
    std::string pid, comm, state;
    stat >> pid >> comm >> state;
    alive = state != "Z";
  }
  EXPECT_FALSE(alive) << "pid " << child << " survived the timeout";

  json report = buildJson();
  ASSERT_EQ(report["jobs"].size(), 1u);
  EXPECT_EQ(report["jobs"][0]["status"], "failed");
  bool timedOut = false;
  for (const json &c : report["jobs"][0]["commands"])
    timedOut = timedOut || c["timed_out"].get<bool>();
  EXPECT_TRUE(timedOut) << report.dump(2);

  // A killed run is never cached: the second build runs the tool again.
  r = build("hanging_tool", {"--timeout", "1"});
  EXPECT_EQ(r.exitCode, 1) << r.output;
  report = buildJson();
  ASSERT_EQ(report["jobs"].size(), 1u);
  EXPECT_EQ(report["jobs"][0]["cache"], "miss");
  EXPECT_THAT(published("scale"), ::testing::IsEmpty());
}

TEST_F(BuildCliTest, ProgramWithoutTheCompilerLibraryIsAClearError) {
  // A kernel-bench copied alone (a GPU runner): no libKBCompiler.so next to
  // it nor in ../lib/. The program step is refused before any job runs, and
  // nothing is written.
  fs::path bin = tmp_ / "bin";
  fs::create_directories(bin);
  fs::copy_file(kb::test::kernelBenchBinary(), bin / "kernel-bench");
  auto buildWith = [&](const fs::path &binary, std::vector<std::string> extra,
                       kb::test::EnvVars env = {}) {
    std::vector<std::string> args = {
        "build",       (kFixtures / "program").string(),
        "-o",          out_.string(),
        "--cache-dir", cache_.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return kb::test::runKernelBenchAt(binary, args, std::move(env));
  };
  CliRun r = buildWith(bin / "kernel-bench", {});
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("names a program"));
  EXPECT_THAT(r.output, HasSubstr("the compiler is not installed: no "
                                  "libKBCompiler.so in " +
                                  (bin / "libKBCompiler.so").string()));
  EXPECT_THAT(r.output, HasSubstr("KB_COMPILER_LIBRARY"));
  EXPECT_THAT(r.output, HasSubstr("--kernels-only"));
  EXPECT_FALSE(fs::exists(out_ / "kernels"));
  EXPECT_FALSE(fs::exists(out_ / "build.json"));

  // An override that names no file is the same refusal, naming it.
  r = buildWith(kb::test::kernelBenchBinary(), {},
                {{"KB_COMPILER_LIBRARY", (tmp_ / "nowhere.so").string()}});
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output,
              HasSubstr("KB_COMPILER_LIBRARY=" +
                        (tmp_ / "nowhere.so").string() + " names no file"));
  EXPECT_FALSE(fs::exists(out_ / "build.json"));

  // Everything else works without the compiler.
  r = kb::test::runKernelBenchAt(bin / "kernel-bench", {"--help"});
  EXPECT_EQ(r.exitCode, 0) << r.output;
  REQUIRE_TOOL("glslc");
  REQUIRE_TOOL("spirv-val");
  r = buildWith(bin / "kernel-bench", {"--kernels-only"});
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_TRUE(fs::exists(out_ / "kernels/scale/vulkan1.2.spv"));
}

TEST_F(BuildCliTest, UnloadableCompilerLibraryFailsTheProgramStepCleanly) {
  REQUIRE_TOOL("glslc");
  REQUIRE_TOOL("spirv-val");
  // A file that is not a shared library: found, so the kernels build, but
  // the program step fails with dlopen's reason, exit 1, and build.json
  // says so; no module is written.
  fs::path bogus = tmp_ / "libKBCompiler.so";
  std::ofstream(bogus) << "not an ELF file\n";
  CliRun r = build("program", {}, {{"KB_COMPILER_LIBRARY", bogus.string()}});
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output,
              HasSubstr("cannot load the compiler library " + bogus.string()));
  EXPECT_FALSE(fs::exists(out_ / "program.kbm"));
  json report = buildJson();
  EXPECT_EQ(report["program"]["status"], "failed") << report.dump(2);
  EXPECT_TRUE(fs::exists(out_ / "kernels/scale/vulkan1.2.spv"));
}

TEST_F(BuildCliTest, GoodProjectBuildsThenHitsTheCache) {
  REQUIRE_TOOL("nvcc");
  REQUIRE_TOOL("glslc");
  CliRun r = build("good", {"-j", "2"});
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_THAT(r.output,
              HasSubstr("built 1 kernel \u00d7 2 targets: 2 jobs, 0 cached"));
  for (const char *file : {"sm_90.ptx", "sm_90.cubin", "vulkan1.2.spv"})
    EXPECT_TRUE(fs::is_regular_file(out_ / "kernels/scale" / file)) << file;
  json first = buildJson();
  expectValidBuildJson(first);
  expectOutputsMatch(first, out_);
  EXPECT_EQ(first["totals"]["cache_hits"], 0);
  for (const json &job : first["jobs"]) {
    EXPECT_EQ(job["status"], "ok");
    EXPECT_EQ(job["cache"], "miss");
    EXPECT_FALSE(job["commands"].empty());
  }
  EXPECT_TRUE(first["tool_versions"].contains("nvcc"));
  EXPECT_TRUE(first["tool_versions"].contains("glslc"));

  // The same build again is a no-op decided from stat() alone, which keeps
  // build.json as the build that compiled wrote it; another output
  // directory sharing the cache records the hits.
  r = build("good", {"-j", "2"});
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("2 jobs, 2 cached"));
  EXPECT_THAT(r.output, HasSubstr("nothing changed"));
  EXPECT_EQ(buildJson(), first);
  out_ = tmp_ / "out-second";
  r = build("good", {"-j", "2"});
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("2 jobs, 2 cached"));
  json second = buildJson();
  expectValidBuildJson(second);
  expectOutputsMatch(second, out_);
  for (size_t i = 0; i < second["jobs"].size(); ++i) {
    EXPECT_EQ(second["jobs"][i]["cache"], "hit");
    EXPECT_EQ(second["jobs"][i]["outputs"], first["jobs"][i]["outputs"]);
  }

  // --no-cache rebuilds and says so.
  r = build("good", {"--no-cache", "--target", "vulkan:1.2"});
  ASSERT_EQ(r.exitCode, 0) << r.output;
  json third = buildJson();
  ASSERT_EQ(third["jobs"].size(), 1u);
  EXPECT_EQ(third["jobs"][0]["cache"], "disabled");
  EXPECT_FALSE(third["options"]["cache"]["enabled"]);
}

TEST_F(BuildCliTest, StrictTurnsWarningsIntoErrors) {
  REQUIRE_TOOL("nvcc");
  REQUIRE_TOOL("glslc");
  // Without --strict: built, warnings shown compiler-style and recorded.
  CliRun r = build("warning");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_THAT(r.output, ::testing::ContainsRegex(
                            "warning/scale/scale.cu:5(:[0-9]+)?: warning: "
                            "variable \"unused\" was declared but never "
                            "referenced"));
  EXPECT_THAT(r.output, ::testing::ContainsRegex(
                            "warning/scale/scale.comp:3(:[0-9]+)?: warning: "
                            "'#extension' : extension not supported"));
  json report = buildJson();
  for (const json &job : report["jobs"]) {
    ASSERT_FALSE(job["diagnostics"].empty()) << job.dump(2);
    EXPECT_EQ(job["diagnostics"][0]["severity"], "warning");
  }
  EXPECT_FALSE(published("scale").empty());

  // --strict: both jobs fail, and the outputs of the lenient build above are
  // removed rather than left looking current. The lenient cache entries are
  // not reused (the tools ran with -Werror) and nothing failed is stored.
  for (int pass = 0; pass < 2; ++pass) {
    r = build("warning", {"--strict"});
    EXPECT_EQ(r.exitCode, 1) << r.output;
    EXPECT_THAT(r.output, HasSubstr("FAILED: scale cuda:sm_90"));
    EXPECT_THAT(r.output, HasSubstr("FAILED: scale vulkan:1.2"));
    EXPECT_THAT(r.output, ::testing::ContainsRegex(
                              "scale.cu:5(:[0-9]+)?: error: variable "
                              "\"unused\""));
    report = buildJson();
    EXPECT_TRUE(report["options"]["strict"].get<bool>());
    EXPECT_EQ(report["totals"]["failed"], 2);
    for (const json &job : report["jobs"])
      EXPECT_EQ(job["cache"], "miss") << "pass " << pass;
    EXPECT_THAT(published("scale"), ::testing::IsEmpty());
  }
}

TEST_F(BuildCliTest, VerbosePrintsCommandLines) {
  REQUIRE_TOOL("glslc");
  CliRun r = build("good", {"--target", "vulkan:1.2", "-v"});
  ASSERT_EQ(r.exitCode, 0) << r.output;
  // The commands as the user can run them again: their source, its
  // directory, the output where it is published, no depfile flags; and why
  // what ran differs.
  const std::string dir = (kFixtures / "good/scale").string();
  EXPECT_THAT(r.output,
              HasSubstr("glslc -fshader-stage=compute "
                        "--target-env=vulkan1.2 -g -I" +
                        dir + " " + dir + "/scale.comp -o " +
                        (out_ / "kernels/scale/vulkan1.2.spv").string()));
  EXPECT_THAT(r.output, Not(HasSubstr("-MF")));
  EXPECT_THAT(r.output, HasSubstr("the tools ran on staged copies"));
  // build.json keeps exactly what ran (staged names) beside it.
  const json c = buildJson()["jobs"][0]["commands"][0];
  EXPECT_THAT(c["command_line"].get<std::string>(),
              ::testing::ContainsRegex("-Isrc .*kernel.comp"));
  EXPECT_THAT(c["rerun"].get<std::string>(), HasSubstr(dir + "/scale.comp"));
}

TEST_F(BuildCliTest, QuickstartBuildsBothTargetsThenAllCached) {
  REQUIRE_TOOL("nvcc");
  REQUIRE_TOOL("glslc");
  auto args = std::vector<std::string>{
      "build", (kSourceDir / "examples/quickstart").string(), "-o",
      out_.string(), "--cache-dir", cache_.string(), "-j", "2",
      // The kernels only: tests/e2e builds the program.
      "--kernels-only"};
  CliRun r = run(args);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  json first = buildJson();
  expectValidBuildJson(first);
  expectOutputsMatch(first, out_);
  EXPECT_EQ(first["totals"]["targets"], 2);
  EXPECT_EQ(first["totals"]["failed"], 0);
  EXPECT_GT(first["totals"]["jobs"].get<int>(), 2);

  // Into another output directory (the same one would be a no-op that
  // keeps build.json as it is), sharing the cache.
  const fs::path firstOut = out_;
  out_ = tmp_ / "out-second";
  std::replace(args.begin(), args.end(), firstOut.string(), out_.string());
  r = run(args);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  json second = buildJson();
  EXPECT_EQ(second["totals"]["cache_hits"], second["totals"]["jobs"]);
  std::string jobs = std::to_string(second["totals"]["jobs"].get<int>());
  EXPECT_THAT(r.output, HasSubstr("\u00d7 2 targets: " + jobs + " jobs, " +
                                  jobs + " cached"));
}

} // namespace
