//===- workbench/bench/compute_sanitizer_test.cpp - Reading its reports ---===//
//
// The logs below are compute-sanitizer's own output as published in public
// bug reports and NVIDIA's guide (CUDA 12.2 to 13.x layouts: the kernel named
// before or after its offset, frames indented 5 or 9 spaces, racecheck's
// analysis and hazard reports, its summary without an ERROR SUMMARY).
//
//===----------------------------------------------------------------------===//
#include "workbench/bench/compute_sanitizer.h"

#include "common/file_util.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

namespace kb::workbench {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// memcheck, built with -lineinfo, CUDA 12.8+ frames; the program's own
// lines between the records.
constexpr const char *kMemcheck = R"(========= COMPUTE-SANITIZER
Before: Array 0, 1 .. N-1: 1.000000 1.000000 1.000000
========= Invalid __global__ read of size 4 bytes
=========     at scaleArray(float *, float)+0x70 in writeValidMem.cu:6
=========     by thread (255,0,0) in block (3,0,0)
=========     Address 0x7b95b4000ffc is out of bounds
=========     and is 1 bytes after the nearest allocation at 0x7b95b4000000 of size 4,092 bytes
=========     Saved host backtrace up to driver entry point at kernel launch time
=========         Host Frame: main [0x8ae3] in cs-writeValidMem
========= 
========= Program hit cudaErrorLaunchFailure (error 719) due to "unspecified launch failure" on CUDA API call to cudaDeviceSynchronize.
=========     Saved host backtrace up to driver entry point at error
=========         Host Frame: main [0x8a94] in cs-writeValidMem
========= 
After : Array 0, 1 .. N-1: 1.000000 1.000000 1.000000
========= ERROR SUMMARY: 2 errors
)";

TEST(ComputeSanitizerLog, MemcheckRecordsNameTheKernelLineAndThread) {
  CudaSanitizerLog log = parseComputeSanitizerLog(kMemcheck);
  EXPECT_EQ(log.errorSummary, 2);
  ASSERT_EQ(log.findings.size(), 2u);
  const CudaFinding &oob = log.findings[0];
  EXPECT_TRUE(oob.error);
  EXPECT_EQ(oob.kernel, "scaleArray");
  EXPECT_EQ(oob.line, "writeValidMem.cu:6");
  EXPECT_EQ(oob.thread, "thread (255,0,0) in block (3,0,0)");
  EXPECT_EQ(oob.message,
            "Invalid __global__ read of size 4 bytes; Address 0x7b95b4000ffc "
            "is out of bounds; and is 1 bytes after the nearest allocation at "
            "0x7b95b4000000 of size 4,092 bytes");
  // The API error that follows a fault is listed, not counted twice as the
  // kernel's error; the host backtrace is left out.
  EXPECT_FALSE(log.findings[1].error);
  EXPECT_EQ(log.findings[1].kernel, "");
  EXPECT_THAT(log.findings[1].message, HasSubstr("cudaErrorLaunchFailure"));
  EXPECT_THAT(log.findings[1].message, ::testing::Not(HasSubstr("Host Frame")));
}

TEST(ComputeSanitizerLog, WithoutLineInformationTheKernelIsStillNamed) {
  // CUDA 12.9, no -lineinfo: "Access at" instead of "Address".
  CudaSanitizerLog log = parseComputeSanitizerLog(
      "========= COMPUTE-SANITIZER\n"
      "========= Invalid __global__ write of size 4 bytes\n"
      "=========     at ckMedian(const uchar4 *, unsigned int *, int, int, "
      "int)+0x1960\n"
      "=========     by thread (0,3,0) in block (9495,0,0)\n"
      "=========     Access at 0x7f538b9e93c0 is out of bounds\n"
      "=========     Saved host backtrace up to driver entry point at kernel "
      "launch time\n"
      "=========         Host Frame: cudaLaunchKernel [0x83517] in main\n"
      "========= \n"
      "========= ERROR SUMMARY: 1 error\n");
  ASSERT_EQ(log.findings.size(), 1u);
  EXPECT_EQ(log.findings[0].kernel, "ckMedian");
  EXPECT_EQ(log.findings[0].line, "");
  EXPECT_EQ(log.findings[0].thread, "thread (0,3,0) in block (9495,0,0)");
  EXPECT_EQ(log.errorSummary, 1);
}

