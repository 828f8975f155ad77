//===- tests/e2e/cuda_sanitize_test.cpp - run --sanitize on CUDA ----------===//
//
// `run --sanitize --device cuda` runs the worker under compute-sanitizer, one
// pass per tool, each report in a log file of its own, and attributes every
// record to the kernel it names. These build machines have neither the tool
// (it comes with the full CUDA toolkit) nor a GPU: a stand-in
// (fixtures/compute_sanitizer) records how it is invoked and returns
// reports recorded in the real tool's layout. Where a CUDA device is listed
// the worker runs for real under it and all four passes run.
//
//===----------------------------------------------------------------------===//
#include "runtime/testing/device_environment.h"
#include "tests/support/cli_test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <sstream>

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

namespace {

const fs::path kProject =
    fs::path(KB_SOURCE_DIR) / "tests/e2e/fixtures/inspect";
const fs::path kFake =
    fs::path(KB_SOURCE_DIR) / "tests/e2e/fixtures/compute_sanitizer";

class CudaSanitizeTest : public kb::test::KernelBenchTest {
protected:
  CudaSanitizeTest() : KernelBenchTest("kb_cuda_sanitize_test") {}

  void SetUp() override {
    KernelBenchTest::SetUp();
    REQUIRE_TOOL("nvcc");
    kb::test::CliRun built = buildProject(kProject);
    ASSERT_EQ(built.exitCode, 0) << built.output;
  }

