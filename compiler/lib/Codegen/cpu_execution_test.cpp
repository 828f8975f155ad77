//===- cpu_execution_test.cpp - kernel bodies run on the host -------------===//
//
// The CPU execution of references (kb/Codegen/CpuExecution.h) against C++
// computations of the same kernels: a Fibonacci loop that runs zero times for
// some invocations, a 2-D body with constants of every width, bf16 through
// the CUDA codegen's own float legalization, both index widths; and the
// bodies it refuses.
//
//===----------------------------------------------------------------------===//
#include "kb/Codegen/Codegen.h"
#include "kb/Codegen/CpuExecution.h"
#include "kb/Dialect/KB/IR/KBOps.h"
#include "kb/Dialect/KB/Transforms/Pipeline.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <sstream>

namespace {

using namespace mlir;

class CpuExecutionTest : public ::testing::Test {
protected:
  CpuExecutionTest() {
    DialectRegistry registry;
    mlir::kb::registerPipelineInputDialects(registry);
    mlir::kb::registerCodegenDialects(registry);
    context_.appendDialectRegistry(registry);
    context_.loadAllAvailableDialects();
  }

  /// The first kb.executable of |text|, or null (with a test failure).
  mlir::kb::ExecutableOp parse(const std::string &text) {
    module_ = parseSourceString<ModuleOp>(text, &context_);
    if (!module_) {
      ADD_FAILURE() << "does not parse:\n" << text;
      return {};
    }
    auto executables = module_->getOps<mlir::kb::ExecutableOp>();
    return executables.empty() ? mlir::kb::ExecutableOp()
                               : *executables.begin();
  }

  /// runOnCpu, with the diagnostics it emits collected in |diagnostics_|.
  LogicalResult run(mlir::kb::ExecutableOp executable,
                    mlir::kb::CpuDispatch dispatch) {
    ScopedDiagnosticHandler handler(&context_, [&](Diagnostic &d) {
      diagnostics_ += d.str() + "\n";
      return success();
    });
    return mlir::kb::runOnCpu(executable, dispatch);
  }

  MLIRContext context_;
  OwningOpRef<ModuleOp> module_;
  std::string diagnostics_;
};

template <typename T> std::vector<uint8_t> bytesOf(const std::vector<T> &v) {
  std::vector<uint8_t> bytes(v.size() * sizeof(T));
  std::memcpy(bytes.data(), v.data(), bytes.size());
  return bytes;
}

template <typename T> std::vector<T> valuesOf(const std::vector<uint8_t> &b) {
  std::vector<T> v(b.size() / sizeof(T));
  std::memcpy(v.data(), b.data(), b.size());
  return v;
}

uint32_t fibonacci(uint32_t k) {
  if (k <= 1)
    return k;
  uint32_t curr = 1, prev = 1;
  for (uint32_t i = 2; i < k; ++i) {
    uint32_t next = curr + prev;
    prev = curr;
    curr = next;
  }
  return curr;
}

TEST_F(CpuExecutionTest, FibonacciLoopsAgreeWithCppAtBothIndexWidths) {
  std::ifstream file(std::string(KB_SOURCE_DIR) +
                     "/tests/e2e/fixtures/references/fibonacci/fibonacci.mlir");
  std::stringstream text;
  text << file.rdbuf();
  mlir::kb::ExecutableOp executable = parse(text.str());
  ASSERT_TRUE(executable);
  const uint32_t count = 200; // 4 workgroups of 64: 56 invocations past it
  std::vector<uint32_t> n(count);
  for (uint32_t i = 0; i < count; ++i)
    n[i] = i % 40;
  for (unsigned bits : {64u, 32u}) {
    SCOPED_TRACE(bits);
    std::vector<std::vector<uint8_t>> buffers = {
        bytesOf(n), std::vector<uint8_t>(count * 4, 0xAB)};
    mlir::kb::CpuDispatch dispatch;
    dispatch.exportName = "fibonacci";
    dispatch.buffers = &buffers;
    dispatch.constants = {count};
    dispatch.workgroupCount = {4, 1, 1};
    dispatch.indexBitwidth = bits;
    ASSERT_TRUE(succeeded(run(executable, dispatch))) << diagnostics_;
    std::vector<uint32_t> f = valuesOf<uint32_t>(buffers[1]);
    for (uint32_t i = 0; i < count; ++i)
      ASSERT_EQ(f[i], fibonacci(n[i])) << "element " << i << ", n " << n[i];
  }
}

// Workgroup and invocation ids in two dimensions, the workgroup count and
// size, constants of 32 and 64 bits, and bf16 loads, arithmetic and stores.
const char *const kGrid2d = R"mlir(
kb.executable @grid {
  kb.export @grid bindings(x: bf16 readonly, out: bf16 writeonly, ids: i64 writeonly)
      constants(scale: f32, offset: i64, width: u32) workgroup_size = [4, 2, 1]
  builtin.module {
    func.func @grid() {
      %x = kb.binding 0 : memref<?xbf16>
      %out = kb.binding 1 : memref<?xbf16>
      %ids = kb.binding 2 : memref<?xi64>
      %scale = kb.constant 0 : f32
      %offset = kb.constant 1 : i64
      %width_i32 = kb.constant 2 : i32
      %width = arith.index_castui %width_i32 : i32 to index
      %wx = kb.workgroup_id x
      %wy = kb.workgroup_id y
      %sx = kb.workgroup_size x
      %sy = kb.workgroup_size y
      %cy = kb.workgroup_count y
      %tx = gpu.thread_id x
      %ty = gpu.thread_id y
      %bx = arith.muli %wx, %sx : index
      %col = arith.addi %bx, %tx : index
      %by = arith.muli %wy, %sy : index
      %row = arith.addi %by, %ty : index
      %r = arith.muli %row, %width : index
      %i = arith.addi %r, %col : index
      %v = memref.load %x[%i] : memref<?xbf16>
      %s = arith.truncf %scale : f32 to bf16
      %p = arith.mulf %v, %s : bf16
      memref.store %p, %out[%i] : memref<?xbf16>
      %rows = arith.muli %cy, %sy : index
      %id = arith.index_cast %rows : index to i64
      %tagged = arith.addi %id, %offset : i64
      memref.store %tagged, %ids[%i] : memref<?xi64>
      return
    }
  }
}
)mlir";

