//===- workbench/build/compiler_library.cpp - The compiler, opened on -----===//
#include "workbench/build/compiler_library.h"

#include "kb-c/Compiler.h"
#include "kb-c/CompilerStrings.h"

#include "common/dynamic_library.h"

#include <cstdlib>
#include <deque>
#include <mutex>
#include <optional>
#include <system_error>
#include <vector>

namespace kb::workbench {

namespace fs = std::filesystem;

struct CompilerLibrary::Api {
  decltype(&kbCompilerApiVersion) apiVersion = nullptr;
  decltype(&kbCompilerCompile) compile = nullptr;
  decltype(&kbCompilerResultDestroy) resultDestroy = nullptr;
  decltype(&kbCompilerWriteStandaloneProgram) writeStandaloneProgram = nullptr;
  decltype(&kbCompilerFreeString) freeString = nullptr;
};

namespace {

/// The C views of one call's C++ values (kb-c/CompilerStrings.h), with the
/// substitution and launch-shape arrays.
class CStorage : public capi::CViews {
public:
  const kbCompilerSubstitution *
  substitutions(const std::vector<driver::Substitution> &list) {
    std::vector<kbCompilerSubstitution> &array = substitutions_.emplace_back();
    for (const driver::Substitution &s : list)
      array.push_back(
          {s.executable.c_str(), s.file.c_str(), s.origin.c_str(),
           s.sharedMemoryBytes, s.subgroupSize, s.fullSubgroups ? 1 : 0,
           settings(s.specialization), dims(s.workgroupSize),
           s.workgroupSize.size(), dims(s.workloadPerWorkgroup),
           s.workloadPerWorkgroup.size(), s.device.c_str(), s.entry.c_str(),
           s.parameterOrder.data(), s.parameterOrder.size()});
    return array.data();
  }
  const int64_t *dims(const std::vector<long long> &list) {
    return dims_.emplace_back(list.begin(), list.end()).data();
  }

private:
  std::deque<std::vector<kbCompilerSubstitution>> substitutions_;
  std::deque<std::vector<int64_t>> dims_;
};

kbCompilerOptions toC(const driver::CompileOptions &o, CStorage &storage) {
  kbCompilerOptions c = {};
  c.programPath = o.programPath.c_str();
  c.sourceSubstitutions = storage.substitutions(o.sourceSubstitutions);
  c.sourceSubstitutionCount = o.sourceSubstitutions.size();
  c.sourceDirectories = storage.strings(o.sourceDirectories);
  c.objectSubstitutions = storage.substitutions(o.objectSubstitutions);
  c.objectSubstitutionCount = o.objectSubstitutions.size();
  c.objectDirectories = storage.strings(o.objectDirectories);
  c.searchPaths = storage.strings(o.searchPaths);
  c.targets = storage.targets(o.targets);
  c.strict = o.strict;
  c.printNotes = o.printNotes;
  c.outputPath = o.outputPath.c_str();
  c.emitBytecode = o.emitBytecode;
  c.dumpSourcesDir = o.dumpSourcesDir.c_str();
  c.dumpBinariesDir = o.dumpBinariesDir.c_str();
  c.codegen = o.codegen;
  c.emitCubin = o.emitCubin;
  c.ptxasPath = o.ptxasPath.c_str();
  c.outputDir = o.outputDir.c_str();
  c.dumpBenchmarksDir = o.dumpBenchmarksDir.c_str();
  return c;
}

using kb::capi::str;
using kb::capi::strings;

/// The result's substitutions and codegen records, their kinds and targets
/// read from the library's spellings.
void readTypedRecords(const kbCompilerResult &c, capi::SpellingReader &read,
                      driver::CompileResult &r) {
  for (size_t i = 0; i < c.substitutionCount; ++i) {
    const kbCompilerAppliedSubstitution &s = c.substitutions[i];
    r.substitutions.push_back(
        {str(s.executable), str(s.variant),
         read.substitutionKind(s.kind, "substitution of " + str(s.executable)),
         str(s.file), str(s.reference), str(s.origin), str(s.device)});
  }
  for (size_t i = 0; i < c.codegenCount; ++i) {
    const kbCompilerCodegenRecord &g = c.codegen[i];
    r.codegen.push_back(
        {str(g.executable), str(g.variant),
         read.target(g.target, "codegen of " + str(g.executable)),
         g.milliseconds, g.ptxasMilliseconds});
  }
}

driver::CompileResult fromC(const kbCompilerResult &c) {
  driver::CompileResult r;
  r.ok = c.ok != 0;
  r.diagnostics = str(c.diagnostics);
  r.notes = strings(c.notes);
  capi::SpellingReader read;
  readTypedRecords(c, read, r);
  // A library that spells a record otherwise is not the one this
  // kernel-bench was built with, whatever its interface version says.
  if (!read.error().empty()) {
    r.ok = false;
    r.diagnostics += "error: the compiler library returned " + read.error() +
                     "; install the library built with this kernel-bench\n";
  }
  for (size_t i = 0; i < c.benchmarkCount; ++i) {
    const kbCompilerBenchmark &b = c.benchmarks[i];
    driver::BenchmarkRecord record;
    record.name = str(b.name);
    record.executable = str(b.executable);
    record.exportName = str(b.exportName);
    record.workload.assign(b.workload, b.workload + 3);
    record.workgroupCount.assign(b.workgroupCount, b.workgroupCount + 3);
    record.candidates = strings(b.candidates);
    record.references = strings(b.references);
    record.sites = strings(b.sites);
    record.file = str(b.file);
    r.benchmarks.push_back(std::move(record));
  }
  for (size_t i = 0; i < c.unbenchmarkedCount; ++i) {
    const kbCompilerUnbenchmarked &d = c.unbenchmarked[i];
    r.unbenchmarked.push_back(
        {str(d.executable), str(d.exportName), str(d.site), str(d.reason)});
  }
  r.writtenFiles = strings(c.writtenFiles);
  r.kbmBytes = c.kbmBytes;
  r.kbmMilliseconds = c.kbmMilliseconds;
  return r;
}

/// The directory of the running kernel-bench.
std::optional<fs::path> executableDir() {
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec)
    return std::nullopt;
  return self.parent_path();
}

template <typename T>
bool bind(const DynamicLibrary &library, const char *name, T &slot) {
  slot = library.function<T>(name);
  return slot != nullptr;
}

} // namespace

