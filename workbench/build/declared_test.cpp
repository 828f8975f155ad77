//===- workbench/build/declared_test.cpp - [roofline] and [tolerance] -----===//
//
// The figures a kernel.toml declares. Expressions evaluate over
// the [bench] constants, integer defines and the workload, with located
// errors (unknown name with the known ones, division by zero, a negative
// result, syntax); tolerances are non-negative numbers and name only the
// bindings the kernel writes; build.json carries them per job and reads
// back by object sha256.
//
//===----------------------------------------------------------------------===//
#include "common/file_util.h"
#include "workbench/build/build_report.h"
#include "workbench/project/declared_expression.h"
#include "workbench/build/declared_figures.h"
#include "workbench/project/kernel_toml.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>
#include <iterator>

namespace fs = std::filesystem;
using ::testing::HasSubstr;

namespace kb::workbench {
namespace {

TEST(DeclaredExpressionTest, EvaluatesArithmeticOverNames) {
  std::map<std::string, double> names = {{"M", 64}, {"N", 32}, {"K", 16}};
  EXPECT_EQ(*evaluateExpression("2*M*N*K", names), 65536);
  EXPECT_EQ(*evaluateExpression(" 4 * (M*K + K*N) - 8 / 2 ", names),
            4 * (64 * 16 + 16 * 32) - 4);
  EXPECT_EQ(*evaluateExpression("-M + 1e2", names), 36);
  EXPECT_EQ(*evaluateExpression("1.5", names), 1.5);
}

TEST(DeclaredExpressionTest, ErrorsSayWhatAndWhere) {
  std::map<std::string, double> names = {{"M", 64}, {"zero", 0}};
  auto unknown = evaluateExpression("2*M*Q", names);
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(unknown.status().message(), HasSubstr("column 5"));
  EXPECT_THAT(unknown.status().message(), HasSubstr("unknown name `Q`"));
  EXPECT_THAT(unknown.status().message(), HasSubstr("known names: M, zero"));
  // The name itself, for callers that explain why it has no value.
  std::string name;
  EXPECT_FALSE(evaluateExpression("M + (Q2 * R)", names, &name).ok());
  EXPECT_EQ(name, "Q2");
  name.clear();
  EXPECT_FALSE(evaluateExpression("M / zero", names, &name).ok());
  EXPECT_EQ(name, "") << "not an unknown name";
  auto byZero = evaluateExpression("M / (zero*2)", names);
  ASSERT_FALSE(byZero.ok());
  EXPECT_THAT(byZero.status().message(), HasSubstr("division by zero"));
  for (const char *bad : {"2*", "(M", "M M", "2 ** M", "", "M $ 2"})
    EXPECT_FALSE(evaluateExpression(bad, names).ok()) << bad;
  auto deep = evaluateExpression(std::string(100000, '(') + "1", names);
  ASSERT_FALSE(deep.ok());
  EXPECT_THAT(deep.status().message(), HasSubstr("levels deep"));
  EXPECT_FALSE(evaluateExpression(std::string(100000, '-') + "1", names).ok());
  EXPECT_FALSE(evaluateExpression("1e300 * 1e300", names).ok());
}

class DeclaredTomlTest : public ::testing::Test {
protected:
  void SetUp() override {
    auto dir = TempDir::create(fs::temp_directory_path(), "kb_declared_test_");
    ASSERT_TRUE(dir.ok()) << dir.status().message();
    dir_.emplace(std::move(*dir));
    root_ = dir_->path();
    std::ofstream(root_ / "k.comp") << "// glsl\n";
  }
  void TearDown() override { dir_.reset(); }

