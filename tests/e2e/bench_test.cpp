//===- tests/e2e/bench_test.cpp - `kernel-bench bench` end to end ---------===//
//
// On lavapipe (or a GPU), with --quick settings so the suite stays short:
// the table and a bench.json the strict reader (the documented schema)
// accepts; a wrong kernel is INCORRECT and not timed; a kernel without a
// reference is timed with "no reference"; a kernel that never returns is an
// ERROR row after the watchdog and the run finishes, leaving no process
// behind; Ctrl-C keeps a valid partial report marked interrupted; the whole
// program is timed with and without the substitutions; a module from a newer
// schema is an ERROR row saying so; `run` on a hanging kernel names what was
// running and exits 1. Skips without glslc/spirv-val or a Vulkan device.
//
//===----------------------------------------------------------------------===//
#include "tests/support/cli_test_support.h"

#include "common/sha256.h"
#include "runtime/module/module.h"
#include "runtime/testing/module_writer.h"
#include "common/process.h"
#include "workbench/build/build_resources.h"
#include "workbench/report/bench_json.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

namespace {

const fs::path kSourceDir = KB_SOURCE_DIR;
const fs::path kFixtures = kSourceDir / "tests/e2e/fixtures";
using Cli = kb::test::CliRun;

/// Processes whose command line mentions |needle| (our scratch directory):
/// a worker left behind would be one.
std::vector<std::string> processesMentioning(const std::string &needle) {
  std::vector<std::string> found;
  for (const fs::path &proc : kb::test::liveProcesses()) {
    std::string cmdline = kb::test::readProcFile(proc / "cmdline");
    std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
    if (cmdline.find(needle) != std::string::npos &&
        cmdline.find("__worker") != std::string::npos)
      found.push_back(proc.filename().string() + ": " + cmdline);
  }
  return found;
}

class BenchTest : public kb::test::KernelBenchTest {
protected:
  BenchTest() : KernelBenchTest("kb_bench_test") {}

  void SetUp() override {
    REQUIRE_TOOL("glslc");
    REQUIRE_TOOL("spirv-val");
    KernelBenchTest::SetUp();
  }

  /// `bench OUT --device vulkan --quick` + |extra|, the peak cache in the
  /// scratch directory.
  Cli bench(std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"bench", out_.string(), "--device",
                                     "vulkan", "--quick"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run(args, {{"KB_CACHE_DIR", cache_.string()}});
  }

  /// bench.json through the one strict reader; a failure when it refuses.
  kb::report::BenchReport readReport(const fs::path &path) {
    auto report = kb::report::readBenchJson(path);
    EXPECT_TRUE(report.ok()) << report.status().message();
    return report.ok() ? *report : kb::report::BenchReport{};
  }

  /// The quick settings' promise: >= 10 samples unless the time limit (10 s
  /// per benchmark, 5 s per mode) ended sampling first -- and never none.
  static void expectQuickSampleCount(const kb::report::Timing &t) {
    EXPECT_GE(t.samples.size(), 1u);
    if (t.samples.size() < 10u)
      EXPECT_EQ(t.stopReason, kb::report::StopReason::Timeout)
          << t.samples.size() << " samples without a timeout";
  }

