//===- Driver.cpp - Run the kb compiler in-process ------------------------===//
#include "kb/Driver/Driver.h"

#include "common/mlir_nesting.h"
#include "common/specialization.h"

#include "kb/Dialect/KB/IR/KBAbi.h"
#include "kb/Dialect/KB/IR/KBDialect.h"
#include "kb/Dialect/KB/IR/KBOps.h"
#include "kb/Dialect/KB/Transforms/Passes.h"
#include "kb/Dialect/KB/Transforms/Pipeline.h"
#include "kb/Dialect/KB/Transforms/Substitutions.h"
#include "kb/Codegen/Codegen.h"
#include "kb/Codegen/FatalErrorRecovery.h"
#include "kb/Serialization/HostProgram.h"
#include "kb/Serialization/KbmWriter.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <map>

using namespace mlir;
namespace kbir = mlir::kb;

namespace kb::driver {

bool parseSubstitution(const std::string &text, Substitution &result,
                       std::string &error) {
  size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
    error = "malformed substitution '" + text +
            "': expected NAME=FILE (e.g. saxpy=kernels/saxpy.ptx), where NAME "
            "is an executable or executable/variant";
    return false;
  }
  result.executable = text.substr(0, eq);
  result.file = text.substr(eq + 1);
  return true;
}

/// The backend class of an object file ("cuda", "vulkan") or "source".
static std::string classOf(const std::string &file) {
  StringRef ext = llvm::sys::path::extension(file);
  if (ext.equals_insensitive(".spv"))
    return "vulkan";
  if (ext.equals_insensitive(".ptx") || ext.equals_insensitive(".cubin"))
    return "cuda";
  return "source";
}

/// Two substitutions of the same executable and backend from two different
/// origins (two kernel.toml files) is an error naming both; from the same
/// origin or from flags, the last one wins as documented.
static bool checkDuplicates(const std::vector<Substitution> &substitutions,
                            llvm::raw_ostream &diagnostics) {
  std::map<std::pair<std::string, std::string>, const Substitution *> seen;
  bool ok = true;
  for (const Substitution &s : substitutions) {
    if (s.origin.empty())
      continue;
    auto key = std::make_pair(s.executable, classOf(s.file));
    auto [it, inserted] = seen.emplace(key, &s);
    if (!inserted && it->second->origin != s.origin) {
      diagnostics << "error: executable '" << s.executable
                  << "' is substituted (" << key.second
                  << ") by two kernels: " << it->second->origin << " ("
                  << it->second->file << ") and " << s.origin << " (" << s.file
                  << "); keep `substitutes` in only one of them\n";
      ok = false;
    }
  }
  return ok;
}

static bool validate(const std::vector<Substitution> &substitutions,
                     llvm::raw_ostream &diagnostics) {
  bool ok = true;
  for (const Substitution &s : substitutions) {
    if (s.executable.empty() || s.file.empty()) {
      diagnostics << "error: malformed substitution '" << s.executable << "="
                  << s.file << "'"
                  << (s.origin.empty() ? "" : " from " + s.origin)
                  << ": expected NAME=FILE with both parts non-empty\n";
      ok = false;
    }
  }
  return ok && checkDuplicates(substitutions, diagnostics);
}

static std::vector<std::string>
toPassList(const std::vector<Substitution> &substitutions) {
  std::vector<std::string> list;
  for (const Substitution &s : substitutions)
    list.push_back(s.executable + "=" + s.file);
  return list;
}

