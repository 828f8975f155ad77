//===- tests/e2e/subgroup_test.cpp - a kernel's subgroup size, end to end -===//
//
// A GLSL kernel written for subgroups of a given width (lane 0 of each
// subgroup writes subgroupAdd's total at gl_GlobalInvocationID.x / LANES) ran
// on lavapipe (8 lanes) and reported a mismatch, not an error. With
// kernel.toml's `subgroup_size` the .kbm says what the kernel needs: a device
// that cannot give it SKIPS the run and the benchmark with the reason
// (before any dispatch), one that can (its size read from `devices`) runs it
// at that size and agrees with the reference. Skips without Vulkan.
//
//===----------------------------------------------------------------------===//
#include "tests/support/cli_test_support.h"

#include "common/kbm/kbm_generated.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <regex>

namespace fs = std::filesystem;
using ::testing::HasSubstr;

namespace {

constexpr const char *kShader = R"(// Sums of LANES consecutive elements,
// written for a GPU whose subgroups are LANES wide.
#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint LANES = 64u;

layout(set = 0, binding = 0) readonly buffer In { uint x[]; };
layout(set = 0, binding = 1) writeonly buffer Out { uint sums[]; };
layout(push_constant) uniform Constants { uint n; } pc;

void main() {
  uint i = gl_GlobalInvocationID.x;
  uint total = subgroupAdd(i < pc.n ? x[i] : 0u);
  if (gl_SubgroupInvocationID == 0u)
    sums[i / LANES] = total;
}
)";

/// The reference: invocations at multiples of |lanes| add |lanes| elements.
std::string reference(int workgroup, int lanes) {
  std::string wg = std::to_string(workgroup), s = std::to_string(lanes);
  return R"(kb.executable @lane_sum {
  kb.export @lane_sum bindings(x: u32 readonly, sums: u32 writeonly)
      constants(n: u32) workgroup_size = [)" +
         wg + R"(, 1, 1]
  builtin.module {
    func.func @lane_sum() {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %cwg = arith.constant )" +
         wg + R"( : index
      %cs = arith.constant )" +
         s + R"( : index
      %zero = arith.constant 0 : i32
      %x = kb.binding 0 : memref<?xi32>
      %sums = kb.binding 1 : memref<?xi32>
      %n_i32 = kb.constant 0 : i32
      %n = arith.index_castui %n_i32 : i32 to index
      %wg_id = kb.workgroup_id x
      %tid = gpu.thread_id x
      %base = arith.muli %wg_id, %cwg : index
      %i = arith.addi %base, %tid : index
      %lane = arith.remui %tid, %cs : index
      %lead = arith.cmpi eq, %lane, %c0 : index
      scf.if %lead {
        %s = scf.for %j = %c0 to %cs step %c1 iter_args(%acc = %zero) -> (i32) {
          %k = arith.addi %i, %j : index
          %in = arith.cmpi ult, %k, %n : index
          %next = scf.if %in -> (i32) {
            %v = memref.load %x[%k] : memref<?xi32>
            %a = arith.addi %acc, %v : i32
            scf.yield %a : i32
          } else {
            scf.yield %acc : i32
          }
          scf.yield %next : i32
        }
        %slot = arith.divui %i, %cs : index
        memref.store %s, %sums[%slot] : memref<?xi32>
      }
      return
    }
  }
}
)";
}

struct SubgroupRange {
  bool known = false; // a Vulkan device was listed
  int min = 0, max = 0;
};

class SubgroupTest : public kb::test::KernelBenchTest {
protected:
  SubgroupTest() : KernelBenchTest("kb_subgroup_test") {}
  void SetUp() override {
    REQUIRE_TOOL("glslc");
    REQUIRE_TOOL("spirv-val");
    KernelBenchTest::SetUp();
  }

  /// What `devices` says vulkan:0 lets a kernel require.
  SubgroupRange vulkanRange() {
    kb::test::CliRun d = run({"devices"});
    SubgroupRange range;
    size_t at = d.output.find("vulkan:0");
    if (at == std::string::npos)
      return range;
    std::smatch m;
    std::string rest = d.output.substr(at);
    range.known = true;
    if (std::regex_search(rest, m,
                          std::regex("required subgroup size +([0-9]+) to "
                                     "([0-9]+)"))) {
      range.min = std::stoi(m[1]);
      range.max = std::stoi(m[2]);
    }
    return range;
  }