  const kb::report::Benchmark *find(const kb::report::BenchReport &r,
                                    const std::string &fragment) {
    for (const kb::report::Benchmark &b : r.benchmarks)
      if (b.name.find(fragment) != std::string::npos)
        return &b;
    ADD_FAILURE() << "no benchmark named like " << fragment;
    return nullptr;
  }
};

TEST_F(BenchTest, FaultsBecomeRowsAndTheRunFinishes) {
  Cli b = buildProject(kFixtures / "bench_faults");
  ASSERT_EQ(b.exitCode, 0) << b.output;
  // The watchdog ends the hanging benchmark; it must also leave the good
  // ones (quick: 10 samples of each mode, plus checking and set-up) their
  // time on a loaded 2-core CI machine, where 4 s once killed scale_ref.
  Cli r = bench({"--watchdog", "12"});
  SKIP_WITHOUT_VULKAN(r);
  EXPECT_EQ(r.exitCode, 1) << r.output; // an INCORRECT and an ERROR row
  EXPECT_THAT(r.output, HasSubstr("median ± IQR"));
  EXPECT_THAT(r.output, HasSubstr("INCORRECT"));
  EXPECT_THAT(r.output, HasSubstr("did not finish within"));
  EXPECT_THAT(r.output, HasSubstr("quick settings"));
  EXPECT_THAT(processesMentioning(tmp_.string()), ::testing::IsEmpty());

  kb::report::BenchReport report = readReport(out_ / "results/bench.json");
  EXPECT_FALSE(report.interrupted);
  EXPECT_TRUE(report.settings.quick);
  EXPECT_EQ(report.device.driver, "vulkan");
  ASSERT_EQ(report.benchmarks.size(), 4u);

  const kb::report::Benchmark *good = find(report, "scale_ref");
  ASSERT_TRUE(good);
  EXPECT_EQ(good->status, kb::report::BenchStatus::Ok) << good->reason;
  ASSERT_EQ(good->variants.size(), 2u);
  EXPECT_EQ(good->variants[0].correctness.status,
            kb::report::CorrectnessStatus::Correct);
  EXPECT_EQ(good->variants[0].correctness.seeds.size(), 3u);
  for (const kb::report::Variant &v : good->variants) {
    ASSERT_EQ(v.timings.size(), 2u); // cold and hot
    for (const kb::report::Timing &t : v.timings) {
      expectQuickSampleCount(t);
      EXPECT_GT(t.summary.median, 0);
    }
  }
  EXPECT_TRUE(good->variants[0].timings[0].derived.speedupVsReference);

  const kb::report::Benchmark *wrong = find(report, "scale_wrong");
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, kb::report::BenchStatus::Incorrect);
  EXPECT_THAT(wrong->reason, HasSubstr("index 0"));
  for (const kb::report::Variant &v : wrong->variants)
    EXPECT_TRUE(v.timings.empty()) << "a wrong kernel was timed";
  ASSERT_FALSE(wrong->variants.empty());
  EXPECT_FALSE(wrong->variants[0].correctness.firstMismatches.empty());

  const kb::report::Benchmark *noref = find(report, "scale_noref");
  ASSERT_TRUE(noref);
  EXPECT_EQ(noref->status, kb::report::BenchStatus::Ok) << noref->reason;
  ASSERT_EQ(noref->variants.size(), 1u);
  EXPECT_EQ(noref->variants[0].correctness.status,
            kb::report::CorrectnessStatus::NoReference);
  EXPECT_FALSE(noref->variants[0].timings.empty());

  const kb::report::Benchmark *spin = find(report, "spin");
  ASSERT_TRUE(spin);
  EXPECT_EQ(spin->status, kb::report::BenchStatus::Error);
  EXPECT_THAT(spin->reason, HasSubstr("watchdog"));
  EXPECT_THAT(spin->reason, HasSubstr("correctness check"));
}

TEST_F(BenchTest, CtrlCKeepsAValidPartialReport) {
  Cli b = buildProject(kFixtures / "bench_faults");
  ASSERT_EQ(b.exitCode, 0) << b.output;
  // The spin kernel keeps the run busy long after the first benchmark ends.
  kb::ProcessOptions options;
  options.argv = {KB_KERNEL_BENCH, "bench",   out_.string(), "--device",
                  "vulkan",        "--quick", "--filter",    "noref|spin"};
  options.env = kb::test::withoutCiEnv(
      {{"KB_CACHE_DIR", cache_.string()}, {"NO_COLOR", "1"}});
  options.timeout = std::chrono::seconds(120);
  std::string seen;
  bool sent = false;
  options.onStdout = [&](std::string_view chunk) {
    seen.append(chunk);
    // "[2/2] ..." is printed when the second benchmark (spin) starts.
    if (!sent && seen.find("[2/2]") != std::string::npos) {
      sent = true;
      kb::signalAllProcessGroups(SIGINT); // as a terminal does
    }
  };
  auto r = kb::runProcess(options);
  ASSERT_TRUE(r.ok()) << r.status().message();
  std::string output = r->stdoutText + r->stderrText;
  kb::test::CliRun finished{r->exitCode, output};
  SKIP_WITHOUT_VULKAN(finished);
  ASSERT_TRUE(sent) << output;
  EXPECT_EQ(r->exitCode, 130) << output;
  EXPECT_FALSE(r->timedOut) << output;
  EXPECT_THAT(output, HasSubstr("interrupted by SIGINT"));
  kb::report::BenchReport report =
      readReport(out_ / "results-noref_spin/bench.json");
  EXPECT_TRUE(report.interrupted);
  ASSERT_EQ(report.benchmarks.size(), 1u);
  EXPECT_THAT(report.benchmarks[0].name, HasSubstr("scale_noref"));
  EXPECT_THAT(processesMentioning(out_.string()), ::testing::IsEmpty());
}

