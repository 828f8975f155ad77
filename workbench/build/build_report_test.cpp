//===- workbench/build/build_report_test.cpp - build.json -----------------===//
#include "workbench/build/build_report.h"

#include "common/test_util.h"

#include <gtest/gtest.h>

#include <fstream>

using json = nlohmann::ordered_json;

namespace kb::workbench {
namespace {

struct Fixture {
  Project project;
  BuildReport report;

  Fixture() {
    project.name = "demo";
    project.directory = "/p";
    project.manifest = "/p/workbench.toml";
    project.targets = {*Target::parse("cuda:sm_90")};
    Kernel kernel;
    kernel.name = "saxpy";
    kernel.manifest = "/p/k/kernel.toml";
    toolchains::KernelSpec spec;
    spec.name = "saxpy";
    spec.source = "/p/k/saxpy.cu";
    spec.entry = "saxpy";
    spec.manifest = kernel.manifest;
    kernel.specs.push_back(spec);
    project.kernels.push_back(kernel);

    // The fixture owns the project; the report only points at it.
    report.project =
        std::shared_ptr<const Project>(std::shared_ptr<void>(), &project);
    report.outputDir = "/p/kb-out";
    report.options.jobs = 2;
    report.options.cacheDir = "/cache";
    report.wallSeconds = 1.5;
  }

