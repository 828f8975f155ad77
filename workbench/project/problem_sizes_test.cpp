//===- workbench/project/problem_sizes_test.cpp ---------------------------===//
// `[bench] sweep`: its values in [tune]'s forms, the copy of each point
// loaded at its size and named after it, a project expanded into one kernel
// per point, and every bad sweep table (file:line:col, the key, what was
// expected).
#include "workbench/project/problem_sizes.h"

#include "common/file_util.h"
#include "workbench/project/kernel_toml.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <optional>

namespace fs = std::filesystem;
using ::testing::HasSubstr;

namespace kb::workbench {
namespace {

class ProblemSizesTest : public ::testing::Test {
protected:
  void SetUp() override {
    auto made = TempDir::create(fs::temp_directory_path(), "kb_sweep");
    ASSERT_TRUE(made.ok());
    temp_.emplace(std::move(*made));
    std::ofstream(dir() / "k.comp") << "// glsl\n";
  }
  fs::path dir() const { return temp_->path(); }

  /// A standalone kernel with constants n (u32), m (u32) and a (f32) whose
  /// [bench] ends with |bench|.
  StatusOr<Kernel> load(const std::string &bench,
                        const ProblemSize *size = nullptr) {
    std::ofstream(dir() / "kernel.toml")
        << "[kernel]\nname = \"k\"\nsources = [\"k.comp\"]\n"
           "[abi]\nworkgroup_size = [64, 1, 1]\n"
           "bindings = [{ name = \"x\", type = \"f32\", access = "
           "\"readwrite\" }]\n"
           "constants = [{ name = \"n\", type = \"u32\" }, { name = \"m\", "
           "type = \"u32\" }, { name = \"a\", type = \"f32\" }]\n"
           "[bench]\nworkload = [\"n\", \"m\"]\nelements = { x = \"n*m\" }\n"
        << bench << "\n";
    return loadKernel(dir() / "kernel.toml", {}, nullptr, size);
  }