/// The launch settings of |substitutions| for the pass's `launch` option:
/// empty when none has any, else one entry per substitution.
static std::vector<std::string>
toLaunchList(const std::vector<Substitution> &substitutions) {
  std::vector<std::string> list;
  bool any = false;
  for (const Substitution &s : substitutions) {
    std::vector<std::string> items;
    if (s.sharedMemoryBytes >= 0)
      items.push_back("shared_memory=" + std::to_string(s.sharedMemoryBytes));
    if (s.subgroupSize)
      items.push_back("subgroup_size=" + std::to_string(s.subgroupSize));
    if (s.fullSubgroups)
      items.push_back("full_subgroups");
    for (const ::kb::SpecializationSetting &setting : s.specialization)
      items.push_back("spec=" + ::kb::formatSpecializationSetting(setting));
    auto dims = [](const std::vector<long long> &values) {
      std::string text;
      for (long long v : values)
        text += (text.empty() ? "" : "x") + std::to_string(v);
      return text;
    };
    if (!s.workgroupSize.empty())
      items.push_back("workgroup_size=" + dims(s.workgroupSize));
    if (!s.workloadPerWorkgroup.empty())
      items.push_back("workload_per_workgroup=" + dims(s.workloadPerWorkgroup));
    if (!s.entry.empty())
      items.push_back("entry=" + s.entry);
    if (!s.parameterOrder.empty()) {
      std::string order;
      for (uint32_t slot : s.parameterOrder)
        order += (order.empty() ? "" : ".") + std::to_string(slot);
      items.push_back("parameter_order=" + order);
    }
    // Last: it takes the rest of the entry, a model name being free text.
    if (!s.device.empty())
      items.push_back("device=" + s.device);
    std::string entry;
    for (const std::string &item : items)
      entry += (entry.empty() ? "" : ";") + item;
    any |= !entry.empty();
    list.push_back(std::move(entry));
  }
  if (!any)
    list.clear();
  return list;
}

/// The origins of |substitutions| for the pass's `origins` option: empty
/// when none has one (flags), else one entry per substitution.
static std::vector<std::string>
toOriginList(const std::vector<Substitution> &substitutions) {
  std::vector<std::string> list;
  bool any = false;
  for (const Substitution &s : substitutions) {
    list.push_back(s.origin);
    any |= !s.origin.empty();
  }
  if (!any)
    list.clear();
  return list;
}

/// Runs |pass| alone on |module|.
static LogicalResult runPass(MLIRContext &context, ModuleOp module,
                             std::unique_ptr<Pass> pass) {
  PassManager pm(&context);
  pm.addPass(std::move(pass));
  return pm.run(module);
}

/// The origin of the last substitution of |executable| with |file|.
static std::string findOrigin(const CompileOptions &options,
                              const std::string &executable,
                              const std::string &file) {
  std::string origin;
  auto scan = [&](const std::vector<Substitution> &list) {
    for (const Substitution &s : list) {
      bool sameFile = s.file == file || llvm::sys::path::filename(s.file) ==
                                            llvm::sys::path::filename(file);
      StringRef exe = StringRef(s.executable).split('/').first;
      if (exe == executable && sameFile)
        origin = s.origin;
    }
  };
  scan(options.sourceSubstitutions);
  scan(options.objectSubstitutions);
  return origin;
}

static std::vector<std::string> toStrings(ArrayAttr array) {
  std::vector<std::string> out;
  if (array)
    for (Attribute a : array)
      if (auto s = a.dyn_cast<StringAttr>())
        out.push_back(s.str());
  return out;
}

/// Copies kb.benchmarks / kb.unbenchmarked into |result|.
static void readBenchmarks(ModuleOp module, const CompileOptions &options,
                           CompileResult &result) {
  if (auto benchmarks =
          module->getAttrOfType<ArrayAttr>(kbir::kBenchmarksAttrName))
    for (Attribute attr : benchmarks) {
      auto d = attr.cast<DictionaryAttr>();
      BenchmarkRecord r;
      r.name = d.getAs<StringAttr>("name").str();
      r.executable = d.getAs<StringAttr>("executable").str();
      r.exportName = d.getAs<StringAttr>("export").str();
      for (int64_t v : d.getAs<DenseI64ArrayAttr>("workload").asArrayRef())
        r.workload.push_back(v);
      for (int64_t v :
           d.getAs<DenseI64ArrayAttr>("workgroup_count").asArrayRef())
        r.workgroupCount.push_back(v);
      r.candidates = toStrings(d.getAs<ArrayAttr>("candidates"));
      r.references = toStrings(d.getAs<ArrayAttr>("references"));
      r.sites = toStrings(d.getAs<ArrayAttr>("sites"));
      if (!options.outputDir.empty())
        r.file = "bench/" + r.name + ".kbm";
      result.benchmarks.push_back(std::move(r));
    }
  if (auto skipped =
          module->getAttrOfType<ArrayAttr>(kbir::kUnbenchmarkedAttrName))
    for (Attribute attr : skipped) {
      auto d = attr.cast<DictionaryAttr>();
      result.unbenchmarked.push_back({d.getAs<StringAttr>("executable").str(),
                                      d.getAs<StringAttr>("export").str(),
                                      d.getAs<StringAttr>("site").str(),
                                      d.getAs<StringAttr>("reason").str()});
    }
}

