//===- compiler/lib/CAPI/CompilerCAPI.cpp - libKBCompiler.so: -------------===//
//
// The library half of the C interface: C options to kb::driver types (the
// targets, types and settings read from their spellings), the driver's
// records back to C structs that own their strings. The other half is
// workbench/build/compiler_library.cpp, which binds only the kbCompiler*
// functions.
//
//===----------------------------------------------------------------------===//
#include "kb-c/Compiler.h"
#include "kb-c/CompilerStrings.h"
#include "kb/Driver/Driver.h"

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace kb::driver;

namespace {

using kb::capi::CViews;
using kb::capi::SpellingReader;
using kb::capi::str;
using kb::capi::strings;

std::vector<long long> dims(const int64_t *items, size_t count) {
  return std::vector<long long>(items, items + count);
}

std::vector<uint32_t> slots(const uint32_t *items, size_t count) {
  return items ? std::vector<uint32_t>(items, items + count)
               : std::vector<uint32_t>();
}

std::vector<Substitution> substitutions(const kbCompilerSubstitution *items,
                                        size_t count, SpellingReader &read) {
  std::vector<Substitution> out;
  for (size_t i = 0; i < count; ++i) {
    const kbCompilerSubstitution &c = items[i];
    out.push_back(
        {str(c.executable), str(c.file), str(c.origin), c.sharedMemoryBytes,
         c.subgroupSize, c.fullSubgroups != 0,
         read.settings(c.specialization, "substitution " + str(c.executable)),
         dims(c.workgroupSize, c.workgroupSizeCount),
         dims(c.workloadPerWorkgroup, c.workloadPerWorkgroupCount),
         str(c.device), str(c.entry),
         slots(c.parameterOrder, c.parameterOrderCount)});
  }
  return out;
}

CompileOptions fromC(const kbCompilerOptions &c, SpellingReader &read) {
  CompileOptions o;
  o.programPath = str(c.programPath);
  o.sourceSubstitutions =
      substitutions(c.sourceSubstitutions, c.sourceSubstitutionCount, read);
  o.sourceDirectories = strings(c.sourceDirectories);
  o.objectSubstitutions =
      substitutions(c.objectSubstitutions, c.objectSubstitutionCount, read);
  o.objectDirectories = strings(c.objectDirectories);
  o.searchPaths = strings(c.searchPaths);
  o.targets = read.targets(c.targets, "targets");
  o.strict = c.strict;
  o.printNotes = c.printNotes;
  o.outputPath = str(c.outputPath);
  o.emitBytecode = c.emitBytecode;
  o.dumpSourcesDir = str(c.dumpSourcesDir);
  o.dumpBinariesDir = str(c.dumpBinariesDir);
  o.codegen = c.codegen;
  o.emitCubin = c.emitCubin;
  o.ptxasPath = str(c.ptxasPath);
  o.outputDir = str(c.outputDir);
  o.dumpBenchmarksDir = str(c.dumpBenchmarksDir);
  return o;
}

/// A kbCompilerResult and the storage its pointers point into: the C++
/// result keeps its strings, |views| the pointer arrays and the spellings
/// of its targets.
struct OwnedResult : kbCompilerResult {
  CompileResult cpp;
  CViews views;
  std::vector<kbCompilerAppliedSubstitution> substitutionItems;
  std::vector<kbCompilerCodegenRecord> codegenItems;
  std::vector<kbCompilerBenchmark> benchmarkItems;
  std::vector<kbCompilerUnbenchmarked> unbenchmarkedItems;

  kbCompilerStrings view(const std::vector<std::string> &list) {
    return views.strings(list);
  }

