//===- workbench/inspect/inspect_writer_test.cpp --------------------------===//
#include "workbench/inspect/inspect_writer.h"

#include "common/test_util.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

namespace kb::workbench {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

VariantInspection variant(const std::string &role, const std::string &label,
                          const std::string &ptx) {
  VariantInspection v;
  v.role = role;
  v.label = label;
  v.format = "ptx";
  v.listings.push_back({"ptx", ptx});
  return v;
}

InspectReport report(const fs::path &build) {
  BenchmarkInspection b;
  b.name = "copy_1024x1x1";
  b.targets.push_back(
      {"sm_90",
       {variant("candidate", "candidate", "ld.global.f32 %f1, [%rd1];\n"),
        variant("candidate", "tuned:NVIDIA H100/80GB", "ret;\n"),
        variant("reference", "reference", "ld.global.v4.f32 {%f1}, [%rd1];\n")},
       {}});
  return {build.string(), {b}};
}

TEST(InspectWriterTest, ListingsAndDiffsUnderTheBenchmarksDirectory) {
  TempDir tmp = testing::makeTempDir();
  InspectReport r = report(tmp.path());
  InspectTools tools = findInspectTools();
  if (!tools.diff)
    GTEST_SKIP() << "diff not found";
  ASSERT_TRUE(writeInspection(tools, r).ok());
  fs::path dir = tmp.path() / "inspect/copy_1024x1x1";
  EXPECT_EQ(r.benchmarks[0].outputDir, dir.string());
  EXPECT_EQ(testing::readFile(dir / "sm_90.reference.ptx"),
            "ld.global.v4.f32 {%f1}, [%rd1];\n");
  EXPECT_TRUE(fs::exists(dir / "sm_90.tuned_NVIDIA_H100_80GB.ptx"));
  std::string diff = testing::readFile(dir / "sm_90.candidate.ptx.diff");
  EXPECT_THAT(diff, HasSubstr("-ld.global.v4.f32 {%f1}, [%rd1];"));
  EXPECT_THAT(diff, HasSubstr("+ld.global.f32 %f1, [%rd1];"));
  EXPECT_THAT(diff, HasSubstr("--- reference.ptx"));
  EXPECT_EQ(r.benchmarks[0].files.size(), 5u);
  // Nothing staged is left beside it.
  size_t entries = std::distance(fs::directory_iterator(dir.parent_path()),
                                 fs::directory_iterator());
  EXPECT_EQ(entries, 1u);
}

TEST(InspectWriterTest, ASecondInspectReplacesTheFirst) {
  TempDir tmp = testing::makeTempDir();
  fs::path dir = tmp.path() / "inspect/copy_1024x1x1";
  fs::create_directories(dir);
  std::ofstream(dir / "stale.ptx") << "old";
  InspectReport r = report(tmp.path());
  ASSERT_TRUE(writeInspection(findInspectTools(), r).ok());
  EXPECT_FALSE(fs::exists(dir / "stale.ptx"));
  EXPECT_TRUE(fs::exists(dir / "sm_90.candidate.ptx"));
}

TEST(InspectWriterTest, AnUnwritableDestinationNamesItAndLeavesNothing) {
  TempDir tmp = testing::makeTempDir();
  std::ofstream(tmp.path() / "inspect") << "a file where the folder goes";
  InspectReport r = report(tmp.path());
  Status s = writeInspection(findInspectTools(), r);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr((tmp.path() / "inspect").string()));
  EXPECT_EQ(testing::readFile(tmp.path() / "inspect"),
            "a file where the folder goes");
}

TEST(InspectWriterTest, FileNamePartsStayInTheirDirectory) {
  EXPECT_EQ(fileNamePart("sm_90"), "sm_90");
  EXPECT_EQ(fileNamePart("../../etc"), ".._.._etc");
  EXPECT_EQ(fileNamePart(".."), "_..");
  EXPECT_EQ(fileNamePart(""), "_");
}

} // namespace
} // namespace kb::workbench
