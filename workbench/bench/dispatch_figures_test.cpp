//===- workbench/bench/dispatch_figures_test.cpp - [roofline] per dispatch ===//
#include "workbench/bench/dispatch_figures.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

namespace kb::workbench {
namespace {

using ::testing::HasSubstr;

/// A module with one matmul-like export (constants M, N, K) dispatched
/// with M = 64, N = 32, K = 128 and a workload of 32 x 64.
struct MatmulDispatch {
  module::Module module;
  module::Op op;
  MatmulDispatch() {
    KernelAbi abi;
    abi.entry = "mm";
    abi.constants = {
        {"M", ScalarType::U32}, {"N", ScalarType::U32}, {"K", ScalarType::U32}};
    module::Variant reference;
    reference.exports = {abi};
    module::Variant candidate = reference;
    candidate.role = module::VariantRole::Candidate;
    module.executables = {{"mm", {reference, candidate}}};
    op.kind = module::Op::Kind::Dispatch;
    uint32_t values[3] = {64, 32, 128};
    op.constants.resize(12);
    std::memcpy(op.constants.data(), values, 12);
    op.workload = std::array<uint64_t, 3>{32, 64, 1};
  }
};

TEST(DispatchFigures, ExpressionsTakeTheDispatchsConstantsAndWorkload) {
  MatmulDispatch d;
  std::map<std::string, double> names = dispatchNames(d.module, d.op);
  EXPECT_EQ(names.at("M"), 64);
  EXPECT_EQ(names.at("K"), 128);
  EXPECT_EQ(names.at("workload_y"), 64);
  bench::KernelDeclared declared;
  declared.flopsExpression = "2*M*N*K";
  declared.bytesMovedExpression = "4*(M*K + K*N + M*N)";
  std::vector<std::string> warnings;
  bench::KernelDeclared evaluated =
      withDispatchFigures(declared, d.module, d.op, warnings);
  EXPECT_EQ(*evaluated.flops, 2.0 * 64 * 32 * 128);
  EXPECT_EQ(*evaluated.bytesMoved, 4.0 * (64 * 128 + 128 * 32 + 64 * 32));
  EXPECT_TRUE(warnings.empty());
}

TEST(DispatchFigures, AnExpressionWithoutAValueIsAWarningNotAFigure) {
  MatmulDispatch d;
  d.op.constants.resize(4); // only M packed
  bench::KernelDeclared declared;
  declared.flopsExpression = "2*M*N*K";
  std::vector<std::string> warnings;
  bench::KernelDeclared evaluated =
      withDispatchFigures(declared, d.module, d.op, warnings);
  EXPECT_FALSE(evaluated.flops);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], HasSubstr("`mm`: [roofline] flops = \"2*M*N*K\" "
                                     "has no value for this dispatch"));
  EXPECT_THAT(warnings[0], HasSubstr("unknown name `N`"));
}

} // namespace
} // namespace kb::workbench
