//===- toolchains/host_reference.h - A C/C++ reference as a shared object -===//
//
// A standalone kernel's reference may be a C or C++ function run on the host
// (`[bench] reference = "ref.cpp"`), the way Kernel Tuner's `answer` works:
// a reference that exists on any machine, written in the language kernel
// authors already use. This builds it: the host compiler (the `host-cxx`
// tool, gcc) compiles a generated file that includes the user's source and
// adds one entry point of a fixed C signature (kHostReferenceEntry,
// common/host_reference_entry.h),
// which unpacks the constants from the dispatch's packed block (the
// push-constant layout) and calls the user's function with the kernel's
// parameters in the kernel's order — each binding as a pointer to its
// element type (f16 and bf16 as uint16_t bits), each constant by value —
// and then the workload (three uint64_t). The call is compiled, not made
// through a foreign-function library, so a function that does not take
// these parameters is a compile error at build time, reported with the
// signature it must have.
//
// The shared object is cached like a kernel (build_cache.h): keyed by the
// compiler's identity, the command line, the generated file and the
// source, with the headers the depfile names as dependencies.
//
//===----------------------------------------------------------------------===//
#ifndef KB_TOOLCHAINS_HOST_REFERENCE_H_
#define KB_TOOLCHAINS_HOST_REFERENCE_H_

#include "common/host_reference_entry.h"
#include "common/kernel_abi.h"
#include "common/status.h"
#include "toolchains/kernel_builder.h"

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace kb::toolchains {

struct HostReferenceSpec {
  std::string kernel;           // for messages
  std::filesystem::path source; // absolute
  std::string function;         // the user's function
  std::vector<std::pair<std::string, std::string>> defines;
  std::vector<std::filesystem::path> includeDirs;
  KernelAbi abi;
  std::filesystem::path manifest; // the kernel.toml, for messages
};

/// "void f(const float *x, float *y, float a, uint32_t n, const uint64_t
/// workload[3])": what the function must be callable as.
std::string hostReferenceSignature(const HostReferenceSpec &spec);

/// The generated file's text (C or C++ by the source's extension).
std::string hostReferenceShim(const HostReferenceSpec &spec);

struct HostReferenceResult {
  Status status;
  bool cacheHit = false;
  std::vector<ToolInvocation> commands;
  std::vector<Diagnostic> diagnostics;
  std::string failureLog; // the failed command and its output
  OutputFile output;      // kind "so"
};

/// Compiles |spec| into |outFile| (written atomically; left as it is when it
/// already holds the same bytes). |cache| may be null.
HostReferenceResult buildHostReference(const Toolchains &toolchains,
                                       BuildCache *cache,
                                       const BuildOptions &options,
                                       const HostReferenceSpec &spec,
                                       const std::filesystem::path &outFile);

} // namespace kb::toolchains

#endif // KB_TOOLCHAINS_HOST_REFERENCE_H_
