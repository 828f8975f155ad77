//===- tests/e2e/tune_test.cpp - `kernel-bench tune` end to end -----------===//
//
// The bundled tiled matmul tuned on lavapipe (a copy, so tuned.toml is
// written beside the copy): tune.json, tune.html and tuned.toml are written
// (tune.html rendered by headless Chromium where it is installed), a repeated
// tune comes from the cache, and a following `build` + `bench` of a project
// substituting it uses the tuned values, a module carrying the winners of
// several device models runs the one for its device. Then the bad inputs: a
// constraint nothing satisfies, an unused name, a space over the limit, a
// configuration that does not compile, one that is INCORRECT and one the device
// refuses (ERROR): each recorded, never chosen, the search going on.
//
//===----------------------------------------------------------------------===//
#include "tests/support/cli_test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/process.h"

#include <algorithm>
#include <atomic>
#include <csignal>
#include <fstream>
#include <regex>
#include <thread>

namespace fs = std::filesystem;
using nlohmann::json;
using ::testing::HasSubstr;

namespace {

const fs::path kSourceDir = KB_SOURCE_DIR;

using kb::test::CliRun;
using kb::test::readFile;
using kb::test::replaceInFile;

class TuneTest : public kb::test::KernelBenchTest {
protected:
  TuneTest() : KernelBenchTest("kb_tune_test") {}

  void SetUp() override {
    KernelBenchTest::SetUp();
    kernel_ = tmp_ / "matmul_tiled";
    fs::copy(kSourceDir / "kernels/matmul_tiled", kernel_,
             fs::copy_options::recursive);
  }

  /// Replaces the [tune] parameters of the copy with |parameters|; unless
  /// they tune them, the launch shape's TILE and WPT become fixed defines
  /// (16 and 1).
  void setSpace(const std::string &parameters, bool tunesTheLaunch = false) {
    if (!tunesTheLaunch)
      replaceInFile(kernel_ / "kernel.toml", "substitutes = \"matmul\"\n",
                    "substitutes = \"matmul\"\ndefines = { TILE = 16, WPT = "
                    "1 }\n");
    std::string toml = readFile(kernel_ / "kernel.toml");
    size_t begin = toml.find("TILE = { values");
    size_t end = toml.find("\n", toml.find("constraints = [", begin));
    ASSERT_NE(begin, std::string::npos) << toml;
    ASSERT_NE(end, std::string::npos) << toml;
    std::ofstream(kernel_ / "kernel.toml")
        << toml.substr(0, begin) + parameters + toml.substr(end + 1);
  }

  /// A project substituting the copy into the bundled quickstart program,
  /// for vulkan:1.2.
  fs::path quickstartProject() {
    fs::path project = tmp_ / "project";
    fs::create_directories(project);
    std::ofstream(project / "workbench.toml")
        << "[project]\nname = \"tuned\"\nprogram = \""
        << (kSourceDir / "examples/quickstart/program.mlir").string()
        << "\"\nkernels = [\"../matmul_tiled\"]\ntargets = "
           "[\"vulkan:1.2\"]\n";
    return project;
  }

  /// `build` of |project| into |built| through the test's cache.
  CliRun buildInto(const fs::path &project, const fs::path &built) {
    return run({"build", project.string(), "-o", built.string(), "--cache-dir",
                cache_.string(), "-j", "2"});
  }

  /// The measurements in the tune cache (<cache>/tune/*.jsonl lines).
  size_t tuneCacheLines() {
    size_t lines = 0;
    std::error_code ec;
    for (const auto &e : fs::directory_iterator(cache_ / "tune", ec)) {
      std::ifstream in(e.path());
      for (std::string line; std::getline(in, line);)
        lines += !line.empty();
    }
    return lines;
  }

  CliRun tune(std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"tune",        kernel_.string(),
                                     "-o",          out_.string(),
                                     "--cache-dir", cache_.string(),
                                     "--device",    "vulkan",
                                     "-j",          "2"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run(args);
  }

  /// tune.html's charts: one per name of |parameters| and a heatmap of the
  /// first two (alphabetical, as the page orders them) of |cells| cells.
  std::string checkTuneHtml(const std::vector<std::string> &parameters,
                            size_t cells) {
    std::string html = readFile(out_ / "tune.html");
    EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u) << html.substr(0, 200);
    for (const std::string &p : parameters)
      EXPECT_THAT(
          html, HasSubstr("class=\"tune-chart\" data-parameter=\"" + p + "\""));
    EXPECT_THAT(html, HasSubstr("class=\"tune-heatmap\""));
    EXPECT_EQ(count(html, "<rect class=\"cell "), cells);
    EXPECT_THAT(html, HasSubstr("Heatmap: " + parameters[0] + " &times; " +
                                parameters[1]));
    return html;
  }

