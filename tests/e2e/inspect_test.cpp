//===- tests/e2e/inspect_test.cpp - `kernel-bench inspect`, end to end ----===//
//
// The quickstart build inspected: both CUDA variants' PTX mix and both
// Vulkan variants' SPIR-V mix side by side, the listings and diffs in
// BUILD/inspect/<benchmark>/, the same figures as JSON. A copy that loads a
// float per instruction against its float4 twin
// (fixtures/inspect): the why line names the load widths. And every bad
// input: its message, exit code 1 and nothing left under BUILD/inspect/.
//
//===----------------------------------------------------------------------===//
#include "tests/support/cli_test_support.h"
#include "tests/support/vulkan_statistics_layer/statistics_layer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

namespace {

const fs::path kQuickstart = fs::path(KB_SOURCE_DIR) / "examples/quickstart";
const fs::path kScalarCopy =
    fs::path(KB_SOURCE_DIR) / "tests/e2e/fixtures/inspect";
constexpr const char *kSaxpy = "saxpy_1048576x1x1";

class InspectTest : public kb::test::KernelBenchTest {
protected:
  InspectTest() : KernelBenchTest("kb_inspect_test") {}

  /// The quickstart for |targets| (both when empty).
  void buildQuickstart(std::vector<std::string> targets = {"cuda:sm_90",
                                                           "vulkan:1.2"}) {
    std::vector<std::string> args = {"-j", "2"};
    for (const std::string &t : targets)
      args.insert(args.end(), {"--target", t});
    kb::test::CliRun built = buildProject(kQuickstart, args);
    ASSERT_EQ(built.exitCode, 0) << built.output;
  }
};

TEST_F(InspectTest, QuickstartShowsBothVariantsOfEachTarget) {
  REQUIRE_TOOL("nvcc");
  REQUIRE_TOOL("glslc");
  ASSERT_NO_FATAL_FAILURE(buildQuickstart());
  kb::test::CliRun r = run({"inspect", out_.string(), kSaxpy});
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("sm_90 "));
  EXPECT_THAT(r.output, HasSubstr("vulkan1.2 "));
  EXPECT_THAT(r.output, HasSubstr("PTX instructions"));
  EXPECT_THAT(r.output, HasSubstr("ld.global.f32"));
  EXPECT_THAT(r.output, HasSubstr("SPIR-V instructions"));
  EXPECT_THAT(r.output, HasSubstr("OpLoad StorageBuffer f32"));
  EXPECT_THAT(r.output, HasSubstr("why: "));
  fs::path dir = out_ / "inspect" / kSaxpy;
  for (const char *file :
       {"sm_90.candidate.ptx", "sm_90.reference.ptx",
        "sm_90.candidate.ptx.diff", "vulkan1.2.candidate.spvasm",
        "vulkan1.2.reference.spvasm", "vulkan1.2.candidate.spvasm.diff"})
    EXPECT_TRUE(fs::exists(dir / file)) << file;
  EXPECT_THAT(kb::test::readFile(dir / "sm_90.candidate.ptx.diff"),
              HasSubstr("+++ candidate.ptx"));
}

TEST_F(InspectTest, JsonCarriesEachVariantsMix) {
  REQUIRE_TOOL("nvcc");
  REQUIRE_TOOL("glslc");
  ASSERT_NO_FATAL_FAILURE(buildQuickstart());
  kb::test::CliRun r = run({"inspect", out_.string(), kSaxpy, "--json"});
  ASSERT_EQ(r.exitCode, 0) << r.output;
  nlohmann::json doc = nlohmann::json::parse(r.output);
  EXPECT_EQ(doc["schema_version"], 1);
  ASSERT_EQ(doc["benchmarks"].size(), 1u);
  std::map<std::string, std::set<std::string>> roles;
  for (const auto &t : doc["benchmarks"][0]["targets"]) {
    for (const auto &v : t["variants"]) {
      std::string mix = t["target"] == "sm_90" ? "ptx" : "spirv";
      if (v["format"] == "cubin")
        continue; // the compiler's cubin of its own PTX
      roles[t["target"]].insert(v["role"].get<std::string>());
      ASSERT_FALSE(v[mix].is_null()) << v.dump();
      EXPECT_GT(v[mix]["instructions"].get<int>(), 0) << v.dump();
    }
    EXPECT_FALSE(t["why"].empty()) << t.dump();
  }
  std::set<std::string> both = {"candidate", "reference"};
  EXPECT_EQ(roles["sm_90"], both);
  EXPECT_EQ(roles["vulkan1.2"], both);
}