  /// A standalone matmul-shaped kernel with |extra| appended (and
  /// |cKeys| among the keys of binding `c`).
  StatusOr<Kernel> load(const std::string &extra,
                        const std::string &cKeys = "") {
    std::ofstream(root_ / "kernel.toml")
        << "[kernel]\nname = \"k\"\nsource = \"k.comp\"\n"
           "defines = { TILE = 16 }\n"
           "[abi]\nworkgroup_size = [16, 16, 1]\n"
           "bindings = [\n"
           "  { name = \"a\", type = \"f32\", access = \"readonly\" },\n"
           "  { name = \"b\", type = \"f32\", access = \"readonly\" },\n"
           "  { name = \"c\", type = \"f32\", access = \"writeonly\""
        << cKeys
        << " },\n"
           "]\n"
           "constants = [{ name = \"M\", type = \"u32\" }, "
           "{ name = \"N\", type = \"u32\" }, { name = \"K\", type = \"u32\" "
           "}]\n"
           "[bench]\nworkload = [\"N\", \"M\"]\n"
           "constants = { M = 64, N = 32, K = 128 }\n"
           "elements = { a = \"M*K\", b = \"K*N\", c = \"M*N\" }\n"
        << extra;
    return loadKernel(root_ / "kernel.toml", {});
  }

  std::string error(const std::string &extra, const std::string &cKeys = "") {
    auto kernel = load(extra, cKeys);
    EXPECT_FALSE(kernel.ok());
    return kernel.ok() ? "" : kernel.status().message();
  }