  static size_t count(const std::string &text, const std::string &needle) {
    size_t n = 0;
    for (size_t at = text.find(needle); at != std::string::npos;
         at = text.find(needle, at + needle.size()))
      ++n;
    return n;
  }

  fs::path kernel_;
};

TEST_F(TuneTest, TunesTheTiledMatmulThenBuildAndBenchUseTheWinner) {
  REQUIRE_TOOL("glslc");
  REQUIRE_TOOL("spirv-val");
  CliRun r = tune({"--strategy", "halving", "--budget", "4"});
  SKIP_WITHOUT_VULKAN(r);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("halving search"));
  EXPECT_THAT(r.output, HasSubstr("rank configuration"));
  json report = kb::test::readJsonFile(out_ / "tune.json");
  ASSERT_EQ(report.at("configurations").size(), 4u) << report.dump(2);
  EXPECT_EQ(report.at("strategy"), "halving");
  const json &best = report.at("best");
  ASSERT_EQ(best.at("status"), "ok") << report.dump(2);
  EXPECT_EQ(best.at("level"), 2); // the winner was measured fully
  // tuned.toml holds the best values for this device model.
  std::string tuned = readFile(kernel_ / "tuned.toml");
  EXPECT_THAT(tuned, HasSubstr("backend = \"vulkan\""));
  EXPECT_THAT(tuned,
              HasSubstr("device = \"" +
                        report.at("device").at("name").get<std::string>() +
                        "\""));
  int tileK = best.at("values").at("TILE_K");
  int tile = best.at("values").at("TILE");
  int wpt = best.at("values").at("WPT");
  EXPECT_THAT(tuned, HasSubstr("TILE_K = " + std::to_string(tileK)));
  EXPECT_THAT(tuned, HasSubstr("WPT = " + std::to_string(wpt)));
  // The page: PAD 0..1 x TILE 8..32; the best in its header.
  std::string html =
      checkTuneHtml({"PAD", "TILE", "TILE_K", "UNROLL", "WPT"}, 2 * 3);
  EXPECT_THAT(html, HasSubstr("Best: <b>" +
                              best.at("configuration").get<std::string>()));
  EXPECT_THAT(r.output, HasSubstr("tune.html"));

  // Again: every result comes from the cache; counted, not timed: nothing
  // is built or benched (tune.log gains no timeline line).
  size_t logBefore = readFile(out_ / "tune.log").size();
  r = tune({"--strategy", "halving", "--budget", "4"});
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("0 measurements made"));
  EXPECT_THAT(readFile(out_ / "tune.log").substr(logBefore),
              ::testing::Not(HasSubstr("timeline:")));

  // A project substituting the tuned kernel into the bundled program builds
  // it with the tuned values — the tile and rows per thread change the
  // dispatch's workgroup size and count — and its benchmark, checked
  // against the compiler's kernel, passes.
  fs::path project = quickstartProject();
  fs::path built = tmp_ / "built";
  r = buildInto(project, built);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  std::string buildJson = readFile(built / "build.json");
  EXPECT_THAT(buildJson, HasSubstr("-DTILE_K=" + std::to_string(tileK)));
  EXPECT_THAT(buildJson, HasSubstr("-DTILE=" + std::to_string(tile)));
  EXPECT_THAT(buildJson, HasSubstr("-DWPT=" + std::to_string(wpt)));
  r = run({"bench", built.string(), "--device", "vulkan", "--filter", "matmul",
           "--quick", "--hot"});
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("matmul"));
  // The winner is a variant for this device model, the one that ran.
  bool tunedJob = false;
  json builtReport = kb::test::readJsonFile(built / "build.json");
  for (const json &job : builtReport.at("jobs"))
    tunedJob |= job.at("tuned_for") == report.at("device").at("name");
  EXPECT_TRUE(tunedJob) << buildJson;
  EXPECT_THAT(r.output, ::testing::Not(HasSubstr("default parameters")));
}