StatusOr<const CompilerLibrary *> CompilerLibrary::load() {
  StatusOr<fs::path> path = CompilerLibrary::locate();
  if (!path.ok())
    return path.status();
  // Never unmapped: LLVM installs handlers and runs static constructors
  // on load; a library refused below stays mapped rather than risk its
  // destructors.
  StatusOr<DynamicLibrary> handle =
      DynamicLibrary::open(path->string(), DynamicLibrary::Unload::Never);
  if (!handle.ok())
    return failedPrecondition("cannot load the compiler library " +
                              path->string() + ": " +
                              handle.status().message());
  static Api api; // One library per process.
  if (!bind(*handle, "kbCompilerApiVersion", api.apiVersion) ||
      !bind(*handle, "kbCompilerCompile", api.compile) ||
      !bind(*handle, "kbCompilerResultDestroy", api.resultDestroy) ||
      !bind(*handle, "kbCompilerWriteStandaloneProgram",
            api.writeStandaloneProgram) ||
      !bind(*handle, "kbCompilerFreeString", api.freeString))
    return failedPrecondition(path->string() +
                              " is not a Kernel Workbench compiler library "
                              "(a kbCompiler* function is missing)");
  uint32_t version = api.apiVersion();
  if (version != KB_COMPILER_API_VERSION)
    return failedPrecondition(
        "the compiler library " + path->string() + " has interface version " +
        std::to_string(version) + "; this kernel-bench needs version " +
        std::to_string(KB_COMPILER_API_VERSION) +
        " (install the library built with this kernel-bench)");
  return new CompilerLibrary(*path, &api, std::move(*handle));
}

