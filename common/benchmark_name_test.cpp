//===- common/benchmark_name_test.cpp - How a benchmark is named ----------===//
#include "common/benchmark_name.h"

#include <gtest/gtest.h>

namespace kb {
namespace {

TEST(BenchmarkName, SaysEachPartOnce) {
  EXPECT_EQ(benchmarkStem("main_dispatch_0", "main_dispatch_0"),
            "main_dispatch_0");
  EXPECT_EQ(benchmarkStem("matmul", "matmul_tiled"), "matmul_tiled");
  EXPECT_EQ(benchmarkStem("scale_bf16", "scale_kernel1"),
            "scale_bf16_scale_kernel1");
  // A shared start that is not the whole executable name is no repetition.
  EXPECT_EQ(benchmarkStem("scale", "scaled"), "scale_scaled");
  // A copy of a kernel (a sweep point, a tune configuration) says the
  // kernel once, with what it measures.
  EXPECT_EQ(benchmarkStem("copy-n4096", "copy"), "copy-n4096");
  EXPECT_EQ(benchmarkStem("mm-t0003-p1", "mm"), "mm-t0003-p1");
  EXPECT_EQ(benchmarkStem("copy-n4096", "cop"), "copy-n4096_cop");
}

TEST(BenchmarkName, RenamesTheEarlierCompositionOnly) {
  EXPECT_EQ(currentBenchmarkName("main_dispatch_0_main_dispatch_0_512x256x1",
                                 "main_dispatch_0", "main_dispatch_0"),
            "main_dispatch_0_512x256x1");
  EXPECT_EQ(currentBenchmarkName("saxpy_saxpy_1024x1x1_2", "saxpy", "saxpy"),
            "saxpy_1024x1x1_2");
  EXPECT_EQ(currentBenchmarkName("matmul_matmul_tiled_512x512x1", "matmul",
                                 "matmul_tiled"),
            "matmul_tiled_512x512x1");
  // Today's names, names that never repeated, and kernel names stay.
  for (const char *name :
       {"main_dispatch_0_512x256x1", "scale_bf16_scale_kernel1_1024x1x1",
        "my_saxpy_1024x1x1"})
    EXPECT_EQ(currentBenchmarkName(name, "saxpy", "saxpy"), name);
  EXPECT_EQ(currentBenchmarkName("scale_bf16_scale_kernel1_1024x1x1",
                                 "scale_bf16", "scale_kernel1"),
            "scale_bf16_scale_kernel1_1024x1x1");
}

} // namespace
} // namespace kb
