//===- workbench/inspect/inspect_engine_test.cpp --------------------------===//
// One benchmark's variants grouped by target and ordered candidate, tuned,
// reference; the why lines compare like with like. No tool is given, so
// what needs one is a note.
#include "workbench/inspect/inspect_engine.h"
#include "workbench/inspect/inspect_why.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kb::workbench {
namespace {

using ::testing::HasSubstr;

module::Variant variant(module::VariantRole role, hal::ExecutableFormat format,
                        const std::string &target, const std::string &data,
                        const std::string &device = "") {
  module::Variant v;
  v.role = role;
  v.format = format;
  v.target = target;
  v.data = data;
  v.device = device;
  KernelAbi abi;
  abi.entry = "copy";
  abi.workgroupSize = {256, 1, 1};
  v.exports = {abi};
  return v;
}

LoadedBenchmark benchmark() {
  using Role = module::VariantRole;
  using Format = hal::ExecutableFormat;
  auto m = std::make_shared<module::Module>();
  module::Executable exe;
  exe.name = "copy";
  exe.variants = {
      variant(Role::Reference, Format::Ptx, "sm_90",
              "ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1];\n"),
      variant(Role::Reference, Format::Cubin, "sm_90",
              "\x7F"
              "ELF"),
      variant(Role::Candidate, Format::Ptx, "sm_90",
              "ld.global.f32 %f1, [%rd1];\n", "NVIDIA H200"),
      variant(Role::Candidate, Format::Ptx, "sm_90",
              "ld.global.f32 %f1, [%rd1];\nld.global.f32 %f2, [%rd2];\n"),
  };
  m->executables.push_back(exe);
  return {"copy_1024x1x1", "bench/copy_1024x1x1.kbm", m, 0, 0};
}

TEST(InspectEngineTest, ColumnsRunFromTheCandidateToTheReference) {
  BenchmarkInspection b = inspectBenchmark(benchmark(), InspectTools{});
  ASSERT_EQ(b.targets.size(), 1u);
  const TargetInspection &t = b.targets[0];
  ASSERT_EQ(t.variants.size(), 4u);
  EXPECT_EQ(t.variants[0].label, "candidate");
  EXPECT_EQ(t.variants[1].label, "tuned:NVIDIA H200");
  EXPECT_EQ(t.variants[2].label, "reference");
  EXPECT_EQ(t.variants[3].label, "reference-cubin");
  EXPECT_EQ(t.variants[0].ptx->globalLoads.at("ld.global.f32"), 2u);
  EXPECT_FALSE(t.variants[3].ptx.has_value());
}

TEST(InspectEngineTest, TheCandidateIsComparedWithThePtxReference) {
  BenchmarkInspection b = inspectBenchmark(benchmark(), InspectTools{});
  const TargetInspection &t = b.targets[0];
  ASSERT_FALSE(t.why.empty());
  EXPECT_EQ(t.why[0], "scalar loads (ld.global.f32 \u00D72) where the "
                      "reference uses ld.global.v4.f32");
  EXPECT_EQ(referenceFor(t, t.variants[0]), &t.variants[2]);
}

TEST(InspectEngineTest, WhatAMissingToolLeavesOutIsANote) {
  BenchmarkInspection b = inspectBenchmark(benchmark(), InspectTools{});
  const VariantInspection &candidate = b.targets[0].variants[0];
  EXPECT_FALSE(candidate.resources.has_value());
  ASSERT_FALSE(candidate.notes.empty());
  EXPECT_THAT(candidate.notes[0], HasSubstr("ptxas not found"));
}

} // namespace
} // namespace kb::workbench