  /// A project with lane_sum written for |lanes|-wide subgroups; with
  /// |declare|, its kernel.toml says so (subgroup_size, full subgroups).
  fs::path writeProject(int lanes, bool declare) {
    int workgroup = std::max(64, lanes);
    int n = workgroup * 64;
    fs::path project = tmp_ / "project";
    fs::create_directories(project / "lane_sum");
    std::ofstream(project / "workbench.toml")
        << "[project]\nname = \"subgroups\"\nkernels = [\"*\"]\n"
           "targets = [\"vulkan:1.2\"]\n";
    std::ofstream(project / "lane_sum/lane_sum.comp") << kShader;
    std::ofstream(project / "lane_sum/lane_sum.mlir")
        << reference(workgroup, lanes);
    std::ofstream(project / "lane_sum/kernel.toml")
        << "[kernel]\nname = \"lane_sum\"\nsource = \"lane_sum.comp\"\n\n"
        << "[abi]\nworkgroup_size = [" << workgroup << ", 1, 1]\n"
        << (declare ? "subgroup_size = " + std::to_string(lanes) +
                          "\nfull_subgroups = true\n"
                    : "")
        << "bindings = [\n"
           "  { name = \"x\", type = \"u32\", access = \"readonly\" },\n"
           "  { name = \"sums\", type = \"u32\", access = \"writeonly\" },\n"
           "]\nconstants = [{ name = \"n\", type = \"u32\" }]\n\n"
        << "[specialization]\nlocal_size_x = " << workgroup
        << "\nLANES = " << lanes << "\n\n"
        << "[bench]\nworkload = [\"n\"]\nconstants = { n = " << n
        << " }\nelements = { x = \"n\", sums = " << n / lanes
        << " }\nreference = \"lane_sum.mlir\"\n";
    return project;
  }

  kb::test::CliRun runKernel() {
    return run(
        {"run", (out_ / "standalone/lane_sum").string(), "--device", "vulkan"});
  }
  kb::test::CliRun bench() {
    return run({"bench", out_.string(), "-o", (tmp_ / "results").string(),
                "--device", "vulkan", "--quick"},
               {{"KB_CACHE_DIR", cache_.string()}});
  }
};

TEST_F(SubgroupTest, DevicesPrintsTheRequiredSubgroupSizeRange) {
  KB_SKIP_WITHOUT_VULKAN_DEVICE();
  kb::test::CliRun d = run({"devices"});
  ASSERT_THAT(d.output, HasSubstr("vulkan:0"));
  EXPECT_THAT(d.output, ::testing::ContainsRegex(
                            "required subgroup size +([0-9]+ to [0-9]+, full "
                            "subgroups (not )?supported|cannot be required)"));
}

TEST_F(SubgroupTest, DevicesJsonIsTheSameListingForScripts) {
  KB_SKIP_WITHOUT_VULKAN_DEVICE();
  kb::test::CliRun text = run({"devices"});
  kb::test::CliRun d = run({"devices", "--json"});
  ASSERT_EQ(d.exitCode, 0) << d.output;
  // stdout and stderr are one stream here; the driver may warn first
  // (lavapipe: not a conformant implementation).
  size_t start = d.output.find("{\n  \"schema_version\"");
  ASSERT_NE(start, std::string::npos) << d.output;
  nlohmann::json doc = nlohmann::json::parse(d.output.substr(start));
  EXPECT_EQ(doc.at("schema_version"), 1);
  const nlohmann::json *vulkan = nullptr;
  for (const nlohmann::json &driver : doc.at("drivers")) {
    EXPECT_TRUE(driver.at("status") == "ok" || driver.at("reason").is_string())
        << driver.dump();
    // Every driver the text lists, in the same words.
    EXPECT_THAT(text.output,
                HasSubstr(driver.at("name").get<std::string>() + ": "));
    if (driver.at("name") == "vulkan")
      vulkan = &driver;
  }
  ASSERT_NE(vulkan, nullptr) << d.output;
  const nlohmann::json &device = vulkan->at("devices").at(0);
  EXPECT_EQ(device.at("device"), "vulkan:0");
  EXPECT_THAT(text.output,
              HasSubstr("vulkan:0  " + device.at("name").get<std::string>()));
  EXPECT_EQ(device.at("limits").at("max_workgroup_size").size(), 3u);
  EXPECT_GT(device.at("limits").at("max_workgroup_invocations").get<int>(), 0);
  // Unknown figures are null, never a 0 to be taken for a measurement.
  for (const auto &[key, value] : device.items())
    EXPECT_FALSE(value.is_number() && value.get<double>() == 0 &&
                 key != "index")
        << key;
}