TEST_F(TuneTest, BuildGivesEachSourceTheTunedValuesOfItsBackend) {
  for (const char *tool : {"nvcc", "ptxas", "glslc", "spirv-val"})
    REQUIRE_TOOL(tool);
  // The extreme CUDA configuration compiles without spills too; each
  // backend's tile and rows per thread give its own workgroup size.
  std::ofstream(kernel_ / "tuned.toml")
      << "[[best]]\nbackend = \"cuda\"\n"
         "values = { TILE = 32, WPT = 4, TILE_K = 64, UNROLL = 32, PAD = 1 }\n"
         "\n[[best]]\nbackend = \"vulkan\"\n"
         "values = { TILE = 8, WPT = 2, TILE_K = 8, UNROLL = 2, PAD = 0 }\n";
  fs::path project = tmp_ / "project";
  fs::create_directories(project);
  std::ofstream(project / "workbench.toml")
      << "[project]\nname = \"p\"\nkernels = [\"../matmul_tiled\"]\n"
         "targets = [\"cuda:sm_90\", \"vulkan:1.2\"]\n";
  CliRun r = buildProject(project, {"--kernels-only", "-j", "2", "--strict"});
  ASSERT_EQ(r.exitCode, 0) << r.output;
  json report = buildJson();
  ASSERT_EQ(report.at("jobs").size(), 2u);
  for (const json &job : report.at("jobs")) {
    std::string commands = job.at("commands").dump();
    bool cuda = job.at("target") == "cuda:sm_90";
    EXPECT_THAT(commands, HasSubstr(cuda ? "TILE_K=64" : "TILE_K=8"));
    EXPECT_THAT(commands, HasSubstr(cuda ? "UNROLL=32" : "UNROLL=2"));
    EXPECT_THAT(commands, HasSubstr(cuda ? "TILE=32" : "TILE=8"));
    EXPECT_THAT(commands, HasSubstr(cuda ? "WPT=4" : "WPT=2"));
    if (cuda)
      EXPECT_GT(job.at("resources").at("registers").get<int>(), 0);
  }
  // A name [tune] does not declare is refused, naming it.
  std::ofstream(kernel_ / "tuned.toml")
      << "[[best]]\nbackend = \"cuda\"\nvalues = { TILE_M = 8 }\n";
  r = buildProject(project, {"--kernels-only"});
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output,
              HasSubstr("`TILE_M` is not tuned by the kernel's [tune]"));
}

TEST_F(TuneTest, TheTunedLaunchShapeIsTheProgramDispatchsLaunchShape) {
  REQUIRE_TOOL("glslc");
  REQUIRE_TOOL("spirv-val");
  // 8x8 tiles with 2 rows per thread: 8x4 invocations and, for the 512x512
  // matmul, 64x64 workgroups where the compiler's kernel runs 32x32 of
  // 16x16. `run` compares the two programs' outputs element by element.
  std::ofstream(kernel_ / "tuned.toml")
      << "[[best]]\nbackend = \"vulkan\"\n"
         "values = { TILE = 8, WPT = 2, TILE_K = 8, UNROLL = 4, PAD = 1 }\n";
  fs::path project = quickstartProject();
  fs::path built = tmp_ / "built";
  auto buildAndRun = [&] {
    CliRun b = buildInto(project, built);
    EXPECT_EQ(b.exitCode, 0) << b.output;
    return run({"run", built.string(), "--device", "vulkan"});
  };
  CliRun r = buildAndRun();
  SKIP_WITHOUT_VULKAN(r);
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_THAT(readFile(built / "build.json"), HasSubstr("-DTILE=8"));

  // A count rule that disagrees with the source (each workgroup said to
  // cover 16 columns, computing 8) leaves half of C unwritten: caught.
  replaceInFile(kernel_ / "kernel.toml",
                "workload_per_workgroup = [\"TILE\", \"TILE\"]",
                "workload_per_workgroup = [\"TILE * 2\", \"TILE\"]");
  r = buildAndRun();
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("MISMATCH"));

  // Without a count rule the dispatch keeps its count and its workgroup
  // size: the compiler refuses the 8x4 object, and the build says why.
  replaceInFile(kernel_ / "kernel.toml",
                "workload_per_workgroup = [\"TILE * 2\", \"TILE\"]\n", "");
  r = buildInto(project, built);
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("workgroup size: expected 16x16x1, found "
                                  "8x4x1"));
  EXPECT_THAT(r.output, HasSubstr("declares no `[abi] "
                                  "workload_per_workgroup`"));
  EXPECT_THAT(r.output, HasSubstr("applies to standalone kernels only"));

  // A count rule must cover each dimension of the dispatch's workload (a
  // missing one would be 1: 512 workgroups of 8 rows).
  std::string toml = readFile(kernel_ / "kernel.toml");
  toml = toml.substr(0, toml.find("# What `tune` measures"));
  toml.replace(toml.find("dynamic_shared_memory"), 0,
               "workload_per_workgroup = [\"TILE\"]\n");
  std::ofstream(kernel_ / "kernel.toml") << toml;
  r = buildInto(project, built);
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("has the workload 512x512x1, but the "
                                  "workload_per_workgroup of variant "
                                  "@vulkan_1_2 of kb.executable @matmul has "
                                  "1 entry"));
}