TEST(ComputeSanitizerLog, RacecheckAnalysisNamesTheAccessesAndItsSummary) {
  CudaSanitizerLog log = parseComputeSanitizerLog(
      "========= COMPUTE-SANITIZER\n"
      "========= Error: Race reported between Write access at "
      "blockReduceArray(int *, int *)+0xf0 in racecheck.cu:12\n"
      "=========     and Read access at blockReduceArray(int *, int *)+0xd0 "
      "in racecheck.cu:12 [32 hazards]\n"
      "=========     and Write access at blockReduceArray(int *, int *)+0xf0 "
      "in racecheck.cu:12 [4 hazards]\n"
      "========= \n"
      "After kernel - global sum = 8\n"
      "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 "
      "warnings)\n");
  EXPECT_EQ(log.errorSummary, 1) << "racecheck has no ERROR SUMMARY";
  ASSERT_EQ(log.findings.size(), 1u);
  EXPECT_TRUE(log.findings[0].error);
  EXPECT_EQ(log.findings[0].kernel, "blockReduceArray");
  EXPECT_EQ(log.findings[0].line, "racecheck.cu:12");
  EXPECT_THAT(log.findings[0].message,
              HasSubstr("; and Read access at blockReduceArray(int *, int "
                        "*)+0xd0 in racecheck.cu:12 [32 hazards]"));
}

TEST(ComputeSanitizerLog, OlderLayoutsAndWarningsAreRead) {
  // Before CUDA 12.3 the offset comes first and the kernel after the line;
  // a racecheck warning fails nothing.
  CudaSanitizerLog log = parseComputeSanitizerLog(
      "========= COMPUTE-SANITIZER\n"
      "========= Warning: Race reported between Read access at 0x1f20 in "
      "/home/k/Kokkos_Cuda_Parallel_Range.hpp:249:reduce_kernel(int *)\n"
      "=========     and Write access at 0x14b0 in /home/k/ReduceScan.hpp:349:"
      "reduce_kernel(int *) [4 hazards]\n"
      "========= \n"
      "========= RACECHECK SUMMARY: 1 hazard displayed (0 errors, 1 "
      "warning)\n");
  ASSERT_EQ(log.findings.size(), 1u);
  EXPECT_FALSE(log.findings[0].error);
  EXPECT_EQ(log.findings[0].kernel, "reduce_kernel");
  EXPECT_EQ(log.findings[0].line, "Kokkos_Cuda_Parallel_Range.hpp:249");
  EXPECT_EQ(log.errorSummary, 0);
}

TEST(ComputeSanitizerLog, HazardInitcheckAndSynccheckRecords) {
  CudaSanitizerLog hazard = parseComputeSanitizerLog(
      "========= Error: Potential WAW hazard detected at __shared__ 0x404 in "
      "block (0,0,0) :\n"
      "=========     Write Thread (23,0,0) at kernel+0x1a0 in kernel.ttgir:32\n"
      "=========     Write Thread (24,0,0) at kernel+0x1a0 in kernel.ttgir:32\n"
      "=========     Current Value : 2, Incoming Value : 3\n");
  ASSERT_EQ(hazard.findings.size(), 1u);
  EXPECT_EQ(hazard.findings[0].kernel, "kernel");
  EXPECT_EQ(hazard.findings[0].line, "kernel.ttgir:32");
  EXPECT_EQ(hazard.errorSummary, -1) << "no summary: the tool did not finish";

  CudaSanitizerLog init = parseComputeSanitizerLog(
      "========= Uninitialized __global__ memory read of size 4 bytes\n"
      "=========     at row_kernel(const uchar4 *, unsigned int *, int, int, "
      "int, int, float, unsigned int)+0x490\n"
      "=========     by thread (32,0,0) in block (0,0,0)\n"
      "=========     Address 0x7ff538e00040\n"
      "=========\n"
      "========= ERROR SUMMARY: 1 error\n");
  ASSERT_EQ(init.findings.size(), 1u);
  EXPECT_EQ(init.findings[0].kernel, "row_kernel");
  EXPECT_EQ(init.findings[0].message,
            "Uninitialized __global__ memory read of size 4 bytes; Address "
            "0x7ff538e00040");

  CudaSanitizerLog sync = parseComputeSanitizerLog(
      "========= Barrier error detected. Divergent thread(s) in warp.\n"
      "=========     at illegal_sync_kernel(int *)+0xa0 in "
      "09_debug_and_sanitizer.cu:61\n"
      "=========     by thread (19,0,0) in block (0,0,0)\n"
      "=========     Saved host backtrace up to driver entry point at kernel "
      "launch time\n"
      "=========         Host Frame: main [0x1754] in app\n"
      "=========\n"
      "========= ERROR SUMMARY: 1 error\n"
      "========= ERROR SUMMARY: 0 errors were not printed. Use --print-limit "
      "option to adjust the number of printed errors\n");
  ASSERT_EQ(sync.findings.size(), 1u);
  EXPECT_EQ(sync.findings[0].kernel, "illegal_sync_kernel");
  EXPECT_EQ(sync.findings[0].line, "09_debug_and_sanitizer.cu:61");
  EXPECT_EQ(sync.errorSummary, 1) << "the first summary line counts";
}

