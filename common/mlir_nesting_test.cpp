//===- common/mlir_nesting_test.cpp ---------------------------------------===//
#include "common/mlir_nesting.h"

#include <gtest/gtest.h>

namespace kb {
namespace {

TEST(MlirNesting, RealProgramsPass) {
  const char *program =
      "kb.executable @k { // comment with [[[[ brackets\n"
      "  func.func @f(%a: memref<?xf32, #gpu.address_space<workgroup>>) -> "
      "(i32) {\n"
      "    %s = \"test.op\"() {text = \"[[[[\\\"((((\"} : () -> i32\n"
      "  }\n}\n";
  EXPECT_FALSE(findExcessNesting(program, 6).has_value());
}

TEST(MlirNesting, DeepAttributesAreFoundWhereTheyPassTheLimit) {
  std::string deep = "module {\n  %x = arith.constant " +
                     std::string(20000, '[') + std::string(20000, ']') + "\n}";
  std::optional<NestingExcess> excess = findExcessNesting(deep);
  ASSERT_TRUE(excess.has_value());
  EXPECT_EQ(excess->line, 2u);
  // `module {` is level 1, so the 1000th `[` is level 1001.
  EXPECT_EQ(excess->column,
            std::string("  %x = arith.constant ").size() + kMaxMlirNesting);
  EXPECT_EQ(describeExcessNesting("p.mlir", *excess)
                .rfind("p.mlir:2:" + std::to_string(excess->column) +
                           ": nesting deeper than 1000 levels",
                       0),
            0u);
  // Deep types and regions alike.
  EXPECT_TRUE(findExcessNesting(std::string(1001, '<')).has_value());
  EXPECT_TRUE(findExcessNesting(std::string(1001, '{')).has_value());
  EXPECT_FALSE(findExcessNesting(std::string(1000, '{')).has_value());
}

TEST(MlirNesting, BytecodeIsNotScanned) {
  std::string bytecode = std::string("ML\xefR", 4) + std::string(5000, '[');
  EXPECT_FALSE(findExcessNesting(bytecode).has_value());
}

} // namespace
} // namespace kb