TEST_F(TuneTest, AModuleCarriesTheWinnerOfEachDeviceModel) {
  REQUIRE_TOOL("glslc");
  REQUIRE_TOOL("spirv-val");
  // Tuned for another model only: this device runs the [tune] defaults,
  // and says so.
  const std::string other = "[[best]]\ndevice = \"Other GPU\"\n"
                            "backend = \"vulkan\"\nvalues = { TILE = 32, "
                            "WPT = 4, TILE_K = 8, UNROLL = 4, PAD = 1 }\n";
  std::ofstream(kernel_ / "tuned.toml") << other;
  fs::path project = quickstartProject();
  fs::path built = tmp_ / "built";
  auto build = [&] { return buildInto(project, built); };
  CliRun r = build();
  ASSERT_EQ(r.exitCode, 0) << r.output;
  json jobs = kb::test::readJsonFile(built / "build.json").at("jobs");
  ASSERT_EQ(jobs.size(), 2u) << jobs.dump(2);
  EXPECT_EQ(jobs[0].at("tuned_for"), nullptr);
  EXPECT_EQ(jobs[1].at("tuned_for"), "Other GPU");
  EXPECT_EQ(jobs[1].at("kernel"), "matmul_tiled@other-gpu");
  EXPECT_THAT(jobs[1].at("commands").dump(), HasSubstr("TILE=32"));
  // The tuned variant is a substitution of its own, named with its model,
  // and counted apart from the substitutions for any device.
  json substitutions = kb::test::readJsonFile(built / "build.json")
                           .at("program")
                           .at("substitutions");
  ASSERT_EQ(substitutions.size(), 2u) << substitutions.dump(2);
  EXPECT_EQ(substitutions[0].at("device"), nullptr);
  EXPECT_EQ(substitutions[1].at("device"), "Other GPU");
  EXPECT_THAT(r.output, HasSubstr("1 substitution (+1 variant tuned for a "
                                  "device)"));
  r = run({"run", built.string(), "--device", "vulkan"});
  SKIP_WITHOUT_VULKAN(r);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  std::smatch model;
  std::string output = r.output;
  ASSERT_TRUE(std::regex_search(
      output, model,
      std::regex("default parameters: none tuned for (.*) \\(tuned for: "
                 "Other GPU\\)")))
      << r.output;
  const std::string here = model[1];

  // Tuned for this model too: its winner runs here (an 8x4 workgroup with
  // its own count), the other model's stays in the module for it.
  std::ofstream(kernel_ / "tuned.toml")
      << other << "\n[[best]]\ndevice = \"" << here
      << "\"\nbackend = \"vulkan\"\nvalues = { TILE = 8, WPT = 2, "
         "TILE_K = 8, UNROLL = 4, PAD = 1 }\n";
  r = build();
  ASSERT_EQ(r.exitCode, 0) << r.output;
  r = run({"run", built.string(), "--device", "vulkan"});
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("`matmul`: candidate spirv vulkan1.2 "
                                  "(tuned for " +
                                  here + ")"));
  r = run({"bench", built.string(), "--device", "vulkan", "--filter", "matmul",
           "--quick", "--hot"});
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_THAT(r.output, ::testing::Not(HasSubstr("default parameters")));

  // A model dropped from tuned.toml leaves no outputs behind.
  ASSERT_TRUE(fs::exists(built / "kernels/matmul_tiled@other-gpu"));
  std::ofstream(kernel_ / "tuned.toml")
      << "[[best]]\ndevice = \"" << here
      << "\"\nbackend = \"vulkan\"\nvalues = { TILE = 8, WPT = 2, "
         "TILE_K = 8, UNROLL = 4, PAD = 1 }\n";
  r = build();
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_FALSE(fs::exists(built / "kernels/matmul_tiled@other-gpu"));

  // Two entries for one model and backend: which would it be? Refused.
  std::ofstream(kernel_ / "tuned.toml") << other << "\n" << other;
  r = build();
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("a second entry for vulkan on `Other GPU`"));
}

/// Two configurations of the tiled matmul at M = 64 and 128, the sizes
/// given by |constants| (the [bench] line(s) that replace the kernel's own).
class TwoSizeTuneTest : public TuneTest {
protected:
  CliRun tuneTwoSizes(const std::string &constants) {
    setSpace("TILE_K = [16, 32]\nUNROLL = [4]\nPAD = [0]\n");
    replaceInFile(kernel_ / "kernel.toml",
                  "constants = { M = 128, N = 128, K = 128 }", constants);
    return tune();
  }

