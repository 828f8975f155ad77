//===- workbench/project/tune_space_test.cpp ------------------------------===//
// kernel.toml's [tune] (lists, ranges, powers of two, constraints), the
// conflict rule, tuned.toml, the space's enumeration and sampling, and every
// bad input (file:line, what was expected, what to do).
#include "workbench/project/job_plan.h"
#include "workbench/project/kernel_toml.h"
#include "workbench/project/declared_expression.h"
#include "workbench/project/tune_space.h"
#include "workbench/project/tuned_toml.h"

#include "common/file_util.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <optional>

namespace fs = std::filesystem;
using ::testing::HasSubstr;

namespace kb::workbench {
namespace {

using toolchains::Language;

constexpr const char *kAbi = R"(
[abi]
workgroup_size = [64, 1, 1]
bindings = [{ name = "x", type = "f32", access = "readwrite" }]
)";

class TuneSpaceTest : public ::testing::Test {
protected:
  void SetUp() override {
    auto made = TempDir::create(fs::temp_directory_path(), "kb_tune_space");
    ASSERT_TRUE(made.ok());
    temp_.emplace(std::move(*made));
    std::ofstream(dir_.path() / "k.comp") << "// glsl\n";
    std::ofstream(dir_.path() / "k.cu") << "// cuda\n";
  }

  StatusOr<Kernel> load(const std::string &tune,
                        const std::string &kernelExtra = "",
                        const std::string &rest = "") {
    std::ofstream(dir_.path() / "kernel.toml")
        << "[kernel]\nname = \"k\"\nsources = [\"k.cu\", \"k.comp\"]\n"
        << kernelExtra << kAbi << rest << "\n[tune]\n"
        << tune;
    return loadKernel(dir_.path() / "kernel.toml", {});
  }
  std::string error(const std::string &tune,
                    const std::string &kernelExtra = "",
                    const std::string &rest = "") {
    auto kernel = load(tune, kernelExtra, rest);
    EXPECT_FALSE(kernel.ok());
    return kernel.ok() ? "" : kernel.status().message();
  }

