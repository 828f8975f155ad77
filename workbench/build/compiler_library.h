//===- workbench/build/compiler_library.h - The compiler, opened on -------===//
//
// kernel-bench links no LLVM/MLIR: the compiler is libKBCompiler.so, opened
// with dlopen the first time a build compiles a program, so no-op builds and
// the runtime commands never pay for loading LLVM (~70 ms) and a host
// without the library (a GPU runner) runs everything but the program step.
// This is the kernel-bench half of the C interface (kb-c/Compiler.h): it
// converts the driver's C++ records (kb/Driver/Records.h) to C and back.
//
// Where the library is looked for, in order:
//   1. $KB_COMPILER_LIBRARY (a path to the file; set but unloadable is an
//      error, not a fallback);
//   2. next to the kernel-bench executable (the build tree);
//   3. ../lib/ relative to it (the install layout: bin/kernel-bench,
//      lib/libKBCompiler.so).
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_BUILD_COMPILER_LIBRARY_H_
#define KB_WORKBENCH_BUILD_COMPILER_LIBRARY_H_

#include "common/dynamic_library.h"
#include "common/status.h"
#include "kb/Driver/Records.h"

#include <filesystem>

namespace kb::workbench {

/// The environment variable that names the compiler library.
inline constexpr const char *kCompilerLibraryEnv = "KB_COMPILER_LIBRARY";

class CompilerLibrary {
public:
  /// Where the library is (without loading it). NotFound names every place
  /// looked at and what to do.
  static StatusOr<std::filesystem::path> locate();

  /// Opens the library once per process; later calls return the same one
  /// (or the same error). Fails when it cannot be loaded or its interface
  /// version differs from the one kernel-bench was built with.
  static StatusOr<const CompilerLibrary *> open();

  /// Runs the compiler pipeline; never fails otherwise than in the result
  /// (an LLVM fatal error included).
  driver::CompileResult compile(const driver::CompileOptions &options) const;

  /// Writes the one-dispatch program of a standalone kernel to |path|.
  Status writeStandaloneProgram(const driver::StandaloneKernel &kernel,
                                const std::string &path) const;

  const std::filesystem::path &path() const { return path_; }

private:
  struct Api;
  static StatusOr<const CompilerLibrary *> load();
  CompilerLibrary(std::filesystem::path path, const Api *api,
                  DynamicLibrary library)
      : path_(std::move(path)), api_(api), library_(std::move(library)) {}
  std::filesystem::path path_;
  const Api *api_;
  DynamicLibrary library_;
};

} // namespace kb::workbench

#endif // KB_WORKBENCH_BUILD_COMPILER_LIBRARY_H_