TEST_F(InspectTest, ScalarCopyAgainstFloat4TwinNamesTheLoadWidth) {
  REQUIRE_TOOL("nvcc");
  REQUIRE_TOOL("ptxas");
  kb::test::CliRun built = buildProject(kScalarCopy);
  ASSERT_EQ(built.exitCode, 0) << built.output;
  kb::test::CliRun r = run({"inspect", out_.string()});
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("why: scalar loads (ld.global.f32 \u00D7"));
  EXPECT_THAT(r.output, HasSubstr(") where the reference uses ld.global.v4."));
  EXPECT_THAT(r.output, HasSubstr("theoretical occupancy"));
}

// The SASS half with a stand-in nvdisasm first in the CUDA toolkit's place
// (none is installed on CPU hosts): it is given the cubin ptxas made of the
// variant's PTX, and its listing is counted and written.
TEST_F(InspectTest, SassFromTheDisassemblerOfTheCubinPtxasWrote) {
  REQUIRE_TOOL("nvcc");
  REQUIRE_TOOL("ptxas");
  kb::test::CliRun built = buildProject(kScalarCopy);
  ASSERT_EQ(built.exitCode, 0) << built.output;
  fs::path bin = tmp_ / "toolkit/bin";
  fs::create_directories(bin);
  {
    std::ofstream script(bin / "nvdisasm");
    script << "#!/bin/sh\n"
              "head -c 4 \"$1\" | grep -q ELF || exit 3\n"
              "echo '        /*0000*/   LDG.E.128 R4, desc[UR4][R2.64] ; "
              "/* 0x0 */'\n"
              "echo '        /*0010*/   EXIT ; /* 0x0 */'\n";
  }
  fs::permissions(bin / "nvdisasm", fs::perms::owner_all);
  kb::test::CliRun r = run({"inspect", out_.string()},
                           {{"CUDA_PATH", (tmp_ / "toolkit").string()}});
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("SASS instructions"));
  EXPECT_THAT(r.output, Not(HasSubstr("note: SASS")));
  fs::path dir = out_ / "inspect/copy_scalar_65536x1x1";
  EXPECT_THAT(kb::test::readFile(dir / "sm_90.candidate.sass"),
              HasSubstr("LDG.E.128"));
  EXPECT_TRUE(fs::exists(dir / "sm_90.candidate.sass.diff"));
}

// The Vulkan driver's own statistics of each variant's pipeline. lavapipe
// has no VK_KHR_pipeline_executable_properties, so the statistics layer
// (tests/support/vulkan_statistics_layer) stands in for a driver that has
// it; without it the note says why there are none.
TEST_F(InspectTest, VulkanDriverStatisticsSitBesideTheSpirvMix) {
  REQUIRE_TOOL("glslc");
  KB_SKIP_WITHOUT_VULKAN_DEVICE();
  ASSERT_NO_FATAL_FAILURE(buildQuickstart({"vulkan:1.2"}));
  kb::test::CliRun r = run({"inspect", out_.string(), kSaxpy, "--json"},
                           kb::test::withStatisticsLayer({}));
  ASSERT_EQ(r.exitCode, 0) << r.output;
  nlohmann::json report = nlohmann::json::parse(r.output);
  EXPECT_FALSE(report["statistics_device"].is_null());
  const nlohmann::json &variants =
      report["benchmarks"][0]["targets"][0]["variants"];
  ASSERT_EQ(variants.size(), 2u) << r.output;
  std::vector<double> words;
  for (const nlohmann::json &v : variants) {
    SCOPED_TRACE(v["label"].get<std::string>());
    ASSERT_EQ(v["driver_statistics"].size(), 1u) << v.dump();
    const nlohmann::json &stats = v["driver_statistics"][0]["statistics"];
    ASSERT_GE(stats.size(), 1u);
    EXPECT_EQ(stats[0]["name"], "SPIR-V words");
    words.push_back(stats[0]["number"].get<double>());
  }
  // The candidate's module and the generated one differ in size: the
  // statistic is each pipeline's own.
  EXPECT_GT(words[0], 0);
  EXPECT_NE(words[0], words[1]);

  kb::test::CliRun text = run({"inspect", out_.string(), kSaxpy},
                              kb::test::withStatisticsLayer({}));
  ASSERT_EQ(text.exitCode, 0) << text.output;
  EXPECT_THAT(text.output, HasSubstr("driver: SPIR-V words"));
  EXPECT_THAT(text.output, HasSubstr("driver statistics from "));
}

