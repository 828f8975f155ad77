// Tests of writeStandaloneProgram: the [bench] constant values become the
// arith.constant values of the synthesized dispatch, bit for bit (8 and 9
// used to become -8 and -7), and a value the declared type
// cannot hold is refused with the type named.
#include "common/file_util.h"
#include "common/target.h"
#include "kb/Driver/Driver.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <string>

namespace {

/// This process's own scratch directory, removed at exit: ctest runs the
/// tests in parallel processes, and fixed names under /tmp would collide.
const std::filesystem::path &scratchDir() {
  static kb::TempDir dir = [] {
    auto made = kb::TempDir::create(::testing::TempDir(), "kb_standalone_test");
    if (!made.ok()) {
      std::fprintf(stderr, "%s\n", made.status().message().c_str());
      std::abort();
    }
    return std::move(*made);
  }();
  return dir.path();
}

std::string scratch(const std::string &name) {
  return (scratchDir() / name).string();
}

/// A reference executable with one readwrite f32 binding and one constant
/// of |type|, so the program can be synthesized without objects.
std::string writeReference(const std::string &type) {
  std::string path = scratch("ref_" + type + ".mlir");
  std::ofstream(path) << "kb.executable @k {\n"
                         "  kb.export @k bindings(x: f32 readwrite)\n"
                         "      constants(c: "
                      << type
                      << ") workgroup_size = [64, 1, 1]\n"
                         "  builtin.module {\n"
                         "    func.func @k() { return }\n"
                         "  }\n"
                         "}\n";
  return path;
}

/// Synthesizes the program with c = |value|; the text of the one
/// `arith.constant` of the constant's type, or nullopt with |error|.
std::optional<std::string> synthesize(const std::string &type,
                                      const std::string &value,
                                      std::string &error) {
  kb::driver::StandaloneKernel kernel;
  kernel.name = "k";
  kernel.entry = "k";
  kernel.bindings = {{"x", kb::ElementType::F32, kb::Access::ReadWrite, 16}};
  kernel.constants = {{"c", *kb::parseScalarType(type), value}};
  kernel.workgroupSize = {64, 1, 1};
  kernel.workload = {16};
  kernel.referenceExecutable = writeReference(type);
  std::string path = scratch("program_" + type + ".mlir");
  if (!kb::driver::writeStandaloneProgram(kernel, path, error))
    return std::nullopt;
  std::ifstream in(path);
  std::string line;
  std::string mlirType = type == "f32" || type == "f64"
                             ? type
                             : (type == "i32" || type == "u32" ? "i32" : "i64");
  while (std::getline(in, line)) {
    size_t at = line.find("arith.constant ");
    if (at == std::string::npos ||
        line.find(" : " + mlirType) == std::string::npos)
      continue;
    at += std::string("arith.constant ").size();
    return line.substr(at, line.find(" : ") - at);
  }
  error = "no arith.constant of type " + mlirType + " in " + path;
  return std::nullopt;
}

/// The two's-complement bits of |printed| (MLIR prints signless integers as
/// signed) truncated to |width|.
uint64_t bitsOf(const std::string &printed, unsigned width) {
  uint64_t bits = static_cast<uint64_t>(std::stoll(printed));
  return width == 64 ? bits : bits & ((uint64_t(1) << width) - 1);
}

struct IntCase {
  std::string type;
  unsigned width;
  bool isUnsigned;
};

const IntCase kIntTypes[] = {{"i32", 32, false},
                             {"u32", 32, true},
                             {"i64", 64, false},
                             {"u64", 64, true}};

TEST(StandaloneTest, IntegerConstantsKeepTheirValue) {
  for (const IntCase &c : kIntTypes) {
    std::vector<std::string> values = {
        "0", "1", "7", "8", "9", "15", "16", "255", "256", "65535", "65536"};
    if (c.isUnsigned) {
      values.push_back(c.width == 32 ? "4294967295" : "18446744073709551615");
      values.push_back(c.width == 32 ? "2147483648" : "9223372036854775808");
    } else {
      for (const char *v : {"-1", "-7", "-8", "-9", "-16", "-256"})
        values.push_back(v);
      values.push_back(c.width == 32 ? "2147483647" : "9223372036854775807");
      values.push_back(c.width == 32 ? "-2147483648" : "-9223372036854775808");
    }
    for (const std::string &value : values) {
      SCOPED_TRACE(c.type + " = " + value);
      std::string error;
      std::optional<std::string> printed = synthesize(c.type, value, error);
      ASSERT_TRUE(printed) << error;
      uint64_t expected = c.isUnsigned
                              ? std::stoull(value)
                              : static_cast<uint64_t>(std::stoll(value));
      if (c.width == 32)
        expected &= 0xffffffffu;
      EXPECT_EQ(bitsOf(*printed, c.width), expected) << *printed;
    }
  }
}

TEST(StandaloneTest, IntegerConstantsOutOfRangeAreRefused) {
  const std::pair<std::string, std::string> cases[] = {
      {"u32", "-1"},
      {"u32", "4294967296"},
      {"i32", "2147483648"},
      {"i32", "-2147483649"},
      {"u64", "-1"},
      {"u64", "18446744073709551616"},
      {"i64", "9223372036854775808"},
      {"i64", "-9223372036854775809"},
      {"i32", "1.5"},
      {"u32", "eight"},
      {"u32", ""},
  };
  for (const auto &[type, value] : cases) {
    SCOPED_TRACE(type + " = " + value);
    std::string error;
    EXPECT_FALSE(synthesize(type, value, error));
    EXPECT_NE(error.find("is not a " + type), std::string::npos) << error;
  }
}

TEST(StandaloneTest, FloatConstantsKeepTheirValue) {
  for (const std::string type : {"f32", "f64"}) {
    for (const std::string value : {"0", "1", "8", "9", "-8", "0.5", "256"}) {
      SCOPED_TRACE(type + " = " + value);
      std::string error;
      std::optional<std::string> printed = synthesize(type, value, error);
      ASSERT_TRUE(printed) << error;
      EXPECT_EQ(std::stod(*printed), std::stod(value)) << *printed;
    }
    std::string error;
    EXPECT_FALSE(synthesize(type, "x", error));
    EXPECT_NE(error.find("is not a " + type), std::string::npos) << error;
  }
}

// A reference may name a C++ kernel's export by its plain name; the
// synthesized program uses the entry's mangled name.
TEST(StandaloneTest, ReferenceExportMayUseThePlainName) {
  std::string reference = scratch("ref_plain.mlir");
  std::ofstream(reference) << "kb.executable @k {\n"
                              "  kb.export @scale_kernel1 bindings(x: f32 "
                              "readwrite) workgroup_size = [64, 1, 1]\n"
                              "  builtin.module {\n"
                              "    func.func @scale_kernel1() { return }\n"
                              "  }\n"
                              "}\n";
  kb::driver::StandaloneKernel kernel;
  kernel.name = "scale";
  kernel.entry = "_Z13scale_kernel1Pf";
  kernel.bindings = {{"x", kb::ElementType::F32, kb::Access::ReadWrite, 16}};
  kernel.workgroupSize = {64, 1, 1};
  kernel.workload = {16};
  kernel.referenceExecutable = reference;
  std::string path = scratch("program_plain.mlir");
  std::string error;
  ASSERT_TRUE(kb::driver::writeStandaloneProgram(kernel, path, error)) << error;
  std::stringstream text;
  text << std::ifstream(path).rdbuf();
  EXPECT_NE(text.str().find("kb.export @_Z13scale_kernel1Pf"),
            std::string::npos)
      << text.str();
  EXPECT_NE(text.str().find("func.func @_Z13scale_kernel1Pf()"),
            std::string::npos)
      << text.str();
  EXPECT_NE(text.str().find("@scale::@_Z13scale_kernel1Pf"), std::string::npos)
      << text.str();

  // Neither name: the message says both.
  kernel.entry = "_Z5otherPf";
  EXPECT_FALSE(kb::driver::writeStandaloneProgram(kernel, path, error));
  EXPECT_NE(error.find("has no export @_Z5otherPf (the kernel's entry) or "
                       "@other"),
            std::string::npos)
      << error;
}

/// A standalone kernel of struct_elements.comp (common/testdata): two
/// bindings of structs, a u32 one, push constants of an array and a
/// struct declared flattened; |reference| an MLIR reference, if any.
kb::driver::StandaloneKernel structKernel(const std::string &reference = "") {
  kb::driver::StandaloneKernel kernel;
  kernel.name = "structs";
  kernel.entry = "structs";
  kernel.bindings = {
      {"particles", kb::ElementType::U8, kb::Access::ReadWrite, 64},
      {"bodies", kb::ElementType::U8, kb::Access::ReadOnly, 64},
      {"flags", kb::ElementType::U32, kb::Access::ReadWrite, 64}};
  kernel.bindings[0].isStruct = kernel.bindings[1].isStruct = true;
  kernel.constants = {{"coeffs[0]", kb::ScalarType::F32, "1"},
                      {"coeffs[1]", kb::ScalarType::F32, "2"},
                      {"coeffs[2]", kb::ScalarType::F32, "3"},
                      {"coeffs[3]", kb::ScalarType::F32, "4"},
                      {"inner.id", kb::ScalarType::U32, "5"},
                      {"inner.weight", kb::ScalarType::F32, "0.5"},
                      {"n", kb::ScalarType::U32, "64"}};
  kernel.workgroupSize = {64, 1, 1};
  kernel.workload = {64};
  kernel.referenceExecutable = reference;
  kb::driver::StandaloneObject object;
  object.target = *kb::Target::parse("vulkan:1.2");
  object.file =
      std::string(KB_SOURCE_DIR) + "/common/testdata/struct_elements_vk12.spv";
  object.entry = "main";
  kernel.objects = {object};
  return kernel;
}

// A struct binding's buffer is count x stride bytes (the stride read from
// the SPIR-V object), and its variant records the layout.
TEST(StandaloneTest, StructBindingsAreSizedAndRecordedFromTheSpirv) {
  std::string path = scratch("program_structs.mlir"), error;
  ASSERT_TRUE(kb::driver::writeStandaloneProgram(structKernel(), path, error))
      << error;
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_NE(text.find("!kb.buffer<2048xi8>"), std::string::npos) << text;
  EXPECT_NE(text.find("!kb.buffer<2560xi8>"), std::string::npos) << text;
  EXPECT_NE(text.find("!kb.buffer<64xi32>"), std::string::npos) << text;
  EXPECT_NE(text.find("kb.struct_bindings"), std::string::npos) << text;
  EXPECT_NE(text.find("name = \"Particle\""), std::string::npos) << text;
  EXPECT_NE(text.find("name = \"inner.weight\""), std::string::npos) << text;
}

// An MLIR reference's bindings are arrays of scalars: it cannot take the
// place of a struct kernel.
TEST(StandaloneTest, AStructKernelRefusesAnMlirReference) {
  std::string error;
  EXPECT_FALSE(kb::driver::writeStandaloneProgram(
      structKernel(writeReference("f32")), scratch("refused.mlir"), error));
  EXPECT_NE(error.find("binding 0 (`particles`) holds structs, but the "
                       "reference"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("whose bindings are arrays of scalars"),
            std::string::npos)
      << error;
}

// Every object of a struct kernel (here a twin reference) must lay the
// struct out as the first: the buffer is filled, and the outputs compared,
// by one layout.
TEST(StandaloneTest, ATwinLaidOutDifferentlyIsRefusedNamingBoth) {
  kb::driver::StandaloneKernel kernel = structKernel();
  kb::driver::StandaloneObject twin = kernel.objects.front();
  twin.file = std::string(KB_SOURCE_DIR) +
              "/common/testdata/struct_elements_other_vk12.spv";
  twin.reference = true;
  kernel.objects.push_back(twin);
  std::string error;
  EXPECT_FALSE(kb::driver::writeStandaloneProgram(
      kernel, scratch("twin_refused.mlir"), error));
  EXPECT_NE(error.find("struct_elements_other_vk12.spv' does not match the "
                       "declared ABI:\nbinding 0 (`particles`): expected "
                       "struct elements laid out as Particle, 32 bytes: pos "
                       "vec2 at 0, vel vec2 at 8, gradientPos vec4 at 16, "
                       "found Particle, 48 bytes: mass float at 0, pos vec2 "
                       "at 8"),
            std::string::npos)
      << error;
}

} // namespace
