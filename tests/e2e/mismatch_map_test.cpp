//===- tests/e2e/mismatch_map_test.cpp - Where a wrong output is wrong ----===//
//
// A 128 x 128 matmul whose last 16 x 16 tile stops its dot product halfway,
// against a naive twin, on lavapipe: `bench` calls it INCORRECT and says
// where — the terminal gives the bounding box of the wrong elements and the
// count per tile (and so does `run`); report.html draws the output's mismatch
// map, whose wrong cells are exactly that tile's (rendered in headless
// Chromium).
//
//===----------------------------------------------------------------------===//
#include "runtime/testing/device_environment.h"
#include "tests/support/cli_test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <regex>
#include <set>

namespace fs = std::filesystem;
using ::testing::HasSubstr;

namespace {

const fs::path kSourceDir = KB_SOURCE_DIR;

class MismatchMapTest : public kb::test::KernelBenchTest {
protected:
  MismatchMapTest() : KernelBenchTest("kb_mismatch_map_test") {}

  void SetUp() override {
    KernelBenchTest::SetUp();
    KB_SKIP_WITHOUT_VULKAN_DEVICE();
    REQUIRE_TOOL("glslc");
  }
};

/// The (row, col) cells report.html marks wrong.
std::set<std::pair<int, int>> wrongCells(const std::string &html) {
  std::set<std::pair<int, int>> cells;
  static const std::regex cell(
      R"re(<rect class="wrong" data-cell="(\d+),(\d+)")re");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), cell);
       it != std::sregex_iterator(); ++it)
    cells.insert({std::stoi((*it)[1]), std::stoi((*it)[2])});
  return cells;
}

TEST_F(MismatchMapTest, AWrongLastTileIsDrawnAsThatTile) {
  kb::test::CliRun built =
      buildProject(kSourceDir / "tests/e2e/fixtures/mismatch_map");
  ASSERT_EQ(built.exitCode, 0) << built.output;
  fs::path results = tmp_ / "results";
  kb::test::CliRun r = run({"bench", out_.string(), "--device", "vulkan",
                            "--quick", "-o", results.string()});
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("INCORRECT"));
  EXPECT_THAT(
      r.output,
      HasSubstr("last_tile_128x128x1: candidate: output last_tile.c (inputs "
                "seed +0): 256 wrong of "
                "16384, rows 112-127, cols 112-127 of 128 x 128; per "
                "tile of 16 x 16: (7, 7) 256\n"));

  nlohmann::json report =
      nlohmann::json::parse(kb::test::readFile(results / "bench.json"));
  const nlohmann::json &c =
      report.at("benchmarks").at(0).at("variants").at(0).at("correctness");
  const nlohmann::json &map = c.at("mismatch_maps").at(0).at("map");
  EXPECT_EQ(map.at("shape"), nlohmann::json::array({128, 128}));
  EXPECT_EQ(map.at("top"), 112);
  EXPECT_EQ(map.at("left"), 112);

  // The map's wrong cells (64 x 64 cells of 2 x 2 elements) are exactly
  // the tile's: rows and columns 56-63.
  std::string html = kb::test::readFile(results / "report.html");
  std::set<std::pair<int, int>> expected;
  for (int row = 56; row < 64; ++row)
    for (int col = 56; col < 64; ++col)
      expected.insert({row, col});
  EXPECT_EQ(wrongCells(html), expected);
  EXPECT_THAT(kb::test::readFile(results / "report.md"),
              HasSubstr("rows 112-127, cols 112-127 of 128 x 128"));

  // `run` says the same under the first mismatches.
  kb::test::CliRun ran = run(
      {"run", (out_ / "standalone/last_tile").string(), "--device", "vulkan"});
  EXPECT_EQ(ran.exitCode, 1) << ran.output;
  EXPECT_THAT(ran.output,
              HasSubstr("    where: 256 wrong of 16384, rows 112-127, cols "
                        "112-127 of 128 x 128; per tile of 16 x 16: (7, 7) "
                        "256\n"));

  // Headless Chromium draws it, on a laptop and on a phone.
  kb::test::CliRun check = kb::test::checkHtmlRender(
      results / "report.html", tmp_ / "chromium",
      {"--dom-contains", "class=\"mismatch-map\"", "--dom-contains",
       "Where the outputs differ", "--width", "1280", "--width", "390"});
  if (check.exitCode == 77)
    GTEST_SKIP() << check.output;
  EXPECT_EQ(check.exitCode, 0) << check.output;
}

} // namespace