  /// tune.json, after checking that each configuration was measured once
  /// per size and the best one's medians summed over them.
  json measuredAtTwoSizes(const CliRun &r) {
    EXPECT_THAT(r.output,
                HasSubstr("median: the sum over the 2 problem sizes"));
    json report = kb::test::readJsonFile(out_ / "tune.json");
    EXPECT_EQ(report.at("configurations").size(), 2u);
    const json &best = report.at("best");
    EXPECT_EQ(best.at("sizes").size(), 2u) << best.dump(2);
    if (best.at("sizes").size() != 2u)
      return report;
    EXPECT_EQ(best.at("sizes")[0].at("problem"), "M=64");
    EXPECT_EQ(best.at("sizes")[1].at("problem"), "M=128");
    return report;
  }
};

TEST_F(TwoSizeTuneTest, BenchConstantListsSweepTheProblemSize) {
  REQUIRE_TOOL("glslc");
  REQUIRE_TOOL("spirv-val");
  CliRun r = tuneTwoSizes("constants = { M = [64, 128], N = 64, K = 64 }");
  SKIP_WITHOUT_VULKAN(r);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  json report = measuredAtTwoSizes(r);
  const json &best = report.at("best");
  double sum = 0;
  for (const json &size : best.at("sizes"))
    sum += size.at("median_ns").get<double>();
  EXPECT_DOUBLE_EQ(sum, best.at("median_ns").get<double>());
  // The winner at each size too, which may differ from the overall one.
  const json &perSize = report.at("best_per_size");
  ASSERT_EQ(perSize.size(), 2u) << report.dump(2);
  for (size_t i = 0; i < 2; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(perSize[i].at("problem"), i == 0 ? "M=64" : "M=128");
    double fastest = 1e300;
    for (const json &c : report.at("configurations"))
      fastest =
          std::min(fastest, c.at("sizes")[i].at("median_ns").get<double>());
    EXPECT_DOUBLE_EQ(perSize[i].at("median_ns").get<double>(), fastest);
    EXPECT_THAT(r.output,
                HasSubstr("best at " +
                          perSize[i].at("problem").get<std::string>() + ": " +
                          perSize[i].at("configuration").get<std::string>()));
  }
}

// A [bench] sweep's points are sizes too: each configuration is measured
// once per point, and the build of its copies does not sweep them again.
TEST_F(TwoSizeTuneTest, ABenchSweepIsAProblemSizeAxisToo) {
  REQUIRE_TOOL("glslc");
  REQUIRE_TOOL("spirv-val");
  CliRun r =
      tuneTwoSizes("constants = { N = 64, K = 64 }\nsweep = { M = [64, 128] }");
  SKIP_WITHOUT_VULKAN(r);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  measuredAtTwoSizes(r);
}

TEST_F(TuneTest, AConstraintNothingSatisfiesIsNamed) {
  setSpace("TILE_K = [16, 32]\nUNROLL = [4]\nconstraints = [\"UNROLL <= "
           "TILE_K\", \"TILE_K > 64\"]\n");
  CliRun r = tune();
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("constraint `TILE_K > 64` holds for none of "
                                  "the 2 configurations"));
  EXPECT_THAT(r.output, HasSubstr("kernel.toml:"));
  EXPECT_FALSE(fs::exists(kernel_ / "tuned.toml"));
}

TEST_F(TuneTest, AConfigurationThatCannotBeLaunchedIsNoCandidate) {
  REQUIRE_TOOL("glslc");
  REQUIRE_TOOL("spirv-val");
  // TILE 128: 128 x 128 invocations, past any device's 1024: left out
  // before the search, as a constraint would leave it out.
  setSpace("TILE = { values = [16, 128], default = 16 }\n"
           "WPT = { values = [1], default = 1 }\n"
           "TILE_K = [16]\nUNROLL = [4]\nPAD = [0]\n",
           /*tunesTheLaunch=*/true);
  CliRun r = tune();
  SKIP_WITHOUT_VULKAN(r);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_THAT(r.output,
              HasSubstr("1 configurations (2 in the [tune] space, "
                        "before the constraints and the launch-shape check)"));
  EXPECT_THAT(r.output, ::testing::Not(HasSubstr("TILE=128")));
  EXPECT_THAT(readFile(kernel_ / "tuned.toml"), HasSubstr("TILE = 16"));

  // A default that cannot be launched fails the load, naming the values.
  replaceInFile(kernel_ / "kernel.toml",
                "TILE = { values = [16, 128], default = 16 }",
                "TILE = { values = [16, 128], default = 128 }");
  r = tune();
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("(16384 invocations)"));
  EXPECT_THAT(r.output, HasSubstr("with TILE=128, WPT=1"));
}