/// Prints a diagnostic no op is at fault for (a substitution naming no
/// executable): it has an unknown location and names what it is about in its
/// message, so it prints as `error: ...`, not SourceMgr's
/// `<unknown>:0: error: ...`. Located diagnostics are left to SourceMgr.
static LogicalResult printUnlocated(Diagnostic &d, llvm::raw_ostream &os) {
  if (!d.getLocation().isa<UnknownLoc>())
    return failure();
  auto severity = [](DiagnosticSeverity s) {
    switch (s) {
    case DiagnosticSeverity::Error:
      return "error";
    case DiagnosticSeverity::Warning:
      return "warning";
    case DiagnosticSeverity::Note:
      return "note";
    case DiagnosticSeverity::Remark:
      return "remark";
    }
    return "error";
  };
  os << severity(d.getSeverity()) << ": " << d << "\n";
  for (const Diagnostic &note : d.getNotes())
    os << severity(note.getSeverity()) << ": " << note << "\n";
  return success();
}

namespace {
/// The substitution passes' options hold ArrayRefs: these lists must outlive
/// the passes.
struct SubstitutionLists {
  explicit SubstitutionLists(const CompileOptions &o)
      : sources(toPassList(o.sourceSubstitutions)),
        objects(toPassList(o.objectSubstitutions)),
        sourceOrigins(toOriginList(o.sourceSubstitutions)),
        objectOrigins(toOriginList(o.objectSubstitutions)),
        sourceLaunch(toLaunchList(o.sourceSubstitutions)),
        objectLaunch(toLaunchList(o.objectSubstitutions)) {}
  std::vector<std::string> sources, objects, sourceOrigins, objectOrigins,
      sourceLaunch, objectLaunch;

  /// The pass options of source or object substitution: the lists above,
  /// the directories and the shared settings of |o|.
  kbir::SubstituteExecutablesPassOptions
  sourceOptions(const CompileOptions &o) {
    return passOptions(o, sources, sourceOrigins, sourceLaunch,
                       o.sourceDirectories);
  }
  kbir::SubstituteExecutablesPassOptions
  objectOptions(const CompileOptions &o) {
    return passOptions(o, objects, objectOrigins, objectLaunch,
                       o.objectDirectories);
  }

private:
  static kbir::SubstituteExecutablesPassOptions
  passOptions(const CompileOptions &options, ArrayRef<std::string> list,
              ArrayRef<std::string> origins, ArrayRef<std::string> launch,
              ArrayRef<std::string> directories) {
    kbir::SubstituteExecutablesPassOptions o;
    o.substitutions = list;
    o.origins = origins;
    o.launch = launch;
    o.directories = directories;
    o.searchPaths = options.searchPaths;
    o.strict = options.strict;
    o.printNotes = options.printNotes;
    return o;
  }
};

/// The .kbm modules. They are built in memory first, so that a program the
/// writer cannot express fails the compile before any file is written, and
/// written last, after the dumps.
class KbmOutputs {
public:
  KbmOutputs(const CompileOptions &options, CompileResult &result)
      : options_(options), result_(result) {}

  bool wanted() const {
    return !options_.outputDir.empty() || !options_.dumpBenchmarksDir.empty();
  }

  LogicalResult build(ModuleOp module) {
    Timer timer(result_);
    readBenchmarks(module, options_, result_);
    if (failed(
            kbir::buildKbmFiles(module, !options_.outputDir.empty(), files_)))
      return failure();
    for (const kbir::KbmFile &f : files_)
      result_.kbmBytes += f.bytes.size();
    return success();
  }

