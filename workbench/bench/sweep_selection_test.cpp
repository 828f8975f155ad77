//===- workbench/bench/sweep_selection_test.cpp ---------------------------===//
// `bench --sweep NAME=LO:HI`: the spec's forms and its usage errors, the
// points kept, a name nobody sweeps, and each benchmark's point read from
// build.json.
#include "workbench/bench/sweep_selection.h"

#include "common/file_util.h"
#include "workbench/bench/bench_plan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

namespace fs = std::filesystem;
using ::testing::HasSubstr;

namespace kb::workbench {
namespace {

TEST(SweepSelectionTest, ParsesNameLoHi) {
  StatusOr<SweepRange> r = parseSweepRange("n=4096:1048576");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->name, "n");
  EXPECT_EQ(r->lo, 4096);
  EXPECT_EQ(r->hi, 1048576);
  r = parseSweepRange("M_2=7:7");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->lo, r->hi);
  for (const char *bad : {"", "n", "n=4096", "n=:8", "n=1:", "=1:2", "n=a:8",
                          "n=8:4", "2n=1:2", "n=1:2:3", "n=1.5:2"}) {
    SCOPED_TRACE(bad);
    StatusOr<SweepRange> b = parseSweepRange(bad);
    ASSERT_FALSE(b.ok());
    EXPECT_EQ(b.status().code(), StatusCode::InvalidArgument);
    EXPECT_THAT(b.status().message(),
                HasSubstr("expected NAME=LO:HI, a swept [bench] constant"));
  }
}

PlannedBenchmark point(const std::string &kernel, int64_t n) {
  PlannedBenchmark p;
  p.displayName = kernel + "_" + std::to_string(n) + "x1x1";
  p.kernel = kernel;
  p.sweep = {"copy", {{"n", n}}};
  return p;
}

TEST(SweepSelectionTest, KeepsThePointsInRange) {
  std::vector<PlannedBenchmark> planned = {
      point("copy-n1024", 1024), point("copy-n4096", 4096),
      point("copy-n16384", 16384), point("copy-n65536", 65536)};
  PlannedBenchmark plain;
  plain.displayName = "saxpy_1024x1x1";
  planned.push_back(plain);
  ASSERT_TRUE(selectSweep({"n", 4096, 16384}, planned, "").ok());
  ASSERT_EQ(planned.size(), 2u);
  EXPECT_EQ(planned[0].kernel, "copy-n4096");
  EXPECT_EQ(planned[1].kernel, "copy-n16384");
}

TEST(SweepSelectionTest, ANameNobodySweepsSaysWhichAre) {
  std::vector<PlannedBenchmark> planned = {point("copy-n1024", 1024)};
  Status s = selectSweep({"m", 1, 2}, planned, "");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("--sweep m=1:2: no benchmark of this "
                                     "build sweeps `m`; swept: n"));
  EXPECT_EQ(planned.size(), 1u);
  std::vector<PlannedBenchmark> none(1);
  s = selectSweep({"n", 1, 2}, none, "");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("none is swept"));
}

TEST(SweepSelectionTest, PointsComeFromBuildJson) {
  auto made = TempDir::create(fs::temp_directory_path(), "kb_sweep_plan");
  ASSERT_TRUE(made.ok());
  const fs::path dir = made->path();
  std::ofstream(dir / "build.json") << R"({"schema_version": 1,
    "generator": "kernel-bench", "project": {"name": "p", "directory": "/p",
    "manifest": "/p/workbench.toml", "targets": [], "program": null},
    "output_dir": "/o", "options": {"jobs": 1, "targets": [],
    "strict": false, "cache": {"enabled": false, "directory": null,
    "remote": null}, "timeout_seconds": 1, "kernels_only": false},
    "error": null, "skipped_targets": [], "broken_kernels": [],
    "tool_versions": {}, "jobs": [{"kernel": "copy-n4096",
    "target": "vulkan:1.2", "language": "glsl", "source": "c.comp",
    "manifest": "k.toml", "entry": "main", "tuned_for": null,
    "status": "ok", "error": null, "cache": "disabled", "seconds": 0,
    "shared_compile_with": null, "commands": [], "tool_versions": {},
    "outputs": [{"kind": "spv", "path": "a.spv", "sha256": "ab",
    "bytes": 1}], "resources": null, "declared": {"flops": null,
    "bytes_moved": null, "tolerance": {"abs": null, "rel": null,
    "ulp": null, "reduction_length": null}, "output_tolerances": [],
    "special_values": [], "sweep": {"kernel": "copy",
    "values": {"n": 4096}}}, "diagnostics": []}], "program": null,
    "totals": {"kernels": 1, "targets": 1, "jobs": 1, "succeeded": 1,
    "failed": 0, "cache_hits": 0, "remote_cache_hits": 0,
    "tool_seconds": 0, "wall_seconds": 0}})";
  std::vector<PlannedBenchmark> planned(2);
  planned[0].kernel = "copy-n4096";
  planned[1].kernel = "other";
  std::string why;
  attachSweepPoints(dir.string(), planned, why);
  EXPECT_EQ(why, "");
  EXPECT_EQ(planned[0].sweep.kernel, "copy");
  ASSERT_EQ(planned[0].sweep.values.size(), 1u);
  EXPECT_EQ(planned[0].sweep.values[0].second, 4096);
  EXPECT_TRUE(planned[1].sweep.empty());

  // Unreadable: no points, and why (for the message of a --sweep).
  fs::remove(dir / "build.json");
  std::vector<PlannedBenchmark> again(1);
  again[0].kernel = "copy-n4096";
  attachSweepPoints(dir.string(), again, why);
  EXPECT_TRUE(again[0].sweep.empty());
  EXPECT_NE(why, "");
}

} // namespace
} // namespace kb::workbench