  explicit OwnedResult(CompileResult result)
      : kbCompilerResult(), cpp(std::move(result)) {
    ok = cpp.ok;
    diagnostics = cpp.diagnostics.c_str();
    notes = view(cpp.notes);
    writtenFiles = view(cpp.writtenFiles);
    kbmBytes = cpp.kbmBytes;
    kbmMilliseconds = cpp.kbmMilliseconds;
    for (const AppliedSubstitution &s : cpp.substitutions)
      substitutionItems.push_back({s.executable.c_str(), s.variant.c_str(),
                                   toString(s.kind), s.file.c_str(),
                                   s.reference.c_str(), s.origin.c_str(),
                                   s.device.c_str()});
    for (const CodegenRecord &r : cpp.codegen)
      codegenItems.push_back({r.executable.c_str(), r.variant.c_str(),
                              views.keep(r.target.toString()), r.milliseconds,
                              r.ptxasMilliseconds});
    for (const BenchmarkRecord &b : cpp.benchmarks) {
      kbCompilerBenchmark item = {};
      item.name = b.name.c_str();
      item.executable = b.executable.c_str();
      item.exportName = b.exportName.c_str();
      for (size_t i = 0; i < 3; ++i) {
        item.workload[i] = i < b.workload.size() ? b.workload[i] : 1;
        item.workgroupCount[i] =
            i < b.workgroupCount.size() ? b.workgroupCount[i] : 1;
      }
      item.candidates = view(b.candidates);
      item.references = view(b.references);
      item.sites = view(b.sites);
      item.file = b.file.c_str();
      benchmarkItems.push_back(item);
    }
    for (const UnbenchmarkedDispatch &d : cpp.unbenchmarked)
      unbenchmarkedItems.push_back({d.executable.c_str(), d.exportName.c_str(),
                                    d.site.c_str(), d.reason.c_str()});
    substitutions = substitutionItems.data();
    substitutionCount = substitutionItems.size();
    codegen = codegenItems.data();
    codegenCount = codegenItems.size();
    benchmarks = benchmarkItems.data();
    benchmarkCount = benchmarkItems.size();
    unbenchmarked = unbenchmarkedItems.data();
    unbenchmarkedCount = unbenchmarkedItems.size();
  }
};

std::vector<StandaloneBinding> bindings(const kbCompilerStandaloneKernel &c,
                                        SpellingReader &read) {
  std::vector<StandaloneBinding> out;
  for (size_t i = 0; i < c.bindingCount; ++i) {
    const kbCompilerStandaloneBinding &b = c.bindings[i];
    std::string field = "binding " + std::to_string(i);
    // A struct binding's buffer is bytes; its layout comes from the SPIR-V.
    bool isStruct = str(b.elementType) == "struct";
    out.push_back({str(b.name),
                   isStruct ? kb::ElementType::U8
                            : read.elementType(b.elementType, field),
                   read.access(b.access, field), b.elementCount,
                   str(b.initDistribution), b.initLow, b.initHigh, b.initMean,
                   b.initStddev, b.initStart, b.initStep, isStruct});
  }
  return out;
}

std::vector<StandaloneObject> objects(const kbCompilerStandaloneKernel &c,
                                      SpellingReader &read) {
  std::vector<StandaloneObject> out;
  for (size_t i = 0; i < c.objectCount; ++i) {
    const kbCompilerStandaloneObject &o = c.objects[i];
    std::string field = "object '" + str(o.file) + "'";
    out.push_back({read.target(o.target, field), str(o.file), str(o.entry),
                   o.subgroupSize, o.fullSubgroups != 0,
                   read.settings(o.specialization, field), o.reference != 0,
                   slots(o.parameterOrder, o.parameterOrderCount)});
  }
  return out;
}

StandaloneKernel fromC(const kbCompilerStandaloneKernel &c,
                       SpellingReader &read) {
  StandaloneKernel k;
  k.name = str(c.name);
  k.entry = str(c.entry);
  k.bindings = bindings(c, read);
  for (size_t i = 0; i < c.constantCount; ++i)
    k.constants.push_back(
        {str(c.constants[i].name),
         read.scalarType(c.constants[i].type, "constant " + std::to_string(i)),
         str(c.constants[i].value)});
  k.workgroupSize = dims(c.workgroupSize, c.workgroupSizeCount);
  k.workload = dims(c.workload, c.workloadCount);
  k.workloadPerWorkgroup =
      dims(c.workloadPerWorkgroup, c.workloadPerWorkgroupCount);
  k.sharedMemoryBytes = c.sharedMemoryBytes;
  k.referenceExecutable = str(c.referenceExecutable);
  k.objects = objects(c, read);
  return k;
}

char *copyString(const std::string &text) {
  char *copy = static_cast<char *>(std::malloc(text.size() + 1));
  if (copy)
    std::memcpy(copy, text.c_str(), text.size() + 1);
  return copy;
}

} // namespace

extern "C" {

uint32_t kbCompilerApiVersion(void) { return KB_COMPILER_API_VERSION; }

kbCompilerResult *kbCompilerCompile(const kbCompilerOptions *options) {
  // No exception may cross into C: the only one compile() can raise is
  // std::bad_alloc, which ends the process like any other allocation
  // failure of the caller would.
  SpellingReader read;
  CompileOptions cpp = fromC(*options, read);
  if (!read.error().empty()) {
    CompileResult refused;
    refused.diagnostics = "error: " + read.error() + "\n";
    return new OwnedResult(std::move(refused));
  }
  return new OwnedResult(compile(cpp));
}

void kbCompilerResultDestroy(kbCompilerResult *result) {
  delete static_cast<OwnedResult *>(result);
}

char *kbCompilerWriteStandaloneProgram(const kbCompilerStandaloneKernel *kernel,
                                       const char *path) {
  SpellingReader read;
  StandaloneKernel cpp = fromC(*kernel, read);
  std::string error = read.error().empty() ? std::string()
                                           : "standalone kernel '" + cpp.name +
                                                 "': " + read.error();
  if (error.empty() && writeStandaloneProgram(cpp, str(path), error))
    return nullptr;
  return copyString(error.empty() ? std::string("unknown error") : error);
}

void kbCompilerFreeString(char *text) { std::free(text); }

} // extern "C"