TEST_F(TuneTest, AnUnusedNameWarnsAndALargeSpaceNeedsABudget) {
  replaceInFile(kernel_ / "kernel.toml", "PAD = [0, 1]",
                "PAD = [0, 1]\nTILE_Q = { range = [1, 10] }");
  CliRun r = tune({"--max-configurations", "100"});
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("warning:"));
  EXPECT_THAT(r.output, HasSubstr("`TILE_Q` is not used by any source"));
  // 3 TILE x 3 WPT x 6 TILE_K x 6 UNROLL x 2 PAD x 10 TILE_Q.
  // 4680 after UNROLL <= TILE_K.
  EXPECT_THAT(r.output, HasSubstr("has 6480 configurations (4680 satisfy the "
                                  "constraints), more than "
                                  "--max-configurations 100"));
  EXPECT_THAT(r.output, HasSubstr("--budget"));
  // A time is a budget for the sampling strategies, not for exhaustive.
  r = tune({"--strategy", "exhaustive", "--budget", "5m"});
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("a time budget is for --strategy random or "
                                  "halving"));
  for (const char *bad : {"infs", "nans", "0s", "-1m", "1e400s", "3.5", "5d"}) {
    r = tune({"--strategy", "halving", "--budget", bad});
    EXPECT_EQ(r.exitCode, 2) << bad << ": " << r.output;
    EXPECT_THAT(r.output, HasSubstr("expected a count of configurations"));
  }
}

TEST_F(TuneTest, FailedAndIncorrectConfigurationsAreRecordedNeverChosen) {
  REQUIRE_TOOL("glslc");
  REQUIRE_TOOL("spirv-val");
  setSpace("TILE_K = [16, 1024]\nUNROLL = [4]\nPAD = [0, 1, 2]\n"
           "constraints = [\"TILE_K == 16 || PAD == 0\"]\n");
  // PAD 1 does not compile; PAD 2 skips the work: fast and wrong; TILE_K
  // 1024 needs 128 KiB of shared memory, more than any device gives: the
  // device refuses it at run time (an ERROR row of bench).
  replaceInFile(kernel_ / "matmul_tiled.comp", "void main() {",
                "#if PAD == 1\n#error PAD 1 is broken on purpose\n#endif\n"
                "void main() {\n#if PAD == 2\n  c[gl_GlobalInvocationID.x] = "
                "1.0;\n  return;\n#endif");
  // The limit counts what is searched (4), not the raw space (6).
  CliRun r = tune({"--watchdog", "60", "--max-configurations", "5"});
  SKIP_WITHOUT_VULKAN(r);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("PAD=1 TILE_K=16 UNROLL=4: compile-error"));
  // The status: the build's end, then a line per configuration.
  EXPECT_THAT(r.output, HasSubstr("tune: compiling "));
  EXPECT_THAT(r.output, HasSubstr("tune: measured PAD=0 TILE_K=16 UNROLL=4: "));
  EXPECT_THAT(r.output, HasSubstr("PAD=2 TILE_K=16 UNROLL=4: incorrect"));
  EXPECT_THAT(r.output, HasSubstr("PAD=0 TILE_K=1024 UNROLL=4: error"));
  EXPECT_THAT(r.output,
              HasSubstr("4 configurations (6 in the [tune] space, "
                        "before the constraints and the launch-shape check)"));
  json report = kb::test::readJsonFile(out_ / "tune.json");
  EXPECT_EQ(report.at("best").at("configuration"), "PAD=0 TILE_K=16 UNROLL=4");
  bool sawMessage = false;
  for (const json &c : report.at("configurations"))
    if (c.at("status") == "compile-error")
      sawMessage = c.at("message").get<std::string>().find("PAD 1 is broken") !=
                   std::string::npos;
  EXPECT_TRUE(sawMessage) << report.dump(2);
  EXPECT_THAT(readFile(kernel_ / "tuned.toml"), HasSubstr("PAD = 0"));

  // tune.html: PAD 0..2 x TILE_K 16, 1024; each failure marked in its cell
  // and listed with its reason; the two the constraint left out marked.
  std::string html = checkTuneHtml({"PAD", "TILE_K", "UNROLL"}, 3 * 2);
  EXPECT_EQ(count(html, "<rect class=\"cell ok\""), 1u);
  EXPECT_EQ(count(html, "<rect class=\"cell failed\""), 3u);
  EXPECT_EQ(count(html, "<rect class=\"cell unmeasured\""), 2u);
  for (const char *cell : {"PAD=1 TILE_K=16: every configuration compile-error",
                           "PAD=2 TILE_K=16: every configuration incorrect",
                           "PAD=0 TILE_K=1024: every configuration error",
                           "PAD=1 TILE_K=1024: not measured"})
    EXPECT_THAT(html, HasSubstr("<title>" + std::string(cell))) << cell;
  EXPECT_THAT(html, HasSubstr("PAD 1 is broken on purpose"));

  // Headless Chromium renders it (no console error, not blank) and its DOM
  // has the charts.
  kb::test::CliRun check = kb::test::checkHtmlRender(
      out_ / "tune.html", tmp_ / "chromium",
      {"--dom-contains", "class=\"tune-heatmap\"", "--dom-contains",
       "data-parameter=\"UNROLL\"", "--dom-contains",
       "<rect class=\"cell failed\"", "--dom-contains",
       "Failed configurations"});
  if (check.exitCode == 77)
    GTEST_SKIP() << check.output;
  EXPECT_EQ(check.exitCode, 0) << check.output;
}