TEST_F(BenchTest, WholeProgramWithAndWithoutSubstitutions) {
  Cli b = buildProject(kFixtures / "scale_program");
  ASSERT_EQ(b.exitCode, 0) << b.output;
  Cli r = bench({"--cold", "-o", (tmp_ / "results").string()});
  SKIP_WITHOUT_VULKAN(r);
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("program main"));
  EXPECT_THAT(r.output, HasSubstr("with substitutions"));
  EXPECT_THAT(r.output, HasSubstr("generated only"));
  kb::report::BenchReport report = readReport(tmp_ / "results/bench.json");
  ASSERT_TRUE(report.program);
  EXPECT_EQ(report.program->entryFunction, "main");
  EXPECT_EQ(report.program->status, kb::report::BenchStatus::Ok);
  ASSERT_TRUE(report.program->withSubstitutions);
  ASSERT_TRUE(report.program->generatedOnly);
  expectQuickSampleCount(*report.program->withSubstitutions);
  EXPECT_TRUE(report.program->speedup);
  ASSERT_EQ(report.benchmarks.size(), 1u); // the program's one dispatch
  EXPECT_EQ(report.settings.modes.size(), 1u);

  // `compare` reads two real bench.json files of the same build: every row
  // pairs (nothing only on one side), the exit code is a verdict's (0 or 1
  // on a timing change), never 4 (refused) or 2.
  Cli again = bench({"--cold", "-o", (tmp_ / "results2").string()});
  ASSERT_EQ(again.exitCode, 0) << again.output;
  Cli c = run({"compare", (tmp_ / "results/bench.json").string(),
               (tmp_ / "results2/bench.json").string(), "--threshold", "50%"});
  EXPECT_TRUE(c.exitCode == 0 || c.exitCode == 1) << c.output;
  EXPECT_THAT(c.output, HasSubstr("/candidate/cold"));
  EXPECT_THAT(c.output, HasSubstr("geomean of new/base"));
  EXPECT_THAT(c.output, Not(HasSubstr("only in")));
}