TEST_F(InspectTest, ADriverWithoutStatisticsIsANoteAndNoneAsksForNone) {
  REQUIRE_TOOL("glslc");
  KB_SKIP_WITHOUT_VULKAN_DEVICE();
  ASSERT_NO_FATAL_FAILURE(buildQuickstart({"vulkan:1.2"}));
  kb::test::CliRun r = run({"inspect", out_.string(), kSaxpy});
  ASSERT_EQ(r.exitCode, 0) << r.output;
  // lavapipe has no statistics and says so; a GPU's driver (NVIDIA, RADV)
  // has them.
  if (r.output.find("driver statistics from ") == std::string::npos)
    EXPECT_THAT(r.output,
                HasSubstr("note: driver statistics: the driver does not offer "
                          "VK_KHR_pipeline_executable_properties"));
  else
    EXPECT_THAT(r.output, HasSubstr("driver: "));
  kb::test::CliRun none =
      run({"inspect", out_.string(), kSaxpy, "--device", "none"});
  ASSERT_EQ(none.exitCode, 0) << none.output;
  EXPECT_THAT(none.output, HasSubstr("note: driver statistics: not asked for"));
  EXPECT_THAT(none.output, Not(HasSubstr("driver statistics from")));
  kb::test::CliRun cuda =
      run({"inspect", out_.string(), kSaxpy, "--device", "cuda"});
  EXPECT_EQ(cuda.exitCode, 2) << cuda.output;
  EXPECT_THAT(cuda.output, HasSubstr("driver statistics come from Vulkan"));
  // A device the user named must exist.
  kb::test::CliRun missing =
      run({"inspect", out_.string(), kSaxpy, "--device", "vulkan:9"});
  EXPECT_EQ(missing.exitCode, 1) << missing.output;
  EXPECT_THAT(missing.output, HasSubstr("--device vulkan:9: no Vulkan device"));
}

TEST_F(InspectTest, MissingBuildDirectoryIsNamed) {
  fs::path missing = tmp_ / "no-build";
  kb::test::CliRun r = run({"inspect", missing.string()});
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("kernel-bench inspect: error: " +
                                  missing.string() + ": no such directory"));
  EXPECT_THAT(r.output, HasSubstr("kernel-bench build"));
  EXPECT_FALSE(fs::exists(missing));
}

TEST_F(InspectTest, DirectoryWithoutBenchmarksSaysWhatToBuild) {
  fs::create_directories(tmp_ / "empty");
  kb::test::CliRun r = run({"inspect", (tmp_ / "empty").string()});
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("holds no benchmark module"));
  EXPECT_FALSE(fs::exists(tmp_ / "empty/inspect"));
}

TEST_F(InspectTest, UnknownBenchmarkSuggestsTheNearest) {
  REQUIRE_TOOL("glslc");
  ASSERT_NO_FATAL_FAILURE(buildQuickstart({"vulkan:1.2"}));
  kb::test::CliRun r = run({"inspect", out_.string(), "saxpy_1048576x1"});
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("no benchmark `saxpy_1048576x1`"));
  EXPECT_THAT(r.output, HasSubstr("did you mean `saxpy_1048576x1x1`?"));
  EXPECT_FALSE(fs::exists(out_ / "inspect"));
}

TEST_F(InspectTest, CorruptModuleIsNamedAndNothingIsWritten) {
  REQUIRE_TOOL("glslc");
  ASSERT_NO_FATAL_FAILURE(buildQuickstart({"vulkan:1.2"}));
  fs::path module = out_ / "bench" / (std::string(kSaxpy) + ".kbm");
  ASSERT_TRUE(fs::exists(module));
  fs::resize_file(module, fs::file_size(module) / 2);
  kb::test::CliRun r = run({"inspect", out_.string()});
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr(module.string()));
  EXPECT_THAT(r.output, HasSubstr("rebuild"));
  EXPECT_FALSE(fs::exists(out_ / "inspect"));
}

TEST_F(InspectTest, MissingBuildArgumentIsAUsageError) {
  kb::test::CliRun r = run({"inspect"});
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_THAT(r.output, Not(HasSubstr("Segmentation")));
}

} // namespace