TEST_F(SubgroupTest, ASizeTheDeviceCannotGiveIsSkippedWithTheReason) {
  KB_SKIP_WITHOUT_VULKAN_DEVICE();
  SubgroupRange range = vulkanRange();
  ASSERT_TRUE(range.known) << "`kernel-bench devices` shows no vulkan:0";
  if (range.min && range.min <= 64 && 64 <= range.max)
    GTEST_SKIP() << "vulkan:0 gives 64-wide subgroups";
  // Built first without the declaration: adding it must rebuild the
  // program (its cached step would keep the old .kbm).
  ASSERT_EQ(buildProject(writeProject(64, false)).exitCode, 0);
  kb::test::CliRun rebuilt = buildProject(writeProject(64, true));
  ASSERT_EQ(rebuilt.exitCode, 0) << rebuilt.output;
  EXPECT_THAT(rebuilt.output, ::testing::Not(HasSubstr("programs cached")));

  // The .kbm carries the requirement on the handwritten variant.
  std::string bytes =
      kb::test::readFile(out_ / "standalone/lane_sum/program.kbm");
  flatbuffers::Verifier verifier(
      reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size());
  ASSERT_TRUE(kb::kbm::VerifyModuleBuffer(verifier));
  for (const kb::kbm::ExecutableVariant *v :
       *kb::kbm::GetModule(bytes.data())->executables()->Get(0)->variants()) {
    bool candidate = v->role() == kb::kbm::VariantRole::Candidate;
    EXPECT_EQ(v->exports()->Get(0)->subgroup_size(), candidate ? 64u : 0u);
    EXPECT_EQ(v->exports()->Get(0)->full_subgroups(), candidate);
  }

  kb::test::CliRun r = runKernel();
  EXPECT_EQ(r.exitCode, kb::test::kExitUnavailable) << r.output;
  EXPECT_THAT(r.output, HasSubstr("kernel-bench run: skipped:"));
  EXPECT_THAT(r.output, HasSubstr("requires subgroup size 64 with full "
                                  "subgroups, but vulkan:0"));
  EXPECT_THAT(r.output, ::testing::Not(HasSubstr("OUTPUTS DIFFER")));

  kb::test::CliRun b = bench();
  // Skipped, not failed (no ERROR row) -- but nothing was measured, and a
  // gate on this run must not pass: exit 5.
  EXPECT_EQ(b.exitCode, 5) << b.output;
  EXPECT_THAT(b.output, HasSubstr("nothing measured"));
  EXPECT_THAT(b.output, HasSubstr("SKIPPED"));
  EXPECT_THAT(b.output, HasSubstr("requires subgroup size 64"));
  nlohmann::json report = kb::test::readJsonFile(tmp_ / "results/bench.json");
  ASSERT_EQ(report.at("benchmarks").size(), 1u) << report.dump(2);
  EXPECT_EQ(report.at("benchmarks")[0].at("status"), "skipped");
  EXPECT_THAT(report.at("benchmarks")[0].at("reason").get<std::string>(),
              HasSubstr("requires subgroup size 64"));
}

TEST_F(SubgroupTest, WithoutTheDeclarationItWasAWrongAnswer) {
  // The bug as reported: nothing says the kernel needs 64 lanes.
  KB_SKIP_WITHOUT_VULKAN_DEVICE();
  SubgroupRange range = vulkanRange();
  ASSERT_TRUE(range.known) << "`kernel-bench devices` shows no vulkan:0";
  kb::test::CliRun d = run({"devices"});
  std::string vulkan = d.output.substr(d.output.find("vulkan:0"));
  if (std::regex_search(vulkan, std::regex("\n +subgroup size +64\n")))
    GTEST_SKIP() << "vulkan:0 runs 64-wide subgroups";
  ASSERT_EQ(buildProject(writeProject(64, false)).exitCode, 0);
  kb::test::CliRun r = runKernel();
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("OUTPUTS DIFFER"));
}

TEST_F(SubgroupTest, ASizeTheDeviceGivesRunsAndAgrees) {
  KB_SKIP_WITHOUT_VULKAN_DEVICE();
  SubgroupRange range = vulkanRange();
  ASSERT_TRUE(range.known) << "`kernel-bench devices` shows no vulkan:0";
  if (range.min == 0)
    GTEST_SKIP() << "vulkan:0 cannot be asked for a subgroup size";
  ASSERT_EQ(buildProject(writeProject(range.min, true)).exitCode, 0);
  kb::test::CliRun r = runKernel();
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("result: outputs agree"));
  kb::test::CliRun b = bench();
  EXPECT_EQ(b.exitCode, 0) << b.output;
  nlohmann::json report = kb::test::readJsonFile(tmp_ / "results/bench.json");
  ASSERT_EQ(report.at("benchmarks").size(), 1u) << report.dump(2);
  EXPECT_EQ(report.at("benchmarks")[0].at("status"), "ok") << report.dump(2);
}

} // namespace
