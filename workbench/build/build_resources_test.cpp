//===- workbench/build/build_resources_test.cpp - ptxas figures from ------===//
#include "workbench/build/build_resources.h"

#include "workbench/build/build_report.h"
#include "common/test_util.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace kb::workbench {
namespace {

namespace fs = std::filesystem;

/// This process's scratch directory, removed at exit.
const fs::path &scratchDir() {
  static kb::TempDir dir = kb::testing::makeTempDir();
  return dir.path();
}

fs::path writeJson(const std::string &name, const std::string &text) {
  fs::path path = scratchDir() / name;
  std::ofstream(path) << text;
  return path;
}

TEST(BuildResources, EveryOutputOfAJobMapsToItsResources) {
  fs::path path = writeJson("ok.json", R"({
    "schema_version": 1,
    "jobs": [
      {"kernel": "saxpy", "resources": {"registers": 40,
        "stack_frame_bytes": 16, "spill_store_bytes": 8,
        "spill_load_bytes": 4, "shared_memory_bytes": 1024, "barriers": 1,
        "constant_memory_bytes": 372},
       "outputs": [{"sha256": "aa"}, {"sha256": "bb"}]},
      {"kernel": "saxpy", "resources": null, "outputs": [{"sha256": "cc"}]}
    ]})");
  auto resources = readObjectResources(path);
  fs::remove(path);
  ASSERT_TRUE(resources.ok()) << resources.status().message();
  EXPECT_EQ(resources->size(), 2u);
  ASSERT_TRUE(resources->count("bb"));
  const toolchains::ResourceUsage &r = resources->at("aa");
  EXPECT_EQ(r.registers, 40u);
  EXPECT_EQ(r.stackFrameBytes, 16u);
  EXPECT_EQ(r.spillStoreBytes, 8u);
  EXPECT_EQ(r.spillLoadBytes, 4u);
  EXPECT_EQ(r.sharedMemoryBytes, 1024u);
  EXPECT_FALSE(resources->count("cc")); // a SPIR-V job has none
}

TEST(BuildResources, RefusesWhatItCannotRead) {
  EXPECT_EQ(readObjectResources("/nonexistent/build.json").status().code(),
            StatusCode::NotFound);
  fs::path newer = writeJson(
      "newer.json",
      "{\"schema_version\": " + std::to_string(kBuildReportSchemaVersion + 1) +
          ", \"jobs\": []}");
  auto r = readObjectResources(newer);
  fs::remove(newer);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("newer"), std::string::npos)
      << r.status().message();
  fs::path broken = writeJson("broken.json", "{\"schema_version\": 1, ");
  r = readObjectResources(broken);
  fs::remove(broken);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::InvalidArgument);
}

} // namespace
} // namespace kb::workbench