// A gate with nothing behind it fails: a --filter that matches nothing, or
// a run whose every benchmark was SKIPPED, exits 5 ("nothing measured"),
// and so does `compare` when no row in common has timings on both sides.
TEST_F(BenchTest, NothingMeasuredIsNeverAPass) {
  Cli b = buildProject(kFixtures / "scale_program");
  ASSERT_EQ(b.exitCode, 0) << b.output;
  Cli good = bench({"--cold", "-o", (tmp_ / "good").string()});
  SKIP_WITHOUT_VULKAN(good);
  ASSERT_EQ(good.exitCode, 0) << good.output;

  Cli none =
      bench({"--filter", "no-such-benchmark", "-o", (tmp_ / "none").string()});
  EXPECT_EQ(none.exitCode, 5) << none.output;
  EXPECT_THAT(none.output, HasSubstr("nothing measured"));

  // --quiet prints nothing: the reports and the exit code say it; an error
  // still reaches stderr.
  Cli quiet = bench({"--cold", "--quiet", "-o", (tmp_ / "quiet").string()});
  EXPECT_EQ(quiet.exitCode, 0) << quiet.output;
  EXPECT_EQ(quiet.output, "");
  EXPECT_TRUE(fs::exists(tmp_ / "quiet/bench.json"));
  Cli quietNone = bench({"--quiet", "--filter", "no-such-benchmark", "-o",
                         (tmp_ / "none").string()});
  EXPECT_EQ(quietNone.exitCode, 5) << quietNone.output;
  EXPECT_THAT(quietNone.output, HasSubstr("nothing measured"));
  EXPECT_THAT(quietNone.output, Not(HasSubstr("benchmark(s):")));

  // The budget is spent before the first benchmark starts: all SKIPPED.
  Cli skipped = bench(
      {"--cold", "--budget", "0.000001", "-o", (tmp_ / "skipped").string()});
  EXPECT_EQ(skipped.exitCode, 5) << skipped.output;
  EXPECT_THAT(skipped.output, HasSubstr("every benchmark was SKIPPED"));
  kb::report::BenchReport report = readReport(tmp_ / "skipped/bench.json");
  ASSERT_FALSE(report.benchmarks.empty());
  for (const kb::report::Benchmark &bm : report.benchmarks)
    EXPECT_EQ(bm.status, kb::report::BenchStatus::Skipped) << bm.name;

  // A device too small for every benchmark is every row SKIPPED, and still
  // not a pass. The flush buffer of a 1 TiB --l2-size takes the whole heap
  // (as much of it as the budget allows), so no benchmark's buffers fit:
  // the same on every machine, unlike an address-space limit.
  Cli small = bench({"--cold", "--l2-size", "1099511627776", "-o",
                     (tmp_ / "small").string()});
  EXPECT_EQ(small.exitCode, 5) << small.output;
  EXPECT_THAT(small.output, HasSubstr("skipped: the device is too small"));
  EXPECT_THAT(small.output, HasSubstr("every benchmark was SKIPPED"));
  // --profile times nothing, so it allocates no flush buffer: on the same
  // device every benchmark is profiled.
  Cli profiled = bench({"--profile", "--l2-size", "1099511627776", "-o",
                        (tmp_ / "small-profile").string()});
  EXPECT_EQ(profiled.exitCode, 0) << profiled.output;
  EXPECT_THAT(profiled.output, HasSubstr("profiled (correct)"));

  // No worker ran, so the skipped run names no device: compare refuses it
  // as another device's (4) unless told otherwise; then nothing compares.
  Cli c = run({"compare", (tmp_ / "good/bench.json").string(),
               (tmp_ / "skipped/bench.json").string()});
  EXPECT_EQ(c.exitCode, 4) << c.output;
  c = run({"compare", (tmp_ / "good/bench.json").string(),
           (tmp_ / "skipped/bench.json").string(),
           "--allow-different-devices"});
  EXPECT_EQ(c.exitCode, 5) << c.output;
  EXPECT_THAT(c.output, HasSubstr("nothing compared"));
}

// A filtered run writes beside the full report, never over it.
TEST_F(BenchTest, AFilteredRunKeepsTheFullReport) {
  Cli b = buildProject(kFixtures / "scale_program");
  ASSERT_EQ(b.exitCode, 0) << b.output;
  Cli full = bench({"--cold"});
  SKIP_WITHOUT_VULKAN(full);
  ASSERT_EQ(full.exitCode, 0) << full.output;
  std::string before = kb::test::readFile(out_ / "results/bench.json");
  Cli part = bench({"--cold", "--filter", "program m"});
  ASSERT_EQ(part.exitCode, 0) << part.output;
  EXPECT_EQ(kb::test::readFile(out_ / "results/bench.json"), before);
  kb::report::BenchReport filtered =
      readReport(out_ / "results-program_m/bench.json");
  EXPECT_TRUE(filtered.program);
  EXPECT_TRUE(filtered.benchmarks.empty());
}

TEST_F(BenchTest, ModuleFromANewerSchemaIsAnErrorRowSayingSo) {
  Cli b = buildProject(kFixtures / "scale_program");
  ASSERT_EQ(b.exitCode, 0) << b.output;
  fs::path moduleFile;
  for (const auto &entry : fs::directory_iterator(out_ / "bench"))
    moduleFile = entry.path();
  auto module = kb::module::loadModuleFile(moduleFile.string());
  ASSERT_TRUE(module.ok()) << module.status().message();
  kb::testing::WriteOptions newer;
  newer.schemaVersion = kb::module::kSchemaVersion + 1;
  ASSERT_TRUE(kb::testing::writeFile(moduleFile.string(),
                                     kb::testing::writeModule(*module, newer))
                  .ok());
  Cli r = bench({"--filter", "scale"});
  SKIP_WITHOUT_VULKAN(r);
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("ERROR"));
  EXPECT_THAT(r.output, HasSubstr("schema"));
  kb::report::BenchReport report =
      readReport(out_ / "results-scale/bench.json");
  ASSERT_FALSE(report.benchmarks.empty());
  EXPECT_EQ(report.benchmarks[0].status, kb::report::BenchStatus::Error);
  EXPECT_THAT(report.benchmarks[0].reason,
              HasSubstr(std::to_string(kb::module::kSchemaVersion + 1)));
}