  LogicalResult write(llvm::raw_ostream &diagnostics) {
    Timer timer(result_);
    if (!options_.outputDir.empty() &&
        failed(writeTo(options_.outputDir, files_, diagnostics)))
      return failure();
    if (options_.dumpBenchmarksDir.empty())
      return success();
    SmallVector<kbir::KbmFile> dump;
    for (const kbir::KbmFile &f : files_)
      if (StringRef(f.path).startswith("bench/"))
        dump.push_back({StringRef(f.path).drop_front(6).str(), f.bytes});
    return writeTo(options_.dumpBenchmarksDir, dump, diagnostics);
  }

private:
  /// Adds the time of one scope to kbmMilliseconds.
  struct Timer {
    explicit Timer(CompileResult &r)
        : result(r), start(std::chrono::steady_clock::now()) {}
    ~Timer() {
      result.kbmMilliseconds += std::chrono::duration<double, std::milli>(
                                    std::chrono::steady_clock::now() - start)
                                    .count();
    }
    CompileResult &result;
    std::chrono::steady_clock::time_point start;
  };

  LogicalResult writeTo(const std::string &dir, ArrayRef<kbir::KbmFile> files,
                        llvm::raw_ostream &diagnostics) {
    std::string error;
    if (failed(kbir::writeKbmFiles(dir, files, error))) {
      diagnostics << "error: " << error << "\n";
      return failure();
    }
    for (const kbir::KbmFile &f : files)
      result_.writtenFiles.push_back((llvm::Twine(dir) + "/" + f.path).str());
    return success();
  }

  const CompileOptions &options_;
  CompileResult &result_;
  SmallVector<kbir::KbmFile> files_;
};
} // namespace

/// The program, parsed and verified; null after a diagnostic.
static OwningOpRef<ModuleOp> parseProgram(const CompileOptions &options,
                                          MLIRContext &context,
                                          llvm::SourceMgr &sourceMgr,
                                          llvm::raw_ostream &diagnostics) {
  std::string error;
  auto input = openInputFile(options.programPath, &error);
  if (!input) {
    diagnostics << "error: cannot read program '" << options.programPath
                << "': " << error << "\n";
    return nullptr;
  }
  if (auto excess = ::kb::findExcessNesting(
          std::string_view(input->getBufferStart(), input->getBufferSize()))) {
    diagnostics << ::kb::describeExcessNesting(options.programPath, *excess)
                << "\n";
    return nullptr;
  }
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  return parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
}

/// The pipeline's front end alone: a model becomes dispatches.
static LogicalResult runFrontEnd(MLIRContext &context, ModuleOp module) {
  kbir::PipelineOptions frontEnd;
  frontEnd.stopAfter = kbir::PipelineStep::FormDispatches;
  PassManager pm(&context);
  kbir::buildCompilerPipeline(pm, frontEnd);
  return pm.run(module);
}

/// The compiler pipeline (kb/Dialect/KB/Transforms/Pipeline.h), with the
/// codegen timings going to |result|. The pass manager verifies the result
/// of every pass.
static LogicalResult runPipeline(MLIRContext &context, ModuleOp module,
                                 const CompileOptions &options,
                                 bool wantBenchmarks, CompileResult &result) {
  SubstitutionLists lists(options);
  kbir::PipelineOptions pipeline;
  pipeline.sources = lists.sourceOptions(options);
  pipeline.objects = lists.objectOptions(options);
  pipeline.targets = options.targets;
  pipeline.codegen = options.codegen;
  pipeline.codegenOptions.emitCubin = options.emitCubin;
  pipeline.codegenOptions.ptxas = options.ptxasPath;
  pipeline.benchmarks = wantBenchmarks;
  SmallVector<kbir::CodegenRecord> records;
  pipeline.codegenRecords = &records;
  // runFrontEnd has formed the dispatches already.
  pipeline.startAt = kbir::PipelineStep::SubstituteSources;
  PassManager pm(&context);
  kbir::buildCompilerPipeline(pm, pipeline);
  LogicalResult ran = pm.run(module);
  result.codegen.insert(result.codegen.end(), records.begin(), records.end());
  return ran;
}

