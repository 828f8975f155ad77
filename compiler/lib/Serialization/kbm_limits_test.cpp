//===- kbm_limits_test.cpp - Programs past the .kbm format's limits -------===//
//
// A program too large for one .kbm module is refused before anything is
// built, with the limit named: once a 200k-op model compiled for minutes
// and then failed the FlatBuffers verifier as an "internal error". The
// real limits (a million tables, 2 GiB) need GB-sized programs, so the
// counting is checked here under small limits; the defaults are the
// verifier's own (common/kbm/kbm_limits.h).
//
//===----------------------------------------------------------------------===//
#include "kb/Dialect/KB/Transforms/Pipeline.h"
#include "kb/Serialization/KbmWriter.h"

#include "common/kbm/kbm_limits.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <string>

namespace {

using namespace mlir;

/// One executable (two bindings, one constant, one variant with a 100-byte
/// object) and @main with two allocs and |dispatches| dispatches.
std::string program(int dispatches) {
  std::string text = R"(
kb.executable @scale {
  kb.export @scale bindings(x: f32 readonly, y: f32 writeonly)
      constants(n: u32) workgroup_size = [64, 1, 1]
  kb.variant @vk target(vulkan, "vulkan1.2")
      objects([#kb.object<{path = "s.spv", data = ")" +
                     std::string(100, 'x') + R"("}>])
  builtin.module {
    func.func @scale() { return }
  }
}
func.func @main() {
  %c64 = arith.constant 64 : index
  %n = arith.constant 64 : i32
  %x = kb.alloc : !kb.buffer<64xf32>
  %y = kb.alloc : !kb.buffer<64xf32>
)";
  for (int i = 0; i < dispatches; ++i)
    text += "  kb.dispatch @scale::@scale[%c64](%x, %y : !kb.buffer<64xf32>, "
            "!kb.buffer<64xf32>) constants(%n : i32)\n";
  return text + "  return\n}\n";
}

class KbmLimitsTest : public ::testing::Test {
protected:
  KbmLimitsTest() {
    DialectRegistry registry;
    mlir::kb::registerPipelineInputDialects(registry);
    context_.appendDialectRegistry(registry);
    context_.loadAllAvailableDialects();
  }

  /// checkKbmLimits on |text| under |limits|; its diagnostics in
  /// |diagnostics_|.
  LogicalResult check(const std::string &text, mlir::kb::KbmLimits limits) {
    diagnostics_.clear();
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context_);
    if (!module) {
      ADD_FAILURE() << "does not parse:\n" << text;
      return failure();
    }
    ScopedDiagnosticHandler handler(&context_, [&](Diagnostic &d) {
      diagnostics_ += d.str() + "\n";
      return success();
    });
    return mlir::kb::checkKbmLimits(*module, limits);
  }

  MLIRContext context_;
  std::string diagnostics_;
};

TEST_F(KbmLimitsTest, TheDefaultsAreTheFormatsLimits) {
  mlir::kb::KbmLimits limits = mlir::kb::defaultKbmLimits();
  EXPECT_EQ(limits.maxTables, 1000000u);
  EXPECT_EQ(limits.maxBytes, (uint64_t(1) << 31) - 1);
  EXPECT_TRUE(succeeded(check(program(10), limits))) << diagnostics_;
}

/// Module 1; executable 1 + its variant (1 + export 1 + 2 bindings + 1
/// constant) = 6; function 1; 2 allocs x 4 (Buffer, InitSpec, Op, Alloc);
/// N dispatches x 2 (Op, Dispatch): 16 + 2N.
TEST_F(KbmLimitsTest, TablesPastTheLimitAreRefusedNamingIt) {
  EXPECT_TRUE(succeeded(check(program(42), {1 << 20, 100}))) << diagnostics_;
  EXPECT_TRUE(failed(check(program(43), {1 << 20, 100})));
  EXPECT_NE(diagnostics_.find("program.kbm would hold at least 102 "
                              "FlatBuffers tables (1 executables, 43 "
                              "dispatches), over the format's limit of 100 "
                              "tables per module"),
            std::string::npos)
      << diagnostics_;
  EXPECT_EQ(diagnostics_.find("internal error"), std::string::npos);
}

TEST_F(KbmLimitsTest, CodePastTheByteLimitIsRefusedNamingIt) {
  EXPECT_TRUE(succeeded(check(program(1), {100, 1000})));
  EXPECT_TRUE(failed(check(program(1), {99, 1000})));
  EXPECT_NE(diagnostics_.find("its kernels' code alone is 100 bytes, over "
                              "the format's limit of 99 bytes per module"),
            std::string::npos)
      << diagnostics_;
}

} // namespace