TEST(ComputeSanitizerArgv, EachToolReportsToItsLogAndKeepsTheExitStatus) {
  std::vector<std::string> argv = computeSanitizerArgv(
      "/cuda/bin/compute-sanitizer", CudaCheck::Racecheck, "logs/racecheck.log",
      {"kernel-bench", "__worker", "run"});
  EXPECT_THAT(argv,
              ElementsAre("/cuda/bin/compute-sanitizer", "--tool", "racecheck",
                          "--log-file", "logs/racecheck.log", "--print-limit",
                          "1000", "--error-exitcode", "0", "--racecheck-report",
                          "analysis", "kernel-bench", "__worker", "run"));
  EXPECT_THAT(computeSanitizerArgv("cs", CudaCheck::Memcheck, "m.log", {}),
              ElementsAre("cs", "--tool", "memcheck", "--log-file", "m.log",
                          "--print-limit", "1000", "--error-exitcode", "0",
                          "--leak-check", "no"));
}

module::Module ptxModule() {
  module::Module m;
  module::Executable exe;
  exe.name = "copy";
  module::Variant candidate;
  candidate.format = hal::ExecutableFormat::Ptx;
  candidate.role = module::VariantRole::Candidate;
  candidate.exports.resize(1);
  candidate.exports[0].entry = "copy_scalar";
  module::Variant reference = candidate;
  reference.role = module::VariantRole::Reference;
  reference.exports[0].entry = "_Z11copy_float4PKfPfj"; // mangled
  exe.variants = {candidate, reference};
  m.executables = {exe};
  return m;
}

TEST(ComputeSanitizerAttribution, KernelsAreFoundByTheirEntryDemangled) {
  module::Module m = ptxModule();
  EXPECT_EQ(attributeCudaKernel(m, "copy_scalar"),
            "`copy` export 0, the handwritten kernel");
  EXPECT_EQ(attributeCudaKernel(m, "copy_float4"),
            "`copy` export 0, the reference kernel");
  EXPECT_EQ(attributeCudaKernel(m, "other"), "kernel `other`");
}

TEST(ComputeSanitizerFindings, NothingTheToolSawIsDropped) {
  auto dir = TempDir::create(fs::temp_directory_path(), "kb_cs_test.");
  ASSERT_TRUE(dir.ok());
  module::Module m = ptxModule();
  fs::path log = dir->path() / "memcheck.log";
  // No log: the pass did not run.
  std::vector<SanitizerFinding> f = cudaFindings(CudaCheck::Memcheck, log, m);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_TRUE(f[0].error);
  EXPECT_THAT(f[0].message, HasSubstr("wrote no report"));

  ASSERT_TRUE(writeFileAtomic(log, "========= COMPUTE-SANITIZER\n"
                                   "========= Invalid __global__ write of "
                                   "size 4 bytes\n"
                                   "=========     at copy_scalar+0x90 in "
                                   "copy_scalar.cu:7\n"
                                   "=========     by thread (0,0,0) in block "
                                   "(256,0,0)\n"
                                   "=========     Address 0x10 is out of "
                                   "bounds\n"
                                   "========= ERROR SUMMARY: 3 errors\n")
                  .ok());
  f = cudaFindings(CudaCheck::Memcheck, log, m);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].where, "memcheck, `copy` export 0, the handwritten kernel, "
                        "copy_scalar.cu:7, thread (0,0,0) in block (256,0,0)");
  EXPECT_TRUE(f[0].error);
  EXPECT_THAT(f[1].message,
              HasSubstr("counted 3 error(s) and printed 1 (--print-limit)"));

  ASSERT_TRUE(writeFileAtomic(log, "========= COMPUTE-SANITIZER\n").ok());
  f = cudaFindings(CudaCheck::Memcheck, log, m);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_THAT(f[0].message, HasSubstr("has no summary"));

  // A program that died under the tool is an error, not a clean pass.
  ASSERT_TRUE(writeFileAtomic(log, "========= COMPUTE-SANITIZER\n"
                                   "========= Error: process didn't "
                                   "terminate successfully\n"
                                   "========= ERROR SUMMARY: 0 errors\n")
                  .ok());
  f = cudaFindings(CudaCheck::Memcheck, log, m);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_TRUE(f[0].error);
  EXPECT_THAT(f[0].message, HasSubstr("didn't terminate successfully"));
}