  std::optional<TempDir> dir_;
  fs::path root_;
};

TEST_F(DeclaredTomlTest, RooflineAndTolerancesAreEvaluated) {
  auto kernel = load("[roofline]\nflops = \"2*M*N*K\"\n"
                     "bytes_moved = \"4*(M*K + K*N + M*N)\"\n"
                     "[tolerance]\nabs = 1e-4\nrel = 0.001\nulp = 4\n"
                     "reduction_length = \"K\"\n"
                     "[tolerance.outputs.c]\nrel = 0.01\n"
                     "reduction_length = \"workload_x * TILE\"\n");
  ASSERT_TRUE(kernel.ok()) << kernel.status().message();
  const bench::KernelDeclared &d = kernel->declared;
  EXPECT_EQ(*d.flops, 2.0 * 64 * 32 * 128);
  EXPECT_EQ(*d.bytesMoved, 4.0 * (64 * 128 + 128 * 32 + 64 * 32));
  EXPECT_EQ(*d.tolerance.abs, 1e-4);
  EXPECT_EQ(*d.tolerance.rel, 1e-3);
  EXPECT_EQ(*d.tolerance.ulp, 4u);
  EXPECT_EQ(*d.tolerance.reductionLength, 128);
  ASSERT_EQ(d.outputTolerances.size(), 1u);
  EXPECT_EQ(d.outputTolerances[0].name, "c");
  EXPECT_EQ(d.outputTolerances[0].binding, 2u);
  EXPECT_EQ(*d.outputTolerances[0].tolerance.rel, 0.01);
  EXPECT_FALSE(d.outputTolerances[0].tolerance.abs);
  EXPECT_EQ(*d.outputTolerances[0].tolerance.reductionLength, 32 * 16);
}

TEST_F(DeclaredTomlTest, BadDeclarationsAreLocatedErrors) {
  std::string e = error("[roofline]\nflops = \"2*M*N*Z\"\n");
  EXPECT_THAT(e, HasSubstr("kernel.toml:18:"));
  EXPECT_THAT(e, HasSubstr("`flops`"));
  EXPECT_THAT(e, HasSubstr("unknown name `Z`"));
  EXPECT_THAT(e, HasSubstr("K, M, N, TILE, workload_x"));
  EXPECT_THAT(error("[roofline]\nflops = \"M / (N - 32)\"\n"),
              HasSubstr("division by zero"));
  e = error("[roofline]\nbytes_moved = \"M - N*K\"\n");
  EXPECT_THAT(e, HasSubstr("`bytes_moved` is -4032"));
  EXPECT_THAT(e, HasSubstr("expected a number >= 0"));
  EXPECT_THAT(error("[roofline]\nflops = true\n"), HasSubstr("`flops`"));
  EXPECT_THAT(error("[roofline]\nflop = 1\n"),
              HasSubstr("did you mean `flops`"));
  e = error("[tolerance]\nabs = \"1e-3\"\n");
  EXPECT_THAT(e, HasSubstr("kernel.toml:18:"));
  EXPECT_THAT(e, HasSubstr("[tolerance].abs`: expected a non-negative number"));
  EXPECT_THAT(error("[tolerance]\nrel = -0.5\n"),
              HasSubstr("non-negative finite number"));
  EXPECT_THAT(error("[tolerance]\nulp = 1.5\n"), HasSubstr("ulp"));
  EXPECT_THAT(error("[tolerance]\nreduction_length = 0\n"),
              HasSubstr("expected a number >= 1"));
  e = error("[tolerance.outputs.z]\nabs = 1\n");
  EXPECT_THAT(e, HasSubstr("unknown key `z` in [tolerance.outputs]"));
  EXPECT_THAT(e, HasSubstr("`c`"));
  // A read-only binding is not an output.
  EXPECT_THAT(error("[tolerance.outputs.a]\nabs = 1\n"),
              HasSubstr("unknown key `a`"));
  EXPECT_THAT(error("[tolerance.outputs.c]\nabss = 1\n"),
              HasSubstr("did you mean `abs`"));
}

TEST_F(DeclaredTomlTest, SpecialValuesAreDeclaredInBench) {
  auto kernel = load("");
  ASSERT_TRUE(kernel.ok()) << kernel.status().message();
  EXPECT_TRUE(kernel->declared.empty());
  // [bench] is above in the file: append the key by rewriting the table.
  std::string toml;
  {
    std::ifstream in(root_ / "kernel.toml");
    toml.assign(std::istreambuf_iterator<char>(in), {});
  }
  auto withSpecial = [&](const std::string &values) {
    std::ofstream(root_ / "kernel.toml")
        << toml << "special_values = " << values << "\n";
    return loadKernel(root_ / "kernel.toml", {});
  };
  auto both = withSpecial("[\"nan\", \"inf\"]");
  ASSERT_TRUE(both.ok()) << both.status().message();
  EXPECT_TRUE(both->declared.nanInputs);
  EXPECT_TRUE(both->declared.infInputs);
  auto bad = withSpecial("[\"nan\", \"denormal\"]");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("\"nan\" or \"inf\""));
  EXPECT_THAT(bad.status().message(), HasSubstr("found"));
}

// `shape` on a binding: the grid its mismatch map shows; expressions over
// the same names; the dimensions must multiply to a standalone kernel's
// element count.
TEST_F(DeclaredTomlTest, ABindingsShapeIsItsMismatchMapsGrid) {
  auto kernel = load("", ", shape = [\"M\", \"N / 2\", 2]");
  ASSERT_TRUE(kernel.ok()) << kernel.status().message();
  ASSERT_EQ(kernel->declared.outputShapes.size(), 1u);
  const bench::OutputShape &shape = kernel->declared.outputShapes[0];
  EXPECT_EQ(shape.name, "c");
  EXPECT_EQ(shape.binding, 2u);
  EXPECT_EQ(shape.dims, (std::vector<uint64_t>{64, 16, 2}));
  EXPECT_FALSE(kernel->declared.empty());

  std::string e = error("", ", shape = [\"M\", \"K\"]");
  EXPECT_THAT(e, HasSubstr("kernel.toml:"));
  EXPECT_THAT(e, HasSubstr("`bindings[2].shape` holds 8192 elements and "
                           "[bench] elements gives the binding 2048"));
  EXPECT_THAT(error("", ", shape = []"),
              HasSubstr("1 to 4 dimensions, the last the fastest"));
  EXPECT_THAT(error("", ", shape = [\"M\", 0.5]"), HasSubstr(">= 1"));
  EXPECT_THAT(error("", ", shape = [\"M\", \"N / 3\", 3]"),
              HasSubstr("whole number"));
  EXPECT_THAT(error("", ", shape = \"MxN\""), HasSubstr("1 to 4 dimensions"));
  EXPECT_THAT(error("", ", shape = [\"M\", \"Q\"]"),
              HasSubstr("unknown name `Q`"));
}

// A kernel that substitutes a program's dispatch has no [bench] constants:
// an expression over its [abi] constants is kept for the bench worker to
// evaluate per dispatch, checked now with each at 1 (a typo is still a
// located error listing the names).
TEST_F(DeclaredTomlTest, ASubstitutingKernelKeepsExpressionsOverItsConstants) {
  auto write = [&](const std::string &roofline) {
    std::ofstream(root_ / "kernel.toml")
        << "[kernel]\nname = \"k\"\nsource = \"k.comp\"\n"
           "[abi]\nworkgroup_size = [16, 16, 1]\n"
           "bindings = [{ name = \"c\", type = \"f32\", access = "
           "\"writeonly\" }]\n"
           "constants = [{ name = \"M\", type = \"u32\" }, "
           "{ name = \"N\", type = \"u32\" }, { name = \"K\", type = "
           "\"u32\" }]\n[roofline]\n"
        << roofline;
    return loadKernel(root_ / "kernel.toml", {});
  };
  auto kernel = write("flops = \"2*M*N*K\"\nbytes_moved = 4096\n");
  ASSERT_TRUE(kernel.ok()) << kernel.status().message();
  EXPECT_EQ(kernel->declared.flopsExpression, "2*M*N*K");
  EXPECT_FALSE(kernel->declared.flops);
  EXPECT_EQ(*kernel->declared.bytesMoved, 4096);
  EXPECT_TRUE(kernel->declared.bytesMovedExpression.empty());
  auto typo = write("flops = \"2*M*N*Q\"\n");
  ASSERT_FALSE(typo.ok());
  EXPECT_THAT(typo.status().message(), HasSubstr("unknown name `Q`"));
  EXPECT_THAT(typo.status().message(), HasSubstr("K, M, N"));
}

TEST_F(DeclaredTomlTest, BuildJsonCarriesThemByObject) {
  auto kernel = load("[roofline]\nflops = \"2*M*N*K\"\n"
                     "[tolerance]\nreduction_length = \"K\"\n"
                     "[tolerance.outputs.c]\nabs = 0.5\n",
                     ", shape = [\"M\", \"N\"]");
  ASSERT_TRUE(kernel.ok()) << kernel.status().message();
  kernel->declared.infInputs = true;
  nlohmann::ordered_json doc = {
      {"schema_version", kBuildReportSchemaVersion},
      {"jobs",
       {{{"kernel", "k"},
         {"outputs", {{{"sha256", "aa"}}, {{"sha256", "bb"}}}},
         {"declared", declaredJson(kernel->declared)}},
        {{"kernel", "other"},
         {"outputs", {{{"sha256", "bb"}}}},
         {"declared", nullptr}},
        {{"kernel", "old"}, {"outputs", {{{"sha256", "dd"}}}}}}}};
  fs::path path = root_ / "build.json";
  std::ofstream(path) << doc.dump();
  auto read = readDeclaredFigures(path);
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(read->size(), 3u);
  std::string ambiguity;
  // "bb" was written by two kernels: the one the executable names wins.
  const bench::KernelDeclared *found =
      findDeclared(*read, "bb", "k", ambiguity);
  ASSERT_TRUE(found);
  const bench::KernelDeclared &d = *found;
  found = findDeclared(*read, "bb", "other", ambiguity);
  ASSERT_TRUE(found);
  EXPECT_TRUE(found->empty());
  EXPECT_FALSE(findDeclared(*read, "bb", "program_exe", ambiguity));
  EXPECT_THAT(ambiguity, HasSubstr("kernels `k`, `other`"));
  ambiguity.clear();
  // One writer: its declarations, whatever the executable is called.
  found = findDeclared(*read, "aa", "program_exe", ambiguity);
  ASSERT_TRUE(found);
  EXPECT_TRUE(found->flops);
  EXPECT_TRUE(ambiguity.empty());
  EXPECT_TRUE(findDeclared(*read, "dd", "old", ambiguity)->empty());
  EXPECT_FALSE(findDeclared(*read, "zz", "k", ambiguity));
  EXPECT_EQ(*d.flops, 2.0 * 64 * 32 * 128);
  EXPECT_FALSE(d.bytesMoved);
  EXPECT_EQ(*d.tolerance.reductionLength, 128);
  ASSERT_EQ(d.outputTolerances.size(), 1u);
  EXPECT_EQ(d.outputTolerances[0].binding, 2u);
  EXPECT_EQ(*d.outputTolerances[0].tolerance.abs, 0.5);
  EXPECT_TRUE(d.infInputs);
  EXPECT_FALSE(d.nanInputs);
  ASSERT_EQ(d.outputShapes.size(), 1u);
  EXPECT_EQ(d.outputShapes[0].dims, (std::vector<uint64_t>{64, 32}));
  EXPECT_TRUE(declaredJson(bench::KernelDeclared{}).is_null());

  doc["jobs"][0]["declared"]["flops"] = "many";
  std::ofstream(path) << doc.dump();
  read = readDeclaredFigures(path);
  ASSERT_FALSE(read.ok());
  EXPECT_THAT(read.status().message(), HasSubstr("jobs[0].declared"));
  EXPECT_EQ(readDeclaredFigures(root_ / "none.json").status().code(),
            StatusCode::NotFound);
}

TEST_F(DeclaredTomlTest, FixedArraysTravelAsBuildDirectoryPaths) {
  bench::KernelDeclared declared;
  bench::FixedArray x;
  x.name = "x";
  x.binding = 1;
  x.source = "inputs/x.npy";
  x.file = "/project/k/inputs/x.npy";
  x.stored = "standalone/k/data/init/x.npy";
  x.sha256 = std::string(64, 'a');
  declared.fixedInputs.push_back(x);
  nlohmann::ordered_json doc = {{"schema_version", kBuildReportSchemaVersion},
                                {"jobs",
                                 {{{"kernel", "k"},
                                   {"outputs", {{{"sha256", "aa"}}}},
                                   {"declared", declaredJson(declared)}}}}};
  fs::path path = root_ / "build.json";
  std::ofstream(path) << doc.dump();
  auto read = readDeclaredFigures(path);
  ASSERT_TRUE(read.ok()) << read.status().message();
  std::string ambiguity;
  const bench::KernelDeclared *found =
      findDeclared(*read, "aa", "k", ambiguity);
  ASSERT_TRUE(found);
  ASSERT_EQ(found->fixedInputs.size(), 1u);
  const bench::FixedArray &back = found->fixedInputs[0];
  EXPECT_EQ(back.name, "x");
  EXPECT_EQ(back.binding, 1u);
  EXPECT_EQ(back.source, "inputs/x.npy");
  EXPECT_EQ(back.stored, "standalone/k/data/init/x.npy");
  EXPECT_EQ(back.file, root_ / "standalone/k/data/init/x.npy")
      << "under the build directory, not the project";
  EXPECT_EQ(back.sha256, x.sha256);
  EXPECT_TRUE(found->expectedOutputs.empty());

  // A build.json from elsewhere names nothing outside its directory.
  for (const char *outside : {"../x.npy", "/etc/passwd", "a/../../x.npy"}) {
    SCOPED_TRACE(outside);
    doc["jobs"][0]["declared"]["fixed_inputs"][0]["file"] = outside;
    std::ofstream(path) << doc.dump();
    read = readDeclaredFigures(path);
    ASSERT_FALSE(read.ok());
    EXPECT_THAT(read.status().message(),
                HasSubstr("jobs[0].declared: file `" + std::string(outside)));
  }
}

} // namespace
} // namespace kb::workbench