  std::optional<TempDir> temp_;
};

TEST_F(ProblemSizesTest, EveryCombinationFirstAxisOutermost) {
  std::vector<ProblemSize> sizes =
      problemSizes({{"m", {"1", "2"}}, {"n", {"8", "16", "32"}}});
  ASSERT_EQ(sizes.size(), 6u);
  EXPECT_EQ(problemLabel(sizes[0]), "m=1 n=8");
  EXPECT_EQ(problemLabel(sizes[2]), "m=1 n=32");
  EXPECT_EQ(problemLabel(sizes[5]), "m=2 n=32");
  EXPECT_EQ(problemSizes({}).size(), 1u);
  EXPECT_EQ(sweepPointName({"copy", {{"n", 4096}}}), "copy-n4096");
  EXPECT_EQ(sweepPointName({"mm", {{"m", 64}, {"k", 128}}}), "mm-m64-k128");
}

TEST_F(ProblemSizesTest, ASweepTakesTuneValueFormsAndEachPointIsACopy) {
  const std::string bench = "constants = { m = 2, a = 1.5 }\n"
                            "sweep = { n = { pow2 = [1024, 8192] } }";
  StatusOr<Kernel> k = load(bench);
  ASSERT_TRUE(k.ok()) << k.status().message();
  ASSERT_EQ(k->bench->sweep.size(), 1u);
  EXPECT_EQ(k->bench->sweep[0].second,
            (std::vector<std::string>{"1024", "2048", "4096", "8192"}));
  EXPECT_TRUE(k->bench->axes.empty());
  // Loaded plainly: the kernel itself, at the first value.
  EXPECT_EQ(k->name, "k");
  EXPECT_EQ(k->bench->constantValues[0], "1024");
  EXPECT_TRUE(k->declared.sweep.empty());

  // At a point: the point's copy, its sizes evaluated there.
  ProblemSize size = {{"n", "4096"}};
  k = load(bench, &size);
  ASSERT_TRUE(k.ok()) << k.status().message();
  EXPECT_EQ(k->name, "k-n4096");
  EXPECT_EQ(k->specs.front().name, "k-n4096");
  EXPECT_EQ(k->bench->constantValues[0], "4096");
  EXPECT_EQ(k->bench->elementCounts[0], 8192u);
  EXPECT_EQ(k->bench->workload[0], 4096);
  EXPECT_EQ(k->declared.sweep.kernel, "k");
  ASSERT_EQ(k->declared.sweep.values.size(), 1u);
  EXPECT_EQ(k->declared.sweep.values[0].second, 4096);

  // A list and a range as well; no [tune] needed.
  k = load("constants = { a = 1.0 }\nsweep = { n = [64, 32, 64], m = { "
           "range = [1, 3] } }");
  ASSERT_TRUE(k.ok()) << k.status().message();
  ASSERT_EQ(k->bench->sweep.size(), 2u);
  EXPECT_EQ(k->bench->sweep[0].second, (std::vector<std::string>{"64", "32"}));
  EXPECT_EQ(k->bench->sweep[1].second,
            (std::vector<std::string>{"1", "2", "3"}));
}

TEST_F(ProblemSizesTest, AProjectGetsOneKernelPerPoint) {
  StatusOr<Kernel> k = load("constants = { a = 1.0 }\n"
                            "sweep = { n = [8, 16], m = [1, 2] }");
  ASSERT_TRUE(k.ok()) << k.status().message();
  Project project;
  project.kernels.push_back(*k);
  ASSERT_TRUE(expandSweeps(project).ok());
  std::vector<std::string> names;
  for (const Kernel &kernel : project.kernels)
    names.push_back(kernel.name);
  EXPECT_EQ(names, (std::vector<std::string>{"k-n16-m1", "k-n16-m2", "k-n8-m1",
                                             "k-n8-m2"}));
  EXPECT_EQ(project.kernels[0].bench->workload, (std::vector<int64_t>{16, 1}));
  // Expanded once: the copies are points already.
  ASSERT_TRUE(expandSweeps(project).ok());
  EXPECT_EQ(project.kernels.size(), 4u);

  // A point named like another kernel of the project is refused.
  Kernel other = *k;
  other.name = "k-n8-m1";
  other.bench.reset();
  Project clash;
  clash.kernels = {*k, other};
  Status status = expandSweeps(clash);
  ASSERT_FALSE(status.ok());
  EXPECT_THAT(status.message(),
              HasSubstr("the point `k-n8-m1` of kernel `k` has the name of "
                        "another kernel"));
}

TEST_F(ProblemSizesTest, BadSweepTablesAreLocatedErrors) {
  struct Case {
    std::string bench;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"constants = { m = 1, a = 1.0 }\nsweep = 4",
       "kernel.toml:12:9: `sweep`: expected a table"},
      {"constants = { m = 1, a = 1.0 }\nsweep = { q = [1] }",
       "unknown key `q` in [bench] sweep"},
      {"constants = { m = 1 }\nsweep = { a = [1, 2] }",
       "`bench.sweep.a`: constant `a` is f32; a sweep sizes the problem "
       "with integer constants"},
      {"constants = { n = 4, m = 1, a = 1.0 }\nsweep = { n = [1, 2] }",
       "[bench] constants `n` is swept by [bench] sweep; give its values in "
       "one place"},
      {"constants = { m = 1, a = 1.0 }\nsweep = { n = { pow2 = [1000, "
       "4096] } }",
       "kernel.toml:12:24: `bench.sweep.n.pow2`: expected [lo, hi], two powers "
       "of two with lo <= hi"},
      {"constants = { m = 1, a = 1.0 }\nsweep = { n = { pow2 = [2, 4], "
       "range = [1, 2] } }",
       "`bench.sweep.n`: expected exactly one of `values`, `range`, `pow2`"},
      {"constants = { m = 1, a = 1.0 }\nsweep = { n = \"big\" }",
       "`bench.sweep.n`: expected a list of integers, { range = [lo, hi] }"},
      {"constants = { m = 1, a = 1.0 }\nsweep = { n = [-1, 2] }",
       "`bench.sweep.n`: expected values that fit u32 (found -1)"},
      {"constants = { a = 1.0 }\nsweep = { n = { range = [1, 100] }, m = { "
       "range = [1, 3] } }",
       "[bench] sweep: more than 256 points (each is a benchmark)"},
      {"constants = { m = 1, a = 1.0 }\nsweep = {}",
       "`bench.sweep`: expected at least one integer [abi] constant"},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.bench);
    StatusOr<Kernel> k = load(c.bench);
    ASSERT_FALSE(k.ok());
    EXPECT_EQ(k.status().code(), StatusCode::InvalidArgument);
    EXPECT_THAT(k.status().message(), HasSubstr(c.message));
  }
}

} // namespace
} // namespace kb::workbench