/// Writes the compiled module to options.outputPath (kept only when
/// |writeRest| succeeds), then runs |writeRest|.
static bool writeOutputs(ModuleOp module, const CompileOptions &options,
                         llvm::raw_ostream &diagnostics,
                         llvm::function_ref<bool()> writeRest) {
  if (options.outputPath.empty())
    return writeRest();
  std::string outputError;
  auto output = openOutputFile(options.outputPath, &outputError);
  if (!output) {
    diagnostics << "error: cannot write '" << options.outputPath
                << "': " << outputError << "\n";
    return false;
  }
  if (options.emitBytecode)
    writeBytecodeToFile(module, output->os());
  else
    module.print(output->os());
  // Not kept: the file is removed when |output| goes away.
  if (std::string failed =
          kbir::closeOutputStream(output->os(), options.outputPath);
      !failed.empty()) {
    diagnostics << "error: " << failed << "\n";
    return false;
  }
  if (!writeRest())
    return false;
  output->keep();
  return true;
}

static CompileResult compilePipeline(const CompileOptions &options) {
  CompileResult result;
  std::string diagnosticsText;
  llvm::raw_string_ostream diagnostics(diagnosticsText);
  auto finish = [&](bool ok) {
    result.ok = ok;
    diagnostics.flush();
    result.diagnostics = diagnosticsText;
    return result;
  };

  if (!validate(options.sourceSubstitutions, diagnostics) ||
      !validate(options.objectSubstitutions, diagnostics))
    return finish(false);

  DialectRegistry registry;
  kbir::registerPipelineInputDialects(registry);
  MLIRContext context(registry);
  // The op a diagnostic is attached to is already shown by its location.
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &context, diagnostics);
  ScopedDiagnosticHandler unlocated(
      &context, [&](Diagnostic &d) { return printUnlocated(d, diagnostics); });

  OwningOpRef<ModuleOp> module =
      parseProgram(options, context, sourceMgr, diagnostics);
  if (!module || failed(runFrontEnd(context, *module)))
    return finish(false);
  // The source dump shows the program as given (a model: its formed
  // dispatches) before substitution, so that feeding the dump back with
  // --substitute-executable-sources-from is a no-op; it is written only
  // once everything else succeeded.
  OwningOpRef<ModuleOp> original;
  if (!options.dumpSourcesDir.empty())
    original = module->clone();

  KbmOutputs kbm(options, result);
  // Before code generation, which a program this large would spend minutes
  // and GBs on only to fail at the writer.
  if (!options.outputDir.empty() && failed(kbir::checkKbmLimits(*module)))
    return finish(false);
  if (failed(runPipeline(context, *module, options, kbm.wanted(), result)) ||
      (kbm.wanted() && failed(kbm.build(*module))))
    return finish(false);

  for (const kbir::SubstitutionRecord &record :
       kbir::readSubstitutionRecords(*module)) {
    result.notes.push_back(kbir::formatSubstitutionNote(record));
    // The pass records the kind it ran as (its `kind` option).
    SubstitutionKind kind =
        parseSubstitutionKind(record.kind).value_or(SubstitutionKind::Object);
    result.substitutions.push_back(
        {record.executable, record.variant, kind, record.file, record.reference,
         findOrigin(options, record.executable, record.file), record.device});
  }

  // Dumps run after the output is printed and before it is kept, so that on
  // any failure nothing is left behind.
  return finish(writeOutputs(*module, options, diagnostics, [&] {
    if (original && failed(runPass(context, *original,
                                   kbir::createDumpExecutableSourcesPass(
                                       {options.dumpSourcesDir}))))
      return false;
    if (!options.dumpBinariesDir.empty() &&
        failed(runPass(
            context, *module,
            kbir::createDumpExecutableBinariesPass({options.dumpBinariesDir}))))
      return false;
    return succeeded(kbm.write(diagnostics));
  }));
}

CompileResult compile(const CompileOptions &options) {
  // Codegen recovers from LLVM fatal errors per variant, with a diagnostic
  // at the variant; this catches any other so that no input ends the
  // process that embeds the compiler.
  CompileResult result;
  std::string fatal;
  if (failed(kbir::runRecoveringFatalErrors(
          [&] { result = compilePipeline(options); }, fatal))) {
    result = CompileResult();
    result.diagnostics = "error: the compiler stopped with an LLVM fatal "
                         "error: " +
                         fatal + "\n";
  }
  return result;
}

} // namespace kb::driver
