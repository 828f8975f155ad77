//===- kb-opt.cpp - mlir-opt with the kb dialect and its passes -----------===//
//
// Registers only the dialects programs, models and kernel bodies use
// (registerPipelineInputDialects; not InitAllDialects: that header alone
// costs ~25 s of compile time here).
//
// The input file is scanned for nesting past the parser's stack before
// MlirOptMain reads it (common/mlir_nesting.h); stdin is not scanned.
//
//===----------------------------------------------------------------------===//
#include "common/mlir_nesting.h"
#include "kb/Dialect/KB/Transforms/Passes.h"
#include "kb/Dialect/KB/Transforms/Pipeline.h"

#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <string_view>

/// The positional input of an mlir-opt command line: the first argument
/// that is not an option nor the value of `-o`; "" when there is none.
static std::string_view inputArgument(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "-o") {
      ++i;
      continue;
    }
    if (!arg.empty() && arg[0] != '-')
      return arg;
  }
  return {};
}

int main(int argc, char **argv) {
  std::string_view input = inputArgument(argc, argv);
  if (!input.empty()) {
    auto buffer = llvm::MemoryBuffer::getFile(input, /*IsText=*/false);
    if (buffer) {
      if (auto excess = kb::findExcessNesting(std::string_view(
              (*buffer)->getBufferStart(), (*buffer)->getBufferSize()))) {
        llvm::errs() << kb::describeExcessNesting(std::string(input), *excess)
                     << "\n";
        return 1;
      }
    }
  }
  mlir::kb::registerKBPasses();
  mlir::kb::registerCompilerPipeline();
  mlir::DialectRegistry registry;
  mlir::kb::registerPipelineInputDialects(registry);
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "kb-opt: the kb dialect's optimizer driver\n", registry));
}