TEST_F(BenchTest, RunNamesTheHangingDispatchAndExitsCleanly) {
  Cli b = buildProject(kFixtures / "spin_program");
  ASSERT_EQ(b.exitCode, 0) << b.output;
  Cli r = run({"run", out_.string(), "--device", "vulkan", "--timeout", "3"});
  SKIP_WITHOUT_VULKAN(r);
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("did not finish within"));
  EXPECT_THAT(r.output, HasSubstr("function `main`"));
  EXPECT_THAT(r.output, HasSubstr("op 2 (`scale` export 0)"));
  // What the worker printed before it was killed reached our stdout.
  EXPECT_THAT(r.output, HasSubstr("module: "));
  EXPECT_LT(r.seconds, 60);
  EXPECT_THAT(processesMentioning(out_.string()), ::testing::IsEmpty());
}

// `--device auto` is filtered by the benchmark's variants, as for `run`: a
// CUDA-only build never lands on lavapipe (77 here, with the reason; it runs
// on CUDA on a GPU host) ...
TEST_F(BenchTest, AutoDeviceSkipsDevicesTheModuleHasNoVariantFor) {
  REQUIRE_TOOL("nvcc");
  Cli b = buildProject(kSourceDir / "examples/quickstart",
                       {"--target", "cuda:sm_90"});
  ASSERT_EQ(b.exitCode, 0) << b.output;
  Cli r = run({"bench", out_.string(), "--quick", "--cold"},
              {{"KB_CACHE_DIR", cache_.string()}});
  if (r.exitCode == 0) {
    // A CUDA device exists: everything ran there.
    EXPECT_EQ(readReport(out_ / "results/bench.json").device.driver, "cuda");
    return;
  }
  EXPECT_EQ(r.exitCode, kb::test::kExitUnavailable) << r.output;
  EXPECT_THAT(r.output, HasSubstr("no usable device"));
  if (r.output.find("vulkan:0") != std::string::npos)
    EXPECT_THAT(r.output, HasSubstr("has no variant for vulkan:0"));
  EXPECT_FALSE(fs::exists(out_ / "results/bench.json"));
}

// ... and a Vulkan-only build never lands on a CUDA device (on a GPU host
// `auto` would try CUDA first).
TEST_F(BenchTest, AutoDeviceForAVulkanOnlyBuildIsAVulkanDevice) {
  Cli b = buildProject(kFixtures / "standalone");
  ASSERT_EQ(b.exitCode, 0) << b.output;
  Cli r = run(
      {"bench", out_.string(), "--quick", "--cold", "--filter", "scale_ref"},
      {{"KB_CACHE_DIR", cache_.string()}});
  SKIP_WITHOUT_VULKAN(r);
  EXPECT_EQ(r.exitCode, 0) << r.output;
  kb::report::BenchReport report =
      readReport(out_ / "results-scale_ref/bench.json");
  EXPECT_EQ(report.device.driver, "vulkan");
  ASSERT_EQ(report.benchmarks.size(), 1u);
  EXPECT_EQ(report.benchmarks[0].status, kb::report::BenchStatus::Ok)
      << report.benchmarks[0].reason;
}