  JobRecord &addJob(const std::string &target, bool ok, bool hit) {
    JobRecord job;
    job.kernel = &project.kernels[0];
    job.spec = &project.kernels[0].specs[0];
    job.result.kernel = "saxpy";
    job.result.target = *Target::parse(target);
    job.result.cacheHit = hit;
    job.result.seconds = 0.25;
    job.result.toolVersions["nvcc"] = "Cuda compilation tools, release 13.0";
    toolchains::ToolInvocation nvcc;
    nvcc.tool = "nvcc";
    nvcc.argv = {"/usr/local/cuda/bin/nvcc", "-ptx", "a b.cu"};
    nvcc.seconds = 0.5;
    job.result.commands.push_back(nvcc);
    if (ok) {
      job.result.outputs.push_back({"ptx", "/p/kb-out/kernels/saxpy/sm_90.ptx",
                                    std::string(64, 'a'), 10});
      job.result.resources = toolchains::ResourceUsage{};
      job.result.resources->registers = 12;
    } else {
      job.result.status = invalidArgument("parameter 2: expected .u32");
      toolchains::Diagnostic d;
      d.tool = "nvcc";
      d.file = "/p/k/saxpy.cu";
      d.line = 3;
      d.column = 0;
      d.message = "expected a \";\"";
      job.result.diagnostics.push_back(d);
    }
    report.jobs.push_back(job);
    return report.jobs.back();
  }
};

TEST(BuildReportTest, RecordsJobsAndTotals) {
  Fixture f;
  f.addJob("cuda:sm_90", true, true);
  f.addJob("cuda:sm_80", false, false);
  json j = toJson(f.report);

  EXPECT_EQ(j["schema_version"], kBuildReportSchemaVersion);
  EXPECT_EQ(j["project"]["name"], "demo");
  EXPECT_EQ(j["tool_versions"]["nvcc"], "Cuda compilation tools, release 13.0");
  ASSERT_EQ(j["jobs"].size(), 2u);

  const json &ok = j["jobs"][0];
  EXPECT_EQ(ok["kernel"], "saxpy");
  EXPECT_EQ(ok["target"], "cuda:sm_90");
  EXPECT_EQ(ok["status"], "ok");
  EXPECT_TRUE(ok["error"].is_null());
  EXPECT_EQ(ok["cache"], "hit");
  EXPECT_EQ(ok["outputs"][0]["path"], "kernels/saxpy/sm_90.ptx");
  EXPECT_EQ(ok["outputs"][0]["bytes"], 10);
  EXPECT_EQ(ok["resources"]["registers"], 12);
  EXPECT_EQ(ok["commands"][0]["command_line"],
            "/usr/local/cuda/bin/nvcc -ptx 'a b.cu'");

  const json &failed = j["jobs"][1];
  EXPECT_EQ(failed["status"], "failed");
  EXPECT_EQ(failed["error"]["code"], "invalid argument");
  EXPECT_EQ(failed["cache"], "miss");
  EXPECT_TRUE(failed["outputs"].empty());
  EXPECT_TRUE(failed["resources"].is_null());
  EXPECT_EQ(failed["diagnostics"][0]["severity"], "error");
  EXPECT_EQ(failed["diagnostics"][0]["line"], 3);

  EXPECT_EQ(j["totals"]["jobs"], 2);
  EXPECT_EQ(j["totals"]["failed"], 1);
  EXPECT_EQ(j["totals"]["succeeded"], 1);
  EXPECT_EQ(j["totals"]["cache_hits"], 1);
  EXPECT_EQ(j["totals"]["kernels"], 1);
  EXPECT_EQ(j["totals"]["targets"], 2);
  EXPECT_DOUBLE_EQ(j["totals"]["tool_seconds"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(j["totals"]["wall_seconds"].get<double>(), 1.5);
}

TEST(BuildReportTest, CacheDisabledIsRecorded) {
  Fixture f;
  f.report.options.cacheEnabled = false;
  f.addJob("cuda:sm_90", true, false);
  json j = toJson(f.report);
  EXPECT_EQ(j["jobs"][0]["cache"], "disabled");
  EXPECT_TRUE(j["options"]["cache"]["directory"].is_null());
}

TEST(BuildReportTest, RemoteCacheIsRecordedWhenConfigured) {
  Fixture f;
  f.addJob("cuda:sm_90", true, true);
  EXPECT_TRUE(toJson(f.report)["options"]["cache"]["remote"].is_null());
  toolchains::RemoteTierStats stats;
  stats.hits = 3;
  stats.misses = 1;
  stats.uploads = 2;
  stats.corrupt = 1;
  stats.writesOff = true;
  stats.warnings = {"the server refuses uploads"};
  f.report.options.remoteCacheUrl = "http://cache:8080/kb";
  f.report.options.remoteCache = stats;
  json remote = toJson(f.report)["options"]["cache"]["remote"];
  EXPECT_EQ(remote["url"], "http://cache:8080/kb");
  EXPECT_EQ(remote["hits"], 3);
  EXPECT_EQ(remote["misses"], 1);
  EXPECT_EQ(remote["uploads"], 2);
  EXPECT_EQ(remote["corrupt"], 1);
  EXPECT_EQ(remote["reads_off"], false);
  EXPECT_EQ(remote["writes_off"], true);
  EXPECT_EQ(remote["warnings"], json::array({"the server refuses uploads"}));
}

TEST(BuildReportTest, NonFiniteDurationsStayValidJson) {
  Fixture f;
  f.addJob("cuda:sm_90", true, false).result.seconds = 0.0 / 0.0;
  std::string text = toJson(f.report).dump();
  EXPECT_EQ(text.find("NaN"), std::string::npos);
  EXPECT_NO_THROW(json::parse(text));
}

/// |doc| written to a file of |dir| and read back.
StatusOr<BuildRecord> readBack(const kb::TempDir &dir, const json &doc) {
  std::string path = dir.file("build.json");
  std::ofstream(path) << doc.dump(1);
  return readBuildRecord(path);
}

// What the writer records, the reader returns: one table drives both.
TEST(BuildReportTest, ReadsBackWhatItWrites) {
  Fixture f;
  f.addJob("cuda:sm_90", true, true);
  f.addJob("cuda:sm_80", false, false);
  kb::TempDir dir = kb::testing::makeTempDir();
  StatusOr<BuildRecord> read = readBack(dir, toJson(f.report));
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(toJson(*read), toJson(f.report)) << "the same document again";
  EXPECT_EQ(read->project.manifest, "/p/workbench.toml");
  ASSERT_EQ(read->jobs.size(), 2u);
  const BuildJobRecord &ok = read->jobs[0];
  EXPECT_EQ(ok.kernel, "saxpy");
  EXPECT_EQ(ok.target, "cuda:sm_90");
  EXPECT_EQ(ok.status, "ok");
  EXPECT_EQ(ok.cache, "hit");
  ASSERT_EQ(ok.outputs.size(), 1u);
  EXPECT_EQ(ok.outputs[0].path, "kernels/saxpy/sm_90.ptx");
  EXPECT_EQ(ok.outputs[0].sha256, std::string(64, 'a'));
  ASSERT_TRUE(ok.resources);
  EXPECT_EQ(ok.resources->registers, 12u);
  const BuildJobRecord &failed = read->jobs[1];
  ASSERT_TRUE(failed.error);
  EXPECT_EQ(failed.error->message, "parameter 2: expected .u32");
  ASSERT_EQ(failed.diagnostics.size(), 1u);
  EXPECT_EQ(failed.diagnostics[0].line, 3);
  EXPECT_EQ(read->options.jobs, 2u);
  EXPECT_EQ(read->totals.counts.failed, 1u);
}

TEST(BuildReportTest, ReaderNamesTheKeyWhatItExpectedAndWhatItFound) {
  Fixture f;
  f.addJob("cuda:sm_90", true, false);
  kb::TempDir dir = kb::testing::makeTempDir();
  json doc = toJson(f.report);
  doc["jobs"][0]["outputs"][0]["sha256"] = 7;
  StatusOr<BuildRecord> read = readBack(dir, doc);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().message(),
            dir.file("build.json") +
                ": jobs[0].outputs[0].sha256: expected a string, found a "
                "number");

  doc = toJson(f.report);
  doc["jobs"][0].erase("kernel");
  read = readBack(dir, doc);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().message(),
            dir.file("build.json") +
                ": jobs[0].kernel: missing (not a complete build.json; "
                "rebuild with kernel-bench build)");

  // What no reader needs may be absent: an older or hand-written file.
  doc = {{"schema_version", 1},
         {"jobs", {{{"kernel", "k"}, {"outputs", json::array()}}}}};
  read = readBack(dir, doc);
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(read->jobs[0].kernel, "k");
}

} // namespace
} // namespace kb::workbench
