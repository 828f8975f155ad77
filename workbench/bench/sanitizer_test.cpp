//===- workbench/bench/sanitizer_test.cpp - Findings as a user reads them -===//
#include "workbench/bench/sanitizer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kb::workbench {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// What Debian's 1.3.239 layer reports for a read 100,000 elements past a
// 4096-element buffer under GPU-assisted validation (handles vary per run).
// The byte reached and the invocation caught first vary with the inputs and
// the thread schedule.
std::string outOfBounds(const std::string &commandBuffer,
                        const std::string &byte = "400003",
                        const std::string &invocation = "(0, 0, 0 )") {
  return "Validation Error: [ VUID-vkCmdDispatch-None-02706 ] Object 0: "
         "handle = 0x55d0, type = VK_OBJECT_TYPE_DEVICE; | MessageID = "
         "0x1d5b8ad2 | Descriptor index 0 access out of bounds. Descriptor "
         "size is 16384 and highest byte accessed was " +
         byte + " Command buffer (" + commandBuffer +
         "). Compute Dispatch Index 0. Pipeline (0xd000000000d). Shader "
         "Module (0xa000000000a). Shader Instruction Index = 83.  Stage = "
         "Compute.  Global invocation ID (x, y, z) = " +
         invocation +
         " Unable to find SPIR-V OpLine for source information.  Build shader "
         "with "
         "debug info to get source information. The Vulkan spec states: If "
         "the robustBufferAccess feature is not enabled ...";
}

TEST(Sanitizer, MessagesLoseHandlesIdsAndTheSpecsQuotation) {
  std::string brief = briefValidationMessage(outOfBounds("0x5597fd8b1740"));
  EXPECT_EQ(brief,
            "Validation Error: [ VUID-vkCmdDispatch-None-02706 ] Descriptor "
            "index 0 access out of bounds. Descriptor size is 16384 and "
            "highest byte accessed was 400003 Compute Dispatch Index 0. "
            "Shader Instruction Index = 83.  Stage = Compute.  Global "
            "invocation ID (x, y, z) = (0, 0, 0 )");
  EXPECT_THAT(brief, Not(HasSubstr("0x")));
}

// One finding per variant and site, naming every input set it came from
// and keeping the first input's message (here one reached another byte from
// another invocation); an error makes the row SANITIZER and keeps what
// INCORRECT said.
TEST(Sanitizer, BenchFindingsMergeAcrossInputsAndSetTheStatus) {
  BenchFindings findings;
  findings.log()->add(true, false,
                      outOfBounds("0x1", "408195", "(2048, 0, 0 )"));
  findings.afterRun("candidate", "seed +0");
  findings.log()->add(true, false, outOfBounds("0x2"));
  findings.afterRun("candidate", "seed +1");
  findings.log()->add(false, false, "Validation Warning: [ X ] a warning");
  findings.log()->add(false, true, "loader information, not a finding");
  findings.afterRun("reference", "seed +0");

  report::Benchmark b;
  b.status = report::BenchStatus::Incorrect;
  b.reason = "y differs";
  findings.applyTo(b);
  ASSERT_EQ(b.sanitizer.size(), 2u);
  EXPECT_EQ(b.sanitizer[0].inputs, "seed +0, seed +1");
  EXPECT_TRUE(b.sanitizer[0].error);
  EXPECT_THAT(b.sanitizer[0].message,
              HasSubstr("was 408195 Compute Dispatch Index 0"));
  EXPECT_THAT(b.sanitizer[0].message, HasSubstr("= (2048, 0, 0 )"));
  EXPECT_EQ(b.sanitizer[1].variant, "reference");
  EXPECT_FALSE(b.sanitizer[1].error);
  EXPECT_EQ(b.status, report::BenchStatus::Sanitizer);
  EXPECT_THAT(b.reason, HasSubstr("1 sanitizer error(s); first: candidate "
                                  "(inputs seed +0, seed +1): Validation "
                                  "Error: "));
  EXPECT_THAT(b.reason, HasSubstr("; also INCORRECT: y differs"));
  // An ERROR of the device is kept the same way.
  BenchFindings again;
  again.log()->add(true, false, outOfBounds("0x3"));
  again.afterRun("generated", "zeros");
  report::Benchmark failed;
  failed.status = report::BenchStatus::Error;
  failed.reason = "device lost";
  again.applyTo(failed);
  EXPECT_THAT(failed.reason, HasSubstr("first: generated (inputs zeros)"));
  EXPECT_THAT(failed.reason, HasSubstr("; also ERROR: device lost"));
}

// A guard band's damage is an error; how many of its bytes changed depends
// on the data written, so two input sets that wrote past the same buffer are
// one finding. No guard bands is a warning.
TEST(Sanitizer, GuardBandFindingsMergeAcrossInputs) {
  BenchFindings findings;
  module::GuardDamage d{0, "y", 4000, ElementType::F32, 0, 128, 4096};
  findings.afterRun("candidate", "seed +0", {{d}, ""});
  d.changedBytes = 127; // one written byte equalled the canary
  findings.afterRun("candidate", "zeros", {{d}, ""});
  findings.afterRun("reference", "seed +0", {{}, "no guard bands: why"});
  report::Benchmark b;
  findings.applyTo(b);
  ASSERT_EQ(b.sanitizer.size(), 2u);
  EXPECT_EQ(b.sanitizer[0].inputs, "seed +0, zeros");
  EXPECT_THAT(b.sanitizer[0].message, HasSubstr("128 of its 4096 guard"));
  EXPECT_TRUE(b.sanitizer[0].error);
  EXPECT_FALSE(b.sanitizer[1].error);
  EXPECT_EQ(b.status, report::BenchStatus::Sanitizer);
}

TEST(Sanitizer, WarningsAloneLeaveTheStatus) {
  BenchFindings findings;
  findings.log()->add(false, false, "Validation Warning: [ X ] a warning");
  findings.afterRun("candidate", "zeros");
  report::Benchmark b;
  findings.applyTo(b);
  EXPECT_EQ(b.status, report::BenchStatus::Ok);
  ASSERT_EQ(b.sanitizer.size(), 1u);
}

} // namespace
} // namespace kb::workbench