// A build whose benchmarks need different drivers: one report is one device
// (the first benchmark's); the others are SKIPPED with the reason, and the
// run does not fail.
TEST_F(BenchTest, MixedBuildIsMeasuredOnOneDeviceAndSkipsTheRest) {
  REQUIRE_TOOL("nvcc");
  Cli b = buildProject(kFixtures / "scale_program");
  ASSERT_EQ(b.exitCode, 0) << b.output;
  fs::path cudaOut = tmp_ / "cuda-out";
  Cli c = run({"build", (kSourceDir / "examples/quickstart").string(), "-o",
               cudaOut.string(), "--cache-dir", cache_.string(), "--target",
               "cuda:sm_90"});
  ASSERT_EQ(c.exitCode, 0) << c.output;
  size_t copied = 0;
  for (const auto &entry : fs::directory_iterator(cudaOut / "bench"))
    if (entry.path().extension() == ".kbm") {
      fs::copy_file(entry.path(), out_ / "bench" / entry.path().filename());
      ++copied;
    }
  ASSERT_GT(copied, 0u);
  Cli r = run({"bench", out_.string(), "--quick", "--cold"},
              {{"KB_CACHE_DIR", cache_.string()}});
  SKIP_WITHOUT_VULKAN(r);
  EXPECT_EQ(r.exitCode, 0) << r.output;
  kb::report::BenchReport report = readReport(out_ / "results/bench.json");
  size_t ok = 0, skipped = 0;
  for (const kb::report::Benchmark &bm : report.benchmarks) {
    if (bm.status == kb::report::BenchStatus::Ok) {
      ++ok;
      for (const kb::report::Variant &v : bm.variants)
        EXPECT_EQ(v.target.rfind(report.device.driver, 0), 0u)
            << bm.name << ": " << v.target << " on " << report.device.driver;
    } else {
      EXPECT_EQ(bm.status, kb::report::BenchStatus::Skipped)
          << bm.name << ": " << bm.reason;
      EXPECT_THAT(bm.reason, HasSubstr("has no variant for")) << bm.name;
      ++skipped;
    }
  }
  EXPECT_GT(ok, 0u) << r.output;
  EXPECT_GT(skipped, 0u) << r.output;
}

// ptxas's figures reach the report without ptxas on the GPU host: the bytes
// a CUDA candidate variant carries are the object its build job wrote, so
// its sha256 (the variant's object_sha256) finds the job's resources in
// build.json.
TEST_F(BenchTest, CudaCandidatesFindTheirPtxasResourcesInBuildJson) {
  REQUIRE_TOOL("nvcc");
  Cli b = buildProject(kSourceDir / "examples/quickstart",
                       {"--target", "cuda:sm_90"});
  ASSERT_EQ(b.exitCode, 0) << b.output;
  auto resources = kb::workbench::readObjectResources(out_ / "build.json");
  ASSERT_TRUE(resources.ok()) << resources.status().message();
  size_t candidates = 0, matched = 0;
  for (const auto &entry : fs::directory_iterator(out_ / "bench")) {
    auto module = kb::module::loadModuleFile(entry.path().string());
    ASSERT_TRUE(module.ok()) << module.status().message();
    for (const kb::module::Executable &exe : module->executables)
      for (const kb::module::Variant &v : exe.variants) {
        if (v.role != kb::module::VariantRole::Candidate)
          continue;
        ++candidates;
        auto it = resources->find(kb::sha256Hex(v.data));
        if (it == resources->end())
          continue;
        ++matched;
        EXPECT_GT(it->second.registers, 0u) << exe.name;
      }
  }
  EXPECT_GT(candidates, 0u);
  EXPECT_EQ(matched, candidates);
}

