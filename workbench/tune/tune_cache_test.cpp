//===- workbench/tune/tune_cache_test.cpp - The tune cache's reader -------===//
//
// One bad line in a kernel's tune cache (edited by hand, written by another
// version, cut short) costs that line only: it is skipped and counted, and
// the good lines around it still read.
//
//===----------------------------------------------------------------------===//
#include "workbench/tune/tune_cache.h"

#include "common/test_util.h"

#include <gtest/gtest.h>

#include <fstream>

namespace kb::workbench {
namespace {

TuneMeasurement okMeasurement(double medianNs) {
  TuneMeasurement m;
  m.status = TuneMeasurement::Status::Ok;
  m.level = 1;
  m.medianNs = medianNs;
  m.gbPerSecond = 12.5;
  m.sizes = {{"n=1024", medianNs}};
  return m;
}

TEST(TuneCacheTest, SkipsAndCountsLinesOfTheWrongShape) {
  kb::TempDir dir = kb::testing::makeTempDir();
  std::string file = dir.file("k.jsonl");
  {
    auto cache = TuneCache::open(file, "dev");
    ASSERT_TRUE(cache.ok()) << cache.status().message();
    ASSERT_TRUE(cache->add("A", okMeasurement(100)).ok());
  }
  const char *bad[] = {
      R"({"device":5,"config":"X","result":{}})",
      R"({"device":"dev","config":"X","result":{"status":"ok","level":"1","median_ns":5}})",
      R"({"device":"dev","config":"X","result":{"status":"ok","median_ns":5,"gb_per_s":"fast"}})",
      R"({"device":"dev","config":"X","result":{"status":"ok","median_ns":5,"sizes":{"n":1}}})",
      R"({"device":"dev","config":"X","result":{"status":"ok","median_ns":5,"sizes":[{"problem":1}]}})",
      R"({"device":"dev","config":7,"result":{"status":"ok","median_ns":5}})",
      R"([1,2,3])",
      R"({"device":"dev","config":"Y","res)",
  };
  {
    std::ofstream out(file, std::ios::app);
    for (const char *line : bad)
      out << line << "\n";
    out << R"({"device":"other","config":"Z","result":{"status":"ok","median_ns":5}})"
        << "\n";
  }
  auto cache = TuneCache::open(file, "dev");
  ASSERT_TRUE(cache.ok()) << cache.status().message();
  EXPECT_EQ(cache->skippedLines(), std::size(bad));
  ASSERT_NE(cache->find("A", 1), nullptr);
  EXPECT_EQ(cache->find("A", 1)->medianNs, 100);
  EXPECT_EQ(cache->find("X", 0), nullptr);
  EXPECT_EQ(cache->find("Z", 0), nullptr); // another device's, not a bad line
  // Appending still works after bad lines, and reads back.
  ASSERT_TRUE(cache->add("B", okMeasurement(50)).ok());
  auto again = TuneCache::open(file, "dev");
  ASSERT_TRUE(again.ok());
  ASSERT_NE(again->find("B", 1), nullptr);
  EXPECT_EQ(again->find("B", 1)->sizes.size(), 1u);
}

TEST(TuneCacheTest, RefusesAFifoInsteadOfWaitingForAWriter) {
  kb::TempDir dir = kb::testing::makeTempDir();
  std::string file = dir.file("k.jsonl");
  ASSERT_EQ(::mkfifo(file.c_str(), 0600), 0);
  ::alarm(20);
  auto cache = TuneCache::open(file, "dev");
  ::alarm(0);
  ASSERT_FALSE(cache.ok());
  EXPECT_NE(cache.status().message().find("named pipe"), std::string::npos);
}

} // namespace
} // namespace kb::workbench
