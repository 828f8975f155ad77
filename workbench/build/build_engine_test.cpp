//===- workbench/build/build_engine_test.cpp - The build engine, typed ----===//
//
// The build engine as `tune` uses it: a project made in memory goes in, the
// build's record comes out, and what happened on the way reaches the
// observer. Real glslc and spirv-val; skipped without them.
//
//===----------------------------------------------------------------------===//
#include "workbench/build/build_engine.h"
#include "workbench/project/kernel_toml.h"

#include "common/file_util.h"
#include "tests/support/cli_test_support.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

namespace kb::workbench {
namespace {

/// Counts what the engine tells it.
struct RecordingObserver : BuildObserver {
  size_t planned = 0, started = 0, steps = 0, finished = 0, stopped = 0;
  bool allFinished = false;
  std::vector<std::string> failedKernels;
  void jobsPlanned(size_t count) override { planned = count; }
  void jobStarted() override { ++started; }
  void jobStep(const std::string &) override { ++steps; }
  void jobFinished(const JobRecord &job, bool wasStopped) override {
    ++finished;
    stopped += wasStopped;
    if (!job.result.status.ok())
      failedKernels.push_back(job.kernel->name);
  }
  void jobsFinished() override { allFinished = true; }
};

class BuildEngineTest : public ::testing::Test {
protected:
  void SetUp() override {
    auto dir = TempDir::create(fs::temp_directory_path(), "kb-build-engine");
    ASSERT_TRUE(dir.ok()) << dir.status().message();
    dir_.emplace(std::move(*dir));
  }

  /// A kernel.toml and its shader |body| under the temp directory, loaded.
  Kernel kernel(const std::string &name, const std::string &body) {
    fs::path dir = dir_->path() / name;
    fs::create_directories(dir);
    std::ofstream(dir / "k.comp") << "#version 450\n"
                                     "layout(local_size_x = 64) in;\n"
                                     "layout(std430, binding = 0) buffer X "
                                     "{ float x[]; };\n"
                                  << body;
    std::ofstream(dir / "kernel.toml")
        << "[kernel]\nname = \"" << name
        << "\"\nsources = [\"k.comp\"]\nentry = \"main\"\n"
           "[abi]\nworkgroup_size = [64, 1, 1]\n"
           "bindings = [{ name = \"x\", type = \"f32\", access = "
           "\"readwrite\" }]\n";
    auto loaded = loadKernel(dir / "kernel.toml", {target()});
    EXPECT_TRUE(loaded.ok()) << loaded.status().message();
    return loaded.ok() ? *loaded : Kernel();
  }

  static Target target() { return *Target::parse("vulkan:1.2"); }

  /// A request for a project made in memory from |kernels|.
  BuildRequest request(std::vector<Kernel> kernels) {
    Project project;
    project.name = "in-memory";
    project.directory = dir_->path();
    project.manifest = dir_->path() / "none.toml"; // never read
    project.targets = {target()};
    project.outputDir = dir_->path() / "out";
    project.kernels = std::move(kernels);
    BuildRequest r;
    r.project = std::move(project);
    r.noCache = true;
    r.jobs = 2;
    return r;
  }

  std::optional<TempDir> dir_;
};

TEST_F(BuildEngineTest, BuildsAProjectMadeInMemoryIntoATypedRecord) {
  REQUIRE_TOOL("glslc");
  REQUIRE_TOOL("spirv-val");
  RecordingObserver observer;
  StatusOr<BuildReport> report = runBuild(
      request({kernel("twice", "void main() { x[gl_GlobalInvocationID.x] "
                               "*= 2.0; }\n")}),
      observer);
  ASSERT_TRUE(report.ok()) << report.status().message();
  ASSERT_EQ(report->jobs.size(), 1u);
  EXPECT_TRUE(report->jobs[0].result.status.ok())
      << report->jobs[0].result.status.message();
  EXPECT_EQ(report->jobs[0].kernel->name, "twice"); // points into the record
  EXPECT_EQ(report->project->name, "in-memory");
  EXPECT_EQ(report->interruptedBy, 0);
  EXPECT_TRUE(report->recordError.empty()) << report->recordError;
  EXPECT_TRUE(fs::exists(report->buildJson));
  EXPECT_FALSE(fs::exists(dir_->path() / "workbench.toml"));
  EXPECT_EQ(observer.planned, 1u);
  EXPECT_EQ(observer.started, 1u);
  EXPECT_GE(observer.steps, 1u);
  EXPECT_EQ(observer.finished, 1u);
  EXPECT_EQ(observer.stopped, 0u);
  EXPECT_TRUE(observer.allFinished);
}

TEST_F(BuildEngineTest, AKernelThatDoesNotCompileIsAFailedJobNotAnError) {
  REQUIRE_TOOL("glslc");
  REQUIRE_TOOL("spirv-val");
  RecordingObserver observer;
  StatusOr<BuildReport> report = runBuild(
      request({kernel("broken", "void main() { x[0] = undeclared; }\n"),
               kernel("fine", "void main() { x[0] = 1.0; }\n")}),
      observer);
  ASSERT_TRUE(report.ok()) << report.status().message();
  ASSERT_EQ(report->jobs.size(), 2u);
  size_t failed = 0;
  for (const JobRecord &job : report->jobs)
    if (!job.result.status.ok()) {
      ++failed;
      EXPECT_EQ(job.kernel->name, "broken");
      EXPECT_FALSE(job.result.diagnostics.empty());
    }
  EXPECT_EQ(failed, 1u);
  EXPECT_EQ(observer.failedKernels, std::vector<std::string>{"broken"});
  EXPECT_EQ(computeTotals(*report).failed, 1u);
}

TEST_F(BuildEngineTest, AProjectThatCannotBeOpenedIsAnError) {
  RecordingObserver observer;
  BuildRequest r;
  r.projectDir = (dir_->path() / "no-such-project").string();
  r.noCache = true;
  StatusOr<BuildReport> report = runBuild(r, observer);
  ASSERT_FALSE(report.ok());
  EXPECT_NE(report.status().message().find("no-such-project"),
            std::string::npos)
      << report.status().message();
  EXPECT_EQ(observer.planned, 0u);
}

} // namespace
} // namespace kb::workbench