/// Writes |text| to |path|, creating its directory.
void writeText(const fs::path &path, const std::string &text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

/// A project of two standalone GLSL kernels, k1 and k2 (y = 2x); with
/// |slowK2| k2 also runs a dependent loop of 1000 steps per element.
void writePairProject(const fs::path &dir, bool slowK2) {
  writeText(dir / "workbench.toml", "[project]\nname = \"pair\"\n"
                                    "kernels = [\"k1\", \"k2\"]\n"
                                    "targets = [\"vulkan:1.2\"]\n");
  for (std::string k : {"k1", "k2"}) {
    writeText(dir / k / "kernel.toml",
              "[kernel]\nname = \"" + k + "\"\nsources = [\"" + k +
                  ".comp\"]\n\n[abi]\nworkgroup_size = [64, 1, 1]\n"
                  "bindings = [\n"
                  "  { name = \"x\", type = \"f32\", access = \"readonly\" },\n"
                  "  { name = \"y\", type = \"f32\", access = \"writeonly\" "
                  "},\n]\nconstants = [{ name = \"n\", type = \"u32\" }]\n\n"
                  "[bench]\nworkload = [4096]\nconstants = { n = 4096 }\n"
                  "elements = { x = 4096, y = \"n\" }\n");
    bool slow = slowK2 && k == "k2";
    writeText(dir / k / (k + ".comp"),
              std::string("#version 450\n"
                          "layout(local_size_x = 64) in;\n"
                          "layout(set = 0, binding = 0) readonly buffer X { "
                          "float x[]; };\n"
                          "layout(set = 0, binding = 1) writeonly buffer Y { "
                          "float y[]; };\n"
                          "layout(push_constant) uniform C { uint n; };\n"
                          "void main() {\n"
                          "  uint i = gl_GlobalInvocationID.x;\n"
                          "  if (i >= n) return;\n"
                          "  float v = x[i];\n") +
                  (slow ? "  float acc = v;\n"
                          "  for (uint k = 0u; k < 1000u; ++k)\n"
                          "    acc = acc * 0.999 + v;\n"
                          "  y[i] = 2.0 * v + acc * 1e-30;\n"
                        : "  y[i] = 2.0 * v;\n") +
                  "}\n");
  }
}

// `bench NEW --baseline OLD` times both builds' kernels in
// lockstep in one worker; a kernel slowed by a busy loop is SLOWER, the
// unchanged one is not, and the run exits 1 (a regression).
TEST_F(BenchTest, BaselineCallsTheSlowedKernelSlowerAndNoOther) {
  fs::path before = tmp_ / "before", after = tmp_ / "after";
  writePairProject(before, false);
  writePairProject(after, true);
  fs::path oldOut = tmp_ / "old-out";
  Cli a = run({"build", before.string(), "-o", oldOut.string(), "--cache-dir",
               cache_.string()});
  ASSERT_EQ(a.exitCode, 0) << a.output;
  Cli b = buildProject(after);
  ASSERT_EQ(b.exitCode, 0) << b.output;
  // --timeout wins over --quick's 1 s, so a loaded machine still takes the
  // 20 lockstep rounds.
  Cli r = bench({"--cold", "--min-samples", "20", "--timeout", "60",
                 "--baseline", oldOut.string(), "--threshold", "25%"});
  SKIP_WITHOUT_VULKAN(r);
  EXPECT_EQ(r.exitCode, 1) << r.output; // SLOWER is a regression
  EXPECT_THAT(r.output, HasSubstr("paired: "));
  kb::report::BenchReport report = readReport(out_ / "results/bench.json");
  ASSERT_EQ(report.benchmarks.size(), 2u);
  for (const kb::report::Benchmark &bm : report.benchmarks) {
    ASSERT_EQ(bm.status, kb::report::BenchStatus::Ok) << bm.reason;
    ASSERT_EQ(bm.paired.size(), 1u) << bm.name;
    const kb::report::PairedComparison &p = bm.paired[0];
    EXPECT_EQ(p.pairs, bm.variants[0].timings[0].samples.size());
    EXPECT_GE(p.pairs, 20u);
    EXPECT_EQ(p.baselineBuild, oldOut.string());
    bool slowed = bm.name.find("k2") != std::string::npos;
    if (slowed) {
      EXPECT_EQ(p.verdict, "SLOWER") << bm.name << " ratio " << p.ratio;
      EXPECT_GT(p.low, 1.25);
    } else {
      EXPECT_NE(p.verdict, "SLOWER") << bm.name << " ratio " << p.ratio;
    }
    // Both builds' timings are in the report, the baseline as its variant.
    bool hasBaseline = false;
    for (const kb::report::Variant &v : bm.variants)
      hasBaseline |= v.name == "baseline" && !v.timings.empty();
    EXPECT_TRUE(hasBaseline) << bm.name;
  }
}

// The baseline may be a bundle (the main branch's, as CI stores
// it), opened like `bench BUNDLE.tar`: checked, extracted into a private
// directory for the run and removed after it.
TEST_F(BenchTest, BaselineMayBeABundle) {
  fs::path before = tmp_ / "before", after = tmp_ / "after";
  writePairProject(before, false);
  writePairProject(after, true);
  fs::path oldOut = tmp_ / "old-out", bundle = tmp_ / "main.tar";
  Cli a = run({"build", before.string(), "-o", oldOut.string(), "--cache-dir",
               cache_.string()});
  ASSERT_EQ(a.exitCode, 0) << a.output;
  Cli bundled = run({"bundle", oldOut.string(), "-o", bundle.string()});
  ASSERT_EQ(bundled.exitCode, 0) << bundled.output;
  fs::remove_all(oldOut); // the bundle is all there is of the baseline
  Cli b = buildProject(after);
  ASSERT_EQ(b.exitCode, 0) << b.output;
  fs::path scratch = tmp_ / "scratch";
  fs::create_directories(scratch);
  Cli r =
      run({"bench", out_.string(), "--device", "vulkan", "--quick", "--cold",
           "--min-samples", "5", "--timeout", "60", "--baseline",
           bundle.string(), "--threshold", "25%"},
          {{"KB_CACHE_DIR", cache_.string()}, {"TMPDIR", scratch.string()}});
  SKIP_WITHOUT_VULKAN(r);
  EXPECT_THAT(r.exitCode, ::testing::AnyOf(0, 1)) << r.output;
  EXPECT_THAT(r.output, Not(HasSubstr("--baseline: not in")));
  kb::report::BenchReport report = readReport(out_ / "results/bench.json");
  ASSERT_EQ(report.benchmarks.size(), 2u);
  for (const kb::report::Benchmark &bm : report.benchmarks) {
    ASSERT_EQ(bm.status, kb::report::BenchStatus::Ok) << bm.reason;
    ASSERT_EQ(bm.paired.size(), 1u) << bm.name;
    EXPECT_EQ(bm.paired[0].baselineBuild, bundle.string());
    EXPECT_GE(bm.paired[0].pairs, 5u);
  }
  // The bundle's private directory went with the run.
  EXPECT_TRUE(fs::is_empty(scratch)) << fs::directory_iterator(scratch)->path();
}

} // namespace