TEST_F(CpuExecutionTest, TwoDimensionalGridWithBf16AndWideConstants) {
  mlir::kb::ExecutableOp executable = parse(kGrid2d);
  ASSERT_TRUE(executable);
  const int width = 8, height = 6; // 2 x 3 workgroups of 4 x 2
  std::vector<uint16_t> x(width * height);
  for (size_t i = 0; i < x.size(); ++i) {
    float value = static_cast<float>(i) * 0.5f; // exact in bf16
    uint32_t bits;
    std::memcpy(&bits, &value, 4);
    x[i] = static_cast<uint16_t>(bits >> 16);
  }
  std::vector<std::vector<uint8_t>> buffers = {
      bytesOf(x), std::vector<uint8_t>(x.size() * 2, 0),
      std::vector<uint8_t>(x.size() * 8, 0)};
  float scale = 2.0f;
  uint32_t scaleBits;
  std::memcpy(&scaleBits, &scale, 4);
  mlir::kb::CpuDispatch dispatch;
  dispatch.exportName = "grid";
  dispatch.buffers = &buffers;
  dispatch.constants = {scaleBits, uint64_t(1) << 40, uint64_t(width)};
  dispatch.workgroupCount = {2, 3, 1};
  ASSERT_TRUE(succeeded(run(executable, dispatch))) << diagnostics_;
  std::vector<uint16_t> out = valuesOf<uint16_t>(buffers[1]);
  std::vector<int64_t> ids = valuesOf<int64_t>(buffers[2]);
  for (size_t i = 0; i < x.size(); ++i) {
    uint32_t bits = uint32_t(out[i]) << 16;
    float got;
    std::memcpy(&got, &bits, 4);
    EXPECT_EQ(got, static_cast<float>(i)) << i; // 0.5 i * 2
    EXPECT_EQ(ids[i], 6 + (int64_t(1) << 40)) << i;
  }
}

TEST_F(CpuExecutionTest, BarriersAndWorkgroupMemoryAreRefused) {
  mlir::kb::ExecutableOp executable = parse(R"mlir(
kb.executable @shared {
  kb.export @shared bindings(x: f32 readwrite) workgroup_size = [64, 1, 1]
  builtin.module {
    func.func @shared() {
      %c0 = arith.constant 0 : index
      %x = kb.binding 0 : memref<?xf32>
      %v = memref.load %x[%c0] : memref<?xf32>
      gpu.barrier
      memref.store %v, %x[%c0] : memref<?xf32>
      return
    }
  }
}
)mlir");
  ASSERT_TRUE(executable);
  std::vector<std::vector<uint8_t>> buffers = {std::vector<uint8_t>(4)};
  mlir::kb::CpuDispatch dispatch;
  dispatch.exportName = "shared";
  dispatch.buffers = &buffers;
  EXPECT_TRUE(failed(run(executable, dispatch)));
  EXPECT_NE(diagnostics_.find("'gpu.barrier' op is not supported by the CPU "
                              "execution of kb.executable @shared"),
            std::string::npos)
      << diagnostics_;

  // A dispatch that does not match the export's layout.
  diagnostics_.clear();
  buffers.push_back(std::vector<uint8_t>(4));
  EXPECT_TRUE(failed(run(executable, dispatch)));
  EXPECT_NE(diagnostics_.find("declares 1 bindings and 0 constants; the CPU "
                              "dispatch gives 2 and 0"),
            std::string::npos)
      << diagnostics_;
}

} // namespace