TEST(ComputeSanitizerFindings, ApiErrorsAreWarningsAndTheSummaryCountsThem) {
  // The summary counts the API error too: no "not printed" finding.
  auto dir = TempDir::create(fs::temp_directory_path(), "kb_cs_test.");
  ASSERT_TRUE(dir.ok());
  fs::path log = dir->path() / "memcheck.log";
  ASSERT_TRUE(writeFileAtomic(log, kMemcheck).ok());
  std::vector<SanitizerFinding> f =
      cudaFindings(CudaCheck::Memcheck, log, ptxModule());
  ASSERT_EQ(f.size(), 2u);
  EXPECT_TRUE(f[0].error);
  EXPECT_FALSE(f[1].error);
  EXPECT_THAT(f[1].message, HasSubstr("cudaErrorLaunchFailure"));
}

TEST(ComputeSanitizerFindings, OneSiteFromManyThreadsIsOneFinding) {
  auto dir = TempDir::create(fs::temp_directory_path(), "kb_cs_test.");
  ASSERT_TRUE(dir.ok());
  fs::path log = dir->path() / "memcheck.log";
  std::string text = "========= COMPUTE-SANITIZER\n";
  for (int t = 0; t < 40; ++t)
    text += "========= Invalid __global__ write of size 4 bytes\n"
            "=========     at copy_scalar+0x90 in copy_scalar.cu:7\n"
            "=========     by thread (" +
            std::to_string(t) +
            ",0,0) in block (256,0,0)\n"
            "=========     Address 0x" +
            std::to_string(1000 + 4 * t) + " is out of bounds\n=========\n";
  // The runtime's own probe of the driver, failing by design: left out.
  text += "========= Program hit CUDA_ERROR_INVALID_VALUE (error 1) due to "
          "\"invalid argument\" on CUDA API call to cuFuncGetParamInfo.\n"
          "========= ERROR SUMMARY: 41 errors\n";
  ASSERT_TRUE(writeFileAtomic(log, text).ok());
  std::vector<SanitizerFinding> f =
      cudaFindings(CudaCheck::Memcheck, log, ptxModule());
  ASSERT_EQ(f.size(), 1u);
  EXPECT_THAT(f[0].where, HasSubstr("thread (0,0,0) in block (256,0,0)"));
  EXPECT_THAT(f[0].message, HasSubstr("the same from 39 more thread(s)"));
}

TEST(ComputeSanitizerAttribution, AKernelNamedLikeItsReferenceNamesBoth) {
  module::Module m = ptxModule();
  m.executables[0].variants[1].exports[0].entry = "copy_scalar";
  EXPECT_EQ(attributeCudaKernel(m, "copy_scalar"),
            "`copy` export 0, the handwritten or the reference kernel (both "
            "are named `copy_scalar`)");
  EXPECT_EQ(cudaVariantName(m, "copy_scalar"), "candidate or reference");
  // With no handwritten CUDA kernel the row calls the reference generated.
  m.executables[0].variants.erase(m.executables[0].variants.begin());
  EXPECT_EQ(cudaVariantName(m, "copy_scalar"), "generated");
  EXPECT_EQ(cudaVariantName(m, "other"), "-");
}

} // namespace
} // namespace kb::workbench
