//===- kb-compile.cpp - The kb compiler command line ----------------------===//
//
// Flags follow IREE's substitution and dump flags (docs/pipeline.md). The
// pipeline is KBDriver's (kb/Driver/Driver.h), the same the workbench runs.
//
//===----------------------------------------------------------------------===//
#include "kb/Driver/Driver.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

namespace cl = llvm::cl;

static cl::OptionCategory category("kb-compile options");

static cl::opt<std::string> inputFile(cl::Positional,
                                      cl::desc("<program.mlir|.mlirbc>"),
                                      cl::init("-"), cl::cat(category));
static cl::opt<std::string>
    outputFile("o",
               cl::desc("Output: FILE.mlir, FILE.mlirbc or '-' (stdout) "
                        "for the compiled MLIR; any other path is a "
                        "directory that receives program.kbm and "
                        "bench/<benchmark>.kbm"),
               cl::value_desc("file"), cl::init("-"), cl::cat(category));
static cl::opt<bool> emitBytecode("emit-bytecode",
                                  cl::desc("Write MLIR bytecode"),
                                  cl::cat(category));
static cl::list<std::string> sourceSubstitutions(
    "substitute-executable-source",
    cl::desc("Replace executable NAME with the one in FILE (.mlir/.mlirbc); "
             "repeatable, the last one for a NAME wins"),
    cl::value_desc("NAME=FILE"), cl::cat(category));
static cl::list<std::string> sourceDirectories(
    "substitute-executable-sources-from",
    cl::desc("Substitute every executable with a <name>.mlir/.mlirbc in DIR "
             "(explicit substitutions win)"),
    cl::value_desc("DIR"), cl::cat(category));
static cl::list<std::string> objectSubstitutions(
    "substitute-executable-object",
    cl::desc("Make the cuda (.ptx/.cubin) or vulkan (.spv) variants of NAME "
             "external with FILE, checked against the export ABI; NAME may be "
             "executable/variant; repeatable, the last one wins"),
    cl::value_desc("NAME=FILE"), cl::cat(category));
static cl::list<std::string> objectDirectories(
    "substitute-executable-objects-from",
    cl::desc("Substitute objects named <exe>.<ext> or <exe>_<variant>.<ext> "
             "found in DIR (explicit substitutions win)"),
    cl::value_desc("DIR"), cl::cat(category));
static cl::list<std::string> searchPaths(
    "executable-object-search-path",
    cl::desc("Look for relative substitution files here after the working "
             "directory; repeatable, searched in order"),
    cl::value_desc("DIR"), cl::cat(category));
static cl::opt<std::string> dumpSourcesTo(
    "dump-executable-sources-to",
    cl::desc("Write each executable (as given) to DIR/<executable>.mlir"),
    cl::value_desc("DIR"), cl::cat(category));
static cl::opt<std::string> dumpBenchmarksTo(
    "dump-executable-benchmarks-to",
    cl::desc("Write one .kbm benchmark module per (executable, export, "
             "workload) to DIR/<exe>_<export>_<shape>.kbm"),
    cl::value_desc("DIR"), cl::cat(category));
static cl::opt<bool> codegen(
    "codegen",
    cl::desc("Generate PTX (+ cubin) and SPIR-V for variants without objects "
             "(default on; --codegen=false shows the IR before codegen)"),
    cl::init(true), cl::cat(category));
static cl::opt<std::string> ptxasPath(
    "ptxas",
    cl::desc(
        "ptxas for the cubins of generated CUDA variants (default: "
        "CUDA_PATH/bin, /usr/local/cuda/bin, PATH; none found = PTX only)"),
    cl::value_desc("PATH"), cl::cat(category));
static cl::opt<std::string> dumpBinariesTo(
    "dump-executable-binaries-to",
    cl::desc("Write each external object to DIR/<executable>_<variant>.<ext>"),
    cl::value_desc("DIR"), cl::cat(category));
static cl::list<std::string>
    targets("target",
            cl::desc("Target to compile for (one variant each): cuda:sm_XX "
                     "(e.g. cuda:sm_90) or vulkan:1.X (e.g. vulkan:1.2); an "
                     "invalid one lists the valid ones; repeatable"),
            cl::value_desc("TARGET"), cl::cat(category));
static cl::opt<bool> strict(
    "strict",
    cl::desc("A substitution NAME that matches no executable is an error"),
    cl::cat(category));

/// Parses NAME=FILE flags; prints an error per malformed one.
static bool parseList(const cl::list<std::string> &flags, const char *flag,
                      std::vector<kb::driver::Substitution> &out) {
  bool ok = true;
  for (const std::string &text : flags) {
    kb::driver::Substitution s;
    std::string error;
    if (!kb::driver::parseSubstitution(text, s, error)) {
      llvm::errs() << "kb-compile: error: --" << flag << ": " << error << "\n";
      ok = false;
      continue;
    }
    out.push_back(std::move(s));
  }
  return ok;
}

/// Parses the --target flags; prints an error (listing the valid targets)
/// per invalid one.
static bool parseTargets(std::vector<kb::Target> &out) {
  bool ok = true;
  for (const std::string &text : targets) {
    kb::StatusOr<kb::Target> target = kb::Target::parse(text);
    if (!target.ok()) {
      llvm::errs() << "kb-compile: error: --target: "
                   << target.status().message() << "\n";
      ok = false;
      continue;
    }
    out.push_back(*target);
  }
  return ok;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "kb-compile: compile a kb program, substituting handwritten kernels\n");

  kb::driver::CompileOptions options;
  options.programPath = inputFile;
  if (!parseList(sourceSubstitutions, "substitute-executable-source",
                 options.sourceSubstitutions) ||
      !parseList(objectSubstitutions, "substitute-executable-object",
                 options.objectSubstitutions))
    return 1;
  options.sourceDirectories = sourceDirectories;
  options.objectDirectories = objectDirectories;
  options.searchPaths = searchPaths;
  if (!parseTargets(options.targets))
    return 1;
  options.strict = strict;
  options.printNotes = true;
  // -o picks the output by its name: MLIR for .mlir/.mlirbc/'-', else a
  // directory of .kbm modules.
  llvm::StringRef output = outputFile;
  if (output == "-" || output.endswith(".mlir") || output.endswith(".mlirbc")) {
    options.outputPath = outputFile;
  } else {
    options.outputDir = outputFile;
  }
  options.dumpBenchmarksDir = dumpBenchmarksTo;
  options.codegen = codegen;
  options.ptxasPath = ptxasPath;
  options.emitBytecode = emitBytecode || output.endswith(".mlirbc");
  options.dumpSourcesDir = dumpSourcesTo;
  options.dumpBinariesDir = dumpBinariesTo;

  kb::driver::CompileResult result = kb::driver::compile(options);
  llvm::errs() << result.diagnostics;
  return result.ok ? 0 : 1;
}