// What a kernel.toml declares reaches the bench. The row sum
// with `reduction_length = "len"` passes (its 64 strided partials round
// differently from the serial reference) and shows GFLOP/s from its
// [roofline] flops and GB/s from its declared bytes; the same kernel under
// the default f32 tolerance is INCORRECT.
TEST_F(BenchTest, DeclaredFlopsAndReductionTolerances) {
  Cli b = buildProject(kFixtures / "declared");
  ASSERT_EQ(b.exitCode, 0) << b.output;
  Cli r = bench({"--cold"});
  SKIP_WITHOUT_VULKAN(r);
  EXPECT_EQ(r.exitCode, 1) << r.output; // row_sum_default is INCORRECT
  EXPECT_THAT(r.output, HasSubstr("GFLOP/s"));

  kb::report::BenchReport report = readReport(out_ / "results/bench.json");
  const kb::report::Benchmark *scaled = find(report, "row_sum_64");
  ASSERT_TRUE(scaled);
  EXPECT_EQ(scaled->status, kb::report::BenchStatus::Ok) << scaled->reason;
  ASSERT_EQ(scaled->variants.size(), 2u);
  for (const kb::report::Variant &v : scaled->variants) {
    ASSERT_TRUE(v.flops) << v.name;
    EXPECT_EQ(*v.flops, 64.0 * 65536);
    ASSERT_TRUE(v.bytesMoved) << v.name;
    EXPECT_EQ(*v.bytesMoved, 4u * (64u * 65536u + 64u));
    ASSERT_FALSE(v.timings.empty()) << v.name;
    const kb::report::Derived &d = v.timings[0].derived;
    ASSERT_TRUE(d.gflopPerSecond) << v.name;
    EXPECT_NEAR(*d.gflopPerSecond, 64.0 * 65536 / v.timings[0].summary.median,
                1e-9);
    ASSERT_TRUE(d.gbPerSecond);
    EXPECT_NEAR(*d.gbPerSecond,
                4.0 * (64 * 65536 + 64) / v.timings[0].summary.median, 1e-9);
  }
  // The table's row_sum candidate line carries a GFLOP/s figure.
  std::string line;
  std::istringstream table(r.output);
  while (std::getline(table, line))
    if (line.rfind("row_sum_64", 0) == 0 &&
        line.find("candidate") != std::string::npos)
      break;
  char figure[32];
  std::snprintf(figure, sizeof figure, "%.1f",
                *scaled->variants[0].timings[0].derived.gflopPerSecond);
  EXPECT_THAT(line, HasSubstr(figure)) << r.output;

  const kb::report::Benchmark *plain = find(report, "row_sum_default");
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->status, kb::report::BenchStatus::Incorrect);
  EXPECT_THAT(plain->reason, HasSubstr("differs from the reference"));
  for (const kb::report::Variant &v : plain->variants)
    EXPECT_TRUE(v.timings.empty()) << "a wrong kernel was timed";
}