/// One "timeline:" line of tune.log: a build or a bench and when it ran.
struct Step {
  std::string kind; // "build" or "bench"
  long long fromUs = 0, toUs = 0;
};

/// The builds and the benches |log| records, each sorted by start.
std::pair<std::vector<Step>, std::vector<Step>>
timeline(const std::string &log) {
  std::vector<Step> builds, benches;
  std::regex line("timeline: (build|bench) \\S+ from (\\d+) us to (\\d+) us");
  for (std::sregex_iterator it(log.begin(), log.end(), line), end; it != end;
       ++it) {
    Step s{(*it)[1], std::stoll((*it)[2]), std::stoll((*it)[3])};
    (s.kind == "build" ? builds : benches).push_back(s);
  }
  auto byStart = [](const Step &a, const Step &b) {
    return a.fromUs < b.fromUs;
  };
  std::sort(builds.begin(), builds.end(), byStart);
  std::sort(benches.begin(), benches.end(), byStart);
  return {builds, benches};
}

bool overlap(const Step &a, const Step &b) {
  return a.fromUs < b.toUs && b.fromUs < a.toUs;
}

TEST_F(TuneTest, APipelinedTuneBuildsTheNextBatchWhileMeasuring) {
  REQUIRE_TOOL("glslc");
  REQUIRE_TOOL("spirv-val");
  setSpace("TILE_K = [8, 16, 32]\nUNROLL = [1]\nPAD = [0, 1]\n");
  // On by default on a GPU only; forced here, on lavapipe, for its logic:
  // 3 batches of 2 (-j 2), built alternately into build-0 and build-1.
  CliRun r = tune({"--pipeline", "on"});
  SKIP_WITHOUT_VULKAN(r);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("compiling while measuring"));
  EXPECT_THAT(r.output,
              HasSubstr("6 configurations (6 in the [tune] space, "
                        "before the constraints and the launch-shape check), "
                        "6 measurements made"));
  EXPECT_TRUE(fs::exists(out_ / "build-0/build.json"));
  EXPECT_TRUE(fs::exists(out_ / "build-1/build.json"));
  json report = kb::test::readJsonFile(out_ / "tune.json");
  ASSERT_EQ(report.at("configurations").size(), 6u);
  for (const json &c : report.at("configurations"))
    EXPECT_EQ(c.at("status"), "ok") << c.dump(2);
  EXPECT_TRUE(fs::exists(kernel_ / "tuned.toml"));
  // The overlap itself, from the times tune.log records: batch k + 1's
  // build ran while batch k was measured.
  std::string log = readFile(out_ / "tune.log");
  auto [builds, benches] = timeline(log);
  ASSERT_EQ(builds.size(), 3u) << log;
  ASSERT_EQ(benches.size(), 3u) << log;
  for (size_t k = 0; k + 1 < 3; ++k)
    EXPECT_TRUE(overlap(builds[k + 1], benches[k])) << "batch " << k << log;
  // Off (lavapipe's default): one build, then one bench, not overlapping.
  fs::remove_all(cache_);
  r = tune({"--pipeline", "off"});
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("compiling, then measuring"));
  std::string serialLog = readFile(out_ / "tune.log").substr(log.size());
  auto [serialBuilds, serialBenches] = timeline(serialLog);
  ASSERT_EQ(serialBuilds.size(), 1u) << serialLog;
  ASSERT_EQ(serialBenches.size(), 1u) << serialLog;
  EXPECT_LE(serialBuilds[0].toUs, serialBenches[0].fromUs) << serialLog;
  r = tune({"--pipeline", "sometimes"});
  EXPECT_EQ(r.exitCode, 2) << r.output;
}