StatusOr<fs::path> CompilerLibrary::locate() {
  if (const char *env = std::getenv(kCompilerLibraryEnv); env && *env) {
    std::error_code ec;
    if (!fs::is_regular_file(env, ec))
      return notFound(std::string(kCompilerLibraryEnv) + "=" + env +
                      " names no file; point it at " +
                      KB_COMPILER_LIBRARY_NAME + " or unset it");
    return fs::path(env);
  }
  std::vector<fs::path> candidates;
  if (std::optional<fs::path> dir = executableDir()) {
    candidates.push_back(*dir / KB_COMPILER_LIBRARY_NAME);
    candidates.push_back(*dir / ".." / "lib" / KB_COMPILER_LIBRARY_NAME);
  }
  std::string looked;
  for (const fs::path &candidate : candidates) {
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec))
      return candidate.lexically_normal();
    looked +=
        (looked.empty() ? "" : ", ") + candidate.lexically_normal().string();
  }
  return notFound(std::string("the compiler is not installed: no ") +
                  KB_COMPILER_LIBRARY_NAME + " in " +
                  (looked.empty() ? "the directory of kernel-bench" : looked) +
                  "; install it next to kernel-bench (or in ../lib/), or set " +
                  kCompilerLibraryEnv + " to its path");
}

StatusOr<const CompilerLibrary *> CompilerLibrary::open() {
  static std::once_flag once;
  static StatusOr<const CompilerLibrary *> opened =
      internalError("the compiler library was not opened");
  std::call_once(once, [] { opened = load(); });
  return opened;
}

driver::CompileResult
CompilerLibrary::compile(const driver::CompileOptions &options) const {
  CStorage storage;
  kbCompilerOptions c = toC(options, storage);
  kbCompilerResult *result = api_->compile(&c);
  driver::CompileResult converted = fromC(*result);
  api_->resultDestroy(result);
  return converted;
}

Status
CompilerLibrary::writeStandaloneProgram(const driver::StandaloneKernel &kernel,
                                        const std::string &path) const {
  CStorage storage;
  std::vector<kbCompilerStandaloneBinding> bindings;
  for (const driver::StandaloneBinding &b : kernel.bindings)
    bindings.push_back({b.name.c_str(),
                        b.isStruct ? "struct" : toString(b.elementType),
                        toString(b.access), b.elementCount,
                        b.initDistribution.c_str(), b.initLow, b.initHigh,
                        b.initMean, b.initStddev, b.initStart, b.initStep});
  std::vector<kbCompilerStandaloneConstant> constants;
  for (const driver::StandaloneConstant &k : kernel.constants)
    constants.push_back({k.name.c_str(), toString(k.type), k.value.c_str()});
  std::vector<kbCompilerStandaloneObject> objects;
  for (const driver::StandaloneObject &o : kernel.objects)
    objects.push_back({storage.keep(o.target.toString()), o.file.c_str(),
                       o.entry.c_str(), o.subgroupSize, o.fullSubgroups ? 1 : 0,
                       storage.settings(o.specialization), o.reference ? 1 : 0,
                       o.parameterOrder.data(), o.parameterOrder.size()});
  kbCompilerStandaloneKernel c = {};
  c.name = kernel.name.c_str();
  c.entry = kernel.entry.c_str();
  c.bindings = bindings.data();
  c.bindingCount = bindings.size();
  c.constants = constants.data();
  c.constantCount = constants.size();
  c.workgroupSize = storage.dims(kernel.workgroupSize);
  c.workgroupSizeCount = kernel.workgroupSize.size();
  c.workload = storage.dims(kernel.workload);
  c.workloadCount = kernel.workload.size();
  c.workloadPerWorkgroup = storage.dims(kernel.workloadPerWorkgroup);
  c.workloadPerWorkgroupCount = kernel.workloadPerWorkgroup.size();
  c.sharedMemoryBytes = kernel.sharedMemoryBytes;
  c.referenceExecutable = kernel.referenceExecutable.c_str();
  c.objects = objects.data();
  c.objectCount = objects.size();
  char *error = api_->writeStandaloneProgram(&c, path.c_str());
  if (!error)
    return okStatus();
  std::string message = error;
  api_->freeString(error);
  return invalidArgument(message);
}

} // namespace kb::workbench