  struct Dir {
    std::optional<TempDir> *temp;
    const fs::path &path() const { return (*temp)->path(); }
  };
  std::optional<TempDir> temp_;
  Dir dir_{&temp_};
};

std::vector<int64_t> valuesOf(const Kernel &k, const std::string &name) {
  const TuneParameter *p = k.tune.find(name);
  return p ? p->values : std::vector<int64_t>{};
}

TEST_F(TuneSpaceTest, ReadsListsRangesAndPowersOfTwo) {
  auto k = load("A = [1, 3, 3, 2]\nB = { range = [0, 6, 3] }\n"
                "C = { pow2 = [4, 64] }\nD = { range = [1, 3] }\n"
                "S = { values = [8, 16], as = \"specialization\" }\n"
                "constraints = [\"A <= C\", \"B % 2 == 0 || D == 1\"]\n");
  ASSERT_TRUE(k.ok()) << k.status().message();
  EXPECT_EQ(valuesOf(*k, "A"), (std::vector<int64_t>{1, 3, 2}));
  EXPECT_EQ(valuesOf(*k, "B"), (std::vector<int64_t>{0, 3, 6}));
  EXPECT_EQ(valuesOf(*k, "C"), (std::vector<int64_t>{4, 8, 16, 32, 64}));
  EXPECT_EQ(valuesOf(*k, "D"), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(k->tune.find("S")->apply, TuneApply::Specialization);
  EXPECT_EQ(k->tune.find("A")->apply, TuneApply::Define);
  EXPECT_EQ(k->tune.size(), 3u * 3 * 5 * 3 * 2);
  ASSERT_EQ(k->tune.constraints.size(), 2u);
  EXPECT_THAT(k->tune.constraints[0].where, HasSubstr("kernel.toml:"));
  // Without tuned.toml nothing is defined: the source's defaults apply.
  for (const auto &spec : k->specs)
    EXPECT_TRUE(spec.defines.empty());
}

TEST_F(TuneSpaceTest, EnumeratesWhatTheConstraintsAllow) {
  auto k = load("TILE = { pow2 = [8, 64] }\nUNROLL = [1, 2, 4, 8, 16]\n"
                "constraints = [\"UNROLL <= TILE / 4\", \"TILE % 16 == 0\"]\n");
  ASSERT_TRUE(k.ok()) << k.status().message();
  auto all = enumerateConfigurations(k->tune);
  ASSERT_TRUE(all.ok()) << all.status().message();
  // TILE 16: UNROLL 1..4 (3); 32: 1..8 (4); 64: 1..16 (5).
  EXPECT_EQ(all->size(), 12u);
  for (const TuneValues &v : *all) {
    EXPECT_LE(v.at("UNROLL"), v.at("TILE") / 4);
    EXPECT_EQ(v.at("TILE") % 16, 0);
  }
  EXPECT_EQ(configurationKey(all->front()), "TILE=16 UNROLL=1");
  std::mt19937_64 rng(7);
  auto some = sampleConfigurations(k->tune, 5, rng);
  ASSERT_TRUE(some.ok());
  EXPECT_EQ(some->size(), 5u);
  for (const TuneValues &v : *some)
    EXPECT_EQ(v.at("TILE") % 16, 0);
}

TEST_F(TuneSpaceTest, ACheckLeavesOutWhatCannotBeLaunched) {
  auto k = load("TILE = [8, 16, 32]\nWPT = [1, 2]\n");
  ASSERT_TRUE(k.ok()) << k.status().message();
  // As `tune` uses it: a launch past 256 invocations is not a candidate.
  ConfigurationCheck check = [](const TuneValues &v) {
    return v.at("TILE") * v.at("TILE") / v.at("WPT") <= 256
               ? okStatus()
               : invalidArgument("too many invocations");
  };
  auto all = enumerateConfigurations(k->tune, check);
  ASSERT_TRUE(all.ok()) << all.status().message();
  std::vector<std::string> keys;
  for (const TuneValues &v : *all)
    keys.push_back(configurationKey(v));
  EXPECT_THAT(keys, ::testing::ElementsAre("TILE=8 WPT=1", "TILE=8 WPT=2",
                                           "TILE=16 WPT=1", "TILE=16 WPT=2"));
  std::mt19937_64 rng(1);
  auto sample = sampleConfigurations(k->tune, 6, rng, check);
  ASSERT_TRUE(sample.ok());
  EXPECT_EQ(sample->size(), 4u);
  // Nothing passes: the first rejection says why.
  auto none = enumerateConfigurations(
      k->tune, [](const TuneValues &) { return invalidArgument("no"); });
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(none.status().message(),
              HasSubstr("no configuration that satisfies the constraints can "
                        "be launched; the first: TILE=8 WPT=1: no"));
}

TEST_F(TuneSpaceTest, AConstraintNothingSatisfiesIsNamed) {
  auto k = load("TILE = [8, 16]\nconstraints = [\"TILE >= 8\", "
                "\"TILE * TILE > 4096\"]\n");
  ASSERT_TRUE(k.ok()) << k.status().message();
  auto all = enumerateConfigurations(k->tune);
  ASSERT_FALSE(all.ok());
  EXPECT_THAT(all.status().message(),
              HasSubstr("constraint `TILE * TILE > 4096` holds for none of "
                        "the 2 configurations"));
  EXPECT_THAT(all.status().message(), HasSubstr("kernel.toml:"));
}

TEST_F(TuneSpaceTest, ConstraintsThatNeverHoldTogetherAreNamedTogether) {
  auto k = load("TILE = [8, 16]\nconstraints = [\"TILE < 12\", "
                "\"TILE > 12\"]\n");
  ASSERT_TRUE(k.ok()) << k.status().message();
  auto all = enumerateConfigurations(k->tune);
  ASSERT_FALSE(all.ok());
  EXPECT_THAT(all.status().message(),
              HasSubstr("no configuration of [tune] satisfies the constraints "
                        "together: `TILE < 12` ("));
  EXPECT_THAT(all.status().message(), HasSubstr("kernel.toml:"));
  EXPECT_THAT(all.status().message(), HasSubstr("`TILE > 12` ("));
}

TEST_F(TuneSpaceTest, BadConstraintsFailAtLoad) {
  EXPECT_THAT(error("TILE = [8]\nconstraints = [\"TILEX <= 4\"]\n"),
              HasSubstr("unknown name `TILEX`; known names: TILE"));
  EXPECT_THAT(error("TILE = [8]\nconstraints = [\"TILE <=\"]\n"),
              HasSubstr("column 8"));
  EXPECT_THAT(error("TILE = [8]\nconstraints = [\"TILE % 0 == 0\"]\n"),
              HasSubstr("division by zero"));
}

TEST_F(TuneSpaceTest, BadValuesSayWhatIsExpected) {
  EXPECT_THAT(error("TILE = 8\n"), HasSubstr("a list of integers"));
  EXPECT_THAT(error("TILE = []\n"), HasSubstr("a non-empty array"));
  EXPECT_THAT(error("TILE = [1.5]\n"), HasSubstr("an integer"));
  EXPECT_THAT(error("TILE = { pow2 = [3, 8] }\n"), HasSubstr("powers of two"));
  EXPECT_THAT(error("TILE = { range = [8, 1] }\n"), HasSubstr("lo <= hi"));
  EXPECT_THAT(error("TILE = { range = [0, 100000] }\n"),
              HasSubstr("more than 4096 values"));
  EXPECT_THAT(error("TILE = { range = [1, 2], pow2 = [1, 2] }\n"),
              HasSubstr("exactly one of"));
  EXPECT_THAT(error("TILE = { values = [1], as = \"macro\" }\n"),
              HasSubstr("\"specialization\""));
  EXPECT_THAT(error("constraints = []\n"), HasSubstr("declares no parameter"));
  EXPECT_TRUE(load("TILE = [1]\n").ok());
}

TEST_F(TuneSpaceTest, ANameIsTunedOrFixedNotBoth) {
  std::string e = error("TILE = [8, 16]\n", "defines = { TILE = 8 }\n");
  EXPECT_THAT(e, HasSubstr("`TILE` is tuned ([tune]) and also fixed in "
                           "[kernel.defines]"));
  EXPECT_THAT(e, HasSubstr("kernel.toml:"));
  e = error("TILE = [8, 16]\n", "", "[specialization]\nTILE = 8\n");
  EXPECT_THAT(e, HasSubstr("also fixed in [specialization]"));
}

TEST_F(TuneSpaceTest, TunedTomlSetsTunedNamesPerBackend) {
  TuneSpace space;
  space.parameters.push_back({"S", {1, 2}, TuneApply::Specialization, ""});
  space.parameters.push_back({"TILE", {8, 16}, TuneApply::Define, ""});
  // Without a device: the sources' own values. With one: a spec of its own
  // for that model beside the source's.
  std::vector<TunedEntry> entries = {
      {"", "vulkan", "vulkan:1.2", 12.5, {{"S", 2}, {"TILE", 16}}, ""},
      {"", "cuda", "cuda:sm_90", std::nullopt, {{"TILE", 8}}, ""},
      {"NVIDIA H200", "cuda", "cuda:sm_90", 1.0, {{"TILE", 16}}, ""},
      {"nvidia h200!", "cuda", "cuda:sm_90", 1.0, {{"TILE", 8}}, ""}};
  ASSERT_TRUE(writeTunedToml(dir_.path() / "tuned.toml", entries).ok());
  auto k = load("TILE = [8, 16]\nS = { values = [1, 2], as = "
                "\"specialization\" }\n");
  ASSERT_TRUE(k.ok()) << k.status().message();
  for (const auto &spec : k->specs) {
    ASSERT_EQ(spec.defines.size(), 1u);
    EXPECT_EQ(spec.defines[0].second,
              spec.language == Language::Cuda ? "8" : "16");
    EXPECT_EQ(spec.tunedFor, "");
    if (spec.language == Language::Glsl) {
      ASSERT_EQ(spec.specialization.size(), 1u);
      EXPECT_EQ(spec.specialization[0].value, "2");
    }
  }
  ASSERT_EQ(k->tunedSpecs.size(), 2u);
  EXPECT_EQ(k->tunedSpecs[0].tunedFor, "NVIDIA H200");
  EXPECT_EQ(k->tunedSpecs[0].name, "k@nvidia-h200");
  EXPECT_EQ(k->tunedSpecs[0].language, Language::Cuda);
  EXPECT_EQ(k->tunedSpecs[0].defines,
            (std::vector<std::pair<std::string, std::string>>{{"TILE", "16"}}));
  // Two models with one file name: the second is numbered.
  EXPECT_EQ(k->tunedSpecs[1].name, "k@nvidia-h200-2");
  // One model on both backends: one directory (the files differ by name);
  // a long name is cut, a hash of it keeping names apart.
  std::vector<TunedEntry> models = {
      {"NVIDIA H200", "vulkan", "", std::nullopt, {{"TILE", 8}}, ""},
      {"NVIDIA H200", "cuda", "", std::nullopt, {{"TILE", 8}}, ""},
      {std::string(300, 'q'), "cuda", "", std::nullopt, {{"TILE", 8}}, ""}};
  ASSERT_TRUE(writeTunedToml(dir_.path() / "tuned.toml", models).ok());
  auto m = load("TILE = [8, 16]\n");
  ASSERT_TRUE(m.ok()) << m.status().message();
  ASSERT_EQ(m->tunedSpecs.size(), 3u);
  EXPECT_EQ(m->tunedSpecs[0].name, "k@nvidia-h200");
  EXPECT_EQ(m->tunedSpecs[1].name, "k@nvidia-h200");
  EXPECT_EQ(m->tunedSpecs[2].name.size(), std::string("k@").size() + 64);
  EXPECT_EQ(m->tunedSpecs[2].tunedFor, std::string(300, 'q'));
  ASSERT_TRUE(writeTunedToml(dir_.path() / "tuned.toml", entries).ok());
  k = load("TILE = [8, 16]\nS = { values = [1, 2], as = "
           "\"specialization\" }\n");
  ASSERT_TRUE(k.ok()) << k.status().message();
  // The jobs: each source for its target, and the tuned CUDA copies beside.
  Project project;
  project.kernels.push_back(*k);
  auto jobs = planJobs(
      project, {*Target::parse("cuda:sm_90"), *Target::parse("vulkan:1.2")});
  ASSERT_TRUE(jobs.ok()) << jobs.status().message();
  ASSERT_EQ(jobs->size(), 4u);
  EXPECT_EQ((*jobs)[1].spec->tunedFor, "NVIDIA H200");
  EXPECT_EQ((*jobs)[2].spec->tunedFor, "nvidia h200!");
  EXPECT_EQ((*jobs)[3].spec->language, Language::Glsl);
  // A name tuned.toml sets that [tune] does not tune.
  std::ofstream(dir_.path() / "tuned.toml")
      << "[[best]]\nbackend = \"vulkan\"\nvalues = { BLOCK = 4 }\n";
  EXPECT_THAT(error("TILE = [8, 16]\n"),
              HasSubstr("`BLOCK` is not tuned by the kernel's [tune]"));
  // Entries `tune` would never write, each refused where it is.
  const std::pair<std::string, std::string> bad[] = {
      {"values = { TILE = 8 }\n", ":1:1: [[best]] has no `backend`"},
      {"backend = \"Vulkan\"\nvalues = { TILE = 8 }\n",
       ":2:11: `backend`: expected \"cuda\" or \"vulkan\""},
      {"backend = \"vulkan\"\n", "[[best]] has no `values`"},
      {"backend = \"vulkan\"\ntarget = \"cuda:sm_90\"\nvalues = { TILE = 8 "
       "}\n",
       "`target`: expected a vulkan target"},
      {"backend = \"vulkan\"\nmedian_ns = -5.0\nvalues = { TILE = 8 }\n",
       "`median_ns`: expected a positive number"},
      {"backend = \"vulkan\"\nvalues = { TILE = 16, S = 2 }\n",
       "S=2 TILE=16 breaks the constraint `TILE * S <= 16`"},
  };
  for (const auto &[entry, message] : bad) {
    SCOPED_TRACE(entry);
    std::ofstream(dir_.path() / "tuned.toml") << "[[best]]\n" << entry;
    EXPECT_THAT(error("TILE = [8, 16]\nS = { values = [1, 2], default = 1 "
                      "}\nconstraints = [\"TILE * S <= 16\"]\n"),
                HasSubstr(message));
  }
  // A directory is not a tuned.toml.
  fs::remove(dir_.path() / "tuned.toml");
  fs::create_directory(dir_.path() / "tuned.toml");
  EXPECT_THAT(error("TILE = [8, 16]\n"), HasSubstr("tuned.toml is not a file"));
  fs::remove(dir_.path() / "tuned.toml");
  std::ofstream(dir_.path() / "tuned.toml")
      << "[[best]]\nbackend = \"cuda\"\nvalues = { TILE = 8 }\n";
  // A tuned.toml without [tune].
  std::ofstream(dir_.path() / "kernel.toml")
      << "[kernel]\nname = \"k\"\nsources = [\"k.cu\"]\n"
      << kAbi;
  auto plain = loadKernel(dir_.path() / "kernel.toml", {});
  ASSERT_FALSE(plain.ok());
  EXPECT_THAT(plain.status().message(), HasSubstr("has no [tune]"));
}

TEST_F(TuneSpaceTest, BenchConstantListsAreProblemSizeAxes) {
  auto write = [&](const std::string &tune) {
    std::ofstream(dir_.path() / "kernel.toml")
        << "[kernel]\nname = \"k\"\nsources = [\"k.comp\"]\n"
           "[abi]\nworkgroup_size = [64, 1, 1]\n"
           "bindings = [{ name = \"x\", type = \"f32\", access = "
           "\"readwrite\" }]\n"
           "constants = [{ name = \"n\", type = \"u32\" }, { name = "
           "\"m\", type = \"u32\" }]\n"
           "[bench]\nworkload = [\"n*m\"]\nconstants = { n = [256, 1024], "
           "m = 2 }\nelements = { x = \"n*m\" }\n"
        << tune;
  };
  write("[tune]\nTILE = [1, 2]\n");
  auto k = loadKernel(dir_.path() / "kernel.toml", {});
  ASSERT_TRUE(k.ok()) << k.status().message();
  ASSERT_EQ(k->bench->axes.size(), 1u);
  EXPECT_EQ(k->bench->axes[0].first, "n");
  EXPECT_EQ(k->bench->axes[0].second,
            (std::vector<std::string>{"256", "1024"}));
  EXPECT_EQ(k->bench->constantValues[0], "256"); // the first by default
  EXPECT_EQ(k->bench->workload[0], 512);
  ProblemSize big = {{"n", "1024"}};
  k = loadKernel(dir_.path() / "kernel.toml", {}, nullptr, &big);
  ASSERT_TRUE(k.ok()) << k.status().message();
  EXPECT_EQ(k->bench->constantValues[0], "1024");
  EXPECT_EQ(k->bench->elementCounts[0], 2048u);
  // Without [tune], a list is an error saying what lists are for.
  write("");
  k = loadKernel(dir_.path() / "kernel.toml", {});
  ASSERT_FALSE(k.ok());
  EXPECT_THAT(k.status().message(),
              HasSubstr("lists sweep the problem size for `kernel-bench "
                        "tune`, but this kernel has no [tune]"));
}

TEST(DeclaredConditionTest, ComparisonsAndRemainders) {
  std::map<std::string, double> n = {{"A", 6}, {"B", 4}};
  EXPECT_TRUE(*evaluateCondition("A * B <= 24", n));
  EXPECT_FALSE(*evaluateCondition("A % B == 0", n));
  EXPECT_TRUE(*evaluateCondition("A % 3 == 0 && !(B > 4)", n));
  EXPECT_TRUE(*evaluateCondition("A < B || B != 5", n));
  // Arithmetic expressions stay arithmetic.
  EXPECT_FALSE(evaluateExpression("A < B", n).ok());
}

} // namespace
} // namespace kb::workbench