  /// kernel-bench |args| with |cudaPath| as CUDA_PATH (searched first for
  /// CUDA tools) and the stand-in's record in the scratch directory.
  kb::test::CliRun withCudaPath(std::vector<std::string> args,
                                const fs::path &cudaPath) {
    return run(std::move(args),
               {{"CUDA_PATH", cudaPath.string()},
                {"KB_FAKE_SANITIZER_RECORD", (tmp_ / "record.txt").string()}});
  }
  /// `run --sanitize --device cuda` on the copy kernel.
  kb::test::CliRun sanitize(const fs::path &cudaPath) {
    return withCudaPath({"run", (out_ / "standalone" / "copy_scalar").string(),
                         "--sanitize", "--device", "cuda"},
                        cudaPath);
  }
  /// A CUDA_PATH whose bin/ holds the stand-in compute-sanitizer.
  fs::path fakeToolkit() {
    fs::create_directories(tmp_ / "cuda/bin");
    fs::create_symlink(kFake / "compute-sanitizer",
                       tmp_ / "cuda/bin/compute-sanitizer");
    return tmp_ / "cuda";
  }
  /// The stand-in's argument lists, one per pass it ran.
  std::vector<std::string> recordedPasses() {
    std::istringstream record(kb::test::readFile(tmp_ / "record.txt"));
    std::vector<std::string> passes;
    for (std::string line; std::getline(record, line);)
      passes.push_back(line);
    return passes;
  }
};

TEST_F(CudaSanitizeTest, EachToolRunsTheWorkerAndItsRecordsNameTheKernel) {
  kb::test::CliRun r = sanitize(fakeToolkit());
  std::vector<std::string> passes = recordedPasses();
  ASSERT_FALSE(passes.empty()) << r.output;
  // Each pass: its tool, its own log file, every record, the command's exit
  // status, then the worker itself.
  EXPECT_THAT(passes[0], HasSubstr("--tool\tmemcheck\t--log-file\t"));
  EXPECT_THAT(passes[0], HasSubstr("memcheck.log\t--print-limit\t1000\t"
                                   "--error-exitcode\t0\t--leak-check\tno\t"));
  EXPECT_THAT(passes[0], HasSubstr("\t__worker\trun\t"));
  EXPECT_THAT(r.output,
              HasSubstr("sanitizer error: memcheck, `copy_scalar` export 0, "
                        "the handwritten kernel, copy_scalar.cu:7, thread "
                        "(255,0,0) in block (255,0,0): Invalid __global__ "
                        "write of size 4 bytes; Address 0x7f0e4c240000 is out "
                        "of bounds"));
  EXPECT_THAT(r.output, Not(HasSubstr("Host Frame")));
  if (!kb::testing::cudaDeviceListed()) {
    // The worker finds no CUDA device (exit 77): the other tools would not
    // run either, so they are not started.
    EXPECT_EQ(r.exitCode, 77) << r.output;
    EXPECT_EQ(passes.size(), 1u);
    EXPECT_THAT(r.output, HasSubstr("sanitizer: 1 error(s): the run fails "
                                    "(compute-sanitizer: memcheck"));
    return;
  }
  EXPECT_EQ(r.exitCode, 1) << r.output;
  ASSERT_EQ(passes.size(), 4u);
  EXPECT_THAT(passes[1], HasSubstr("--tool\tracecheck\t"));
  EXPECT_THAT(passes[1], HasSubstr("--racecheck-report\tanalysis\t"));
  EXPECT_THAT(passes[2], HasSubstr("--tool\tinitcheck\t"));
  EXPECT_THAT(passes[3], HasSubstr("--tool\tsynccheck\t"));
  EXPECT_THAT(r.output,
              HasSubstr("sanitizer error: initcheck, `copy_scalar` export 0, "
                        "the reference kernel, copy_float4.cu:9"));
  EXPECT_THAT(r.output, HasSubstr("sanitizer: 2 error(s): the run fails"));
}

TEST_F(CudaSanitizeTest, BenchRowsCarryEveryToolsFindings) {
  kb::test::CliRun r =
      withCudaPath({"bench", out_.string(), "--sanitize", "--device", "cuda",
                    "-o", (tmp_ / "results").string()},
                   fakeToolkit());
  std::vector<std::string> passes = recordedPasses();
  ASSERT_FALSE(passes.empty()) << r.output;
  EXPECT_THAT(passes[0], HasSubstr("--tool\tmemcheck\t"));
  EXPECT_THAT(passes[0], HasSubstr("\t__worker\tbench\t"));
  EXPECT_THAT(passes[0], HasSubstr("\t--sanitize"));
  if (!kb::testing::cudaDeviceListed()) {
    // No CUDA device: one pass, and the run is skipped.
    EXPECT_EQ(r.exitCode, 77) << r.output;
    EXPECT_EQ(passes.size(), 1u);
    return;
  }
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_EQ(passes.size(), 4u);
  nlohmann::json report = kb::test::readJsonFile(tmp_ / "results/bench.json");
  ASSERT_EQ(report["benchmarks"].size(), 1u);
  const nlohmann::json &row = report["benchmarks"][0];
  EXPECT_EQ(row["status"], "sanitizer");
  ASSERT_EQ(row["sanitizer"].size(), 2u) << row.dump();
  EXPECT_EQ(row["sanitizer"][0]["variant"], "candidate");
  EXPECT_THAT(row["sanitizer"][0]["message"].get<std::string>(),
              HasSubstr("memcheck, copy_scalar.cu:7, thread (255,0,0) in "
                        "block (255,0,0): Invalid __global__ write"));
  EXPECT_EQ(row["sanitizer"][1]["variant"], "reference");
  EXPECT_THAT(row["sanitizer"][1]["message"].get<std::string>(),
              HasSubstr("initcheck, copy_float4.cu:9"));
}

TEST_F(CudaSanitizeTest, WithoutTheToolTheRunIsSkippedSayingWhereItComesFrom) {
  if (fs::exists("/usr/local/cuda/bin/compute-sanitizer"))
    GTEST_SKIP() << "this host has the full CUDA toolkit's compute-sanitizer";
  fs::create_directories(tmp_ / "empty/bin");
  kb::test::CliRun r = sanitize(tmp_ / "empty");
  EXPECT_EQ(r.exitCode, 77) << r.output;
  EXPECT_THAT(r.output, HasSubstr("compute-sanitizer comes with the full CUDA "
                                  "toolkit"));
  EXPECT_FALSE(fs::exists(tmp_ / "record.txt"));
}

} // namespace