TEST_F(TuneTest, AnInterruptedTuneContinuesFromTheCache) {
  REQUIRE_TOOL("glslc");
  REQUIRE_TOOL("spirv-val");
  setSpace("TILE_K = [8, 16, 32]\nUNROLL = [1]\nPAD = [0, 1]\n");
  kb::ProcessOptions options;
  options.argv = {kb::test::kernelBenchBinary(),
                  "tune",
                  kernel_.string(),
                  "-o",
                  out_.string(),
                  "--cache-dir",
                  cache_.string(),
                  "--device",
                  "vulkan",
                  "-j",
                  "2"};
  options.env = kb::test::withoutCiEnv({{"NO_COLOR", "1"}});
  options.timeout = std::chrono::seconds(300);
  // Ctrl-C once the bench of the 6 configurations starts its third.
  std::atomic<bool> done{false}, sent{false};
  std::thread interrupter([&] {
    while (!done) {
      // The bench's line, not the build's ("[3/6] glslc ...").
      if (readFile(out_ / "tune.log").find("[3/6] matmul_tiled-t0002_") !=
          std::string::npos) {
        sent = true;
        kb::signalAllProcessGroups(SIGINT); // as a terminal does
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  auto r = kb::runProcess(options);
  done = true;
  interrupter.join();
  ASSERT_TRUE(r.ok()) << r.status().message();
  std::string output = r->stdoutText + r->stderrText;
  kb::test::CliRun finished{r->exitCode, output};
  SKIP_WITHOUT_VULKAN(finished);
  ASSERT_TRUE(sent) << output;
  EXPECT_EQ(r->exitCode, 130) << output;
  EXPECT_THAT(output, HasSubstr("run the same command to continue"));
  EXPECT_FALSE(fs::exists(kernel_ / "tuned.toml"));
  // The configurations measured before the signal (at least the two before
  // the third started; how many more depends on when the poll saw it) are
  // in the tune cache, and are not measured again: counted, not assumed.
  size_t cached = tuneCacheLines();
  EXPECT_GE(cached, 2u);
  ASSERT_LT(cached, 6u) << "the interrupt came after the last measurement";
  CliRun again = tune();
  ASSERT_EQ(again.exitCode, 0) << again.output;
  EXPECT_THAT(again.output,
              HasSubstr("6 configurations (6 in the [tune] space, "
                        "before the constraints and the launch-shape check), " +
                        std::to_string(6 - cached) + " measurements made"));
}

// On a terminal (a pseudo-terminal here, as a user's shell gives it) tune
// says what it does at once: its status line is there before the first
// compile job has finished, not minutes later with the first result; and
// --quiet prints nothing at all.
TEST_F(TuneTest, ATerminalShowsTheStatusAtOnceAndQuietNothing) {
  REQUIRE_TOOL("glslc");
  REQUIRE_TOOL("spirv-val");
  setSpace("TILE_K = [8, 16]\nUNROLL = [1]\nPAD = [0]\n");
  kb::test::TerminalRun seen = kb::test::runKernelBenchOnTerminal(
      {"tune", kernel_.string(), "-o", out_.string(), "--cache-dir",
       cache_.string(), "--device", "vulkan", "-j", "2"},
      R"(tune: compiling \d+/\d+ jobs)");
  std::string output = seen.output;
  kb::test::CliRun ran{seen.exitCode.value_or(0), output};
  SKIP_WITHOUT_VULKAN(ran);
  ASSERT_TRUE(seen.matched) << output;
  // Rewritten in place, and first shown before any job finished.
  EXPECT_THAT(output, HasSubstr("\rtune: compiling 0/")) << output;
  // Within a second as a user sees it; the bound allows for a loaded CI
  // machine (the figure is in the failure message).
  EXPECT_LT(seen.matchedAfterS, 3.0) << output;

  kb::test::CliRun quiet = tune({"--quiet"});
  EXPECT_EQ(quiet.exitCode, 0) << quiet.output;
  EXPECT_EQ(quiet.output, "");
  EXPECT_TRUE(fs::exists(out_ / "tune.json"));
  EXPECT_EQ(tune({"--quiet", "--verbose"}).exitCode, 2);
}

} // namespace
