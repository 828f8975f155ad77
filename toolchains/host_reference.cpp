//===- toolchains/host_reference.cpp - A C/C++ reference as a shared object
//===//
#include "toolchains/host_reference.h"

#include "common/file_util.h"
#include "common/process.h"
#include "common/sha256.h"
#include "toolchains/build_cache.h"
#include "toolchains/depfile.h"
#include "toolchains/scratch_dir.h"
#include "toolchains/shell_safety.h"
#include "toolchains/toolchains.h"

#include <algorithm>
#include <cctype>
#include <chrono>

namespace fs = std::filesystem;

namespace kb::toolchains {

namespace {

constexpr const char *kShimStem = "kb_host_reference";

bool isCxx(const fs::path &source) { return source.extension() != ".c"; }

/// The C type of a binding's element: f16/bf16 as their bits.
const char *elementCType(ElementType type) {
  switch (type) {
  case ElementType::I8:
    return "int8_t";
  case ElementType::U8:
    return "uint8_t";
  case ElementType::I16:
    return "int16_t";
  case ElementType::U16:
  case ElementType::F16:
  case ElementType::BF16:
    return "uint16_t";
  case ElementType::I32:
    return "int32_t";
  case ElementType::U32:
    return "uint32_t";
  case ElementType::I64:
    return "int64_t";
  case ElementType::U64:
    return "uint64_t";
  case ElementType::F32:
    return "float";
  case ElementType::F64:
    return "double";
  }
  return "void";
}

const char *scalarCType(ScalarType type) {
  switch (type) {
  case ScalarType::I32:
    return "int32_t";
  case ScalarType::U32:
    return "uint32_t";
  case ScalarType::F32:
    return "float";
  case ScalarType::I64:
    return "int64_t";
  case ScalarType::U64:
    return "uint64_t";
  case ScalarType::F64:
    return "double";
  }
  return "int";
}

/// "binding_NAME"-style C identifier of a parameter for the signature text.
std::string parameterName(const std::string &name, const char *fallback,
                          size_t index) {
  bool usable =
      !name.empty() && !std::isdigit(static_cast<unsigned char>(name.front()));
  for (char c : name)
    usable &= std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  return usable ? name : fallback + std::to_string(index);
}

std::string describeFailure(const HostReferenceSpec &spec,
                            const std::string &what) {
  return "host reference " + spec.source.filename().string() + " of kernel `" +
         spec.kernel + "`" +
         (spec.manifest.empty() ? std::string()
                                : " (" + spec.manifest.string() + ")") +
         ": " + what;
}

/// The compile's argv, tool path first; |shim| and |output| are names in
/// the scratch directory.
std::vector<std::string> compileArgv(const ToolIdentity &compiler,
                                     const HostReferenceSpec &spec) {
  bool cxx = isCxx(spec.source);
  std::vector<std::string> argv = {compiler.path.string(),
                                   "-x",
                                   cxx ? "c++" : "c",
                                   cxx ? "-std=gnu++17" : "-std=gnu11",
                                   "-O2",
                                   "-fPIC",
                                   "-shared",
                                   "-fvisibility=hidden",
                                   "-Wl,--no-undefined",
                                   "-MMD",
                                   "-MF",
                                   std::string(kShimStem) + ".d",
                                   "-MT",
                                   std::string(kShimStem) + ".so"};
  if (!cxx)
    for (const char *error :
         {"-Werror=implicit-function-declaration",
          "-Werror=incompatible-pointer-types", "-Werror=int-conversion"})
      argv.push_back(error);
  for (const auto &[name, value] : spec.defines)
    argv.push_back("-D" + name + (value.empty() ? "" : "=" + value));
  // The generated file includes the source by name from its directory.
  argv.push_back("-iquote");
  argv.push_back(spec.source.parent_path().string());
  for (const fs::path &dir : spec.includeDirs)
    argv.push_back("-I" + dir.string());
  argv.push_back(std::string(kShimStem) + (cxx ? ".cpp" : ".c"));
  argv.push_back("-o");
  argv.push_back(std::string(kShimStem) + ".so");
  if (cxx)
    argv.push_back("-lstdc++");
  argv.push_back("-lm");
  return argv;
}

/// The checks before the compiler runs: a source that exists, a function
/// name that is an identifier, a file name the generated #include can
/// hold, defines no shell could misread (one rule with the kernels').
Status checkSpec(const HostReferenceSpec &spec) {
  std::error_code ec;
  if (!fs::is_regular_file(spec.source, ec))
    return notFound(describeFailure(spec, "the file " + spec.source.string() +
                                              " does not exist"));
  if (parameterName(spec.function, "", 0) != spec.function)
    return invalidArgument(describeFailure(
        spec, "`" + spec.function +
                  "` is not a C identifier; name the function with "
                  "`reference = { sources = [\"...\"], entry = \"NAME\" }`"));
  std::string name = spec.source.filename().string();
  if (name.find_first_of("\"\\\n\r") != std::string::npos)
    return invalidArgument(describeFailure(
        spec, "the file name cannot be #included (it holds a quote, a "
              "backslash or a line break); rename it"));
  for (const auto &[macro, value] : spec.defines) {
    KB_RETURN_IF_ERROR(
        checkMacroName("define of kernel `" + spec.kernel + "`", macro));
    KB_RETURN_IF_ERROR(checkShellSafe("the value of define `" + macro + "`",
                                      value, ShellExposure::DoubleQuoted));
  }
  return okStatus();
}

/// The primary cache key: the compiler, the argv without the machine's
/// paths, the generated file and the source.
std::string cacheKey(const ToolIdentity &compiler,
                     const std::vector<std::string> &argv,
                     const std::string &shim, const std::string &source,
                     const HostReferenceSpec &spec) {
  CacheKeyBuilder key;
  key.add("kernel-bench host reference v1");
  key.add("compiler", compiler.path.string()).add(compiler.version);
  for (size_t i = 1; i < argv.size(); ++i)
    key.add(argv[i] == spec.source.parent_path().string() ? "<source-dir>"
                                                          : argv[i]);
  key.add("shim", shim);
  key.add("source", source);
  return key.finish();
}

class HostReferenceJob {
public:
  HostReferenceJob(const Toolchains &toolchains, BuildCache *cache,
                   const BuildOptions &options, const HostReferenceSpec &spec)
      : toolchains_(toolchains), cache_(cache), options_(options), spec_(spec) {
  }

  Status run(const fs::path &outFile);
  HostReferenceResult &result() { return result_; }

private:
  Status compile(const std::vector<std::string> &argv, const std::string &shim,
                 CacheEntry &entry);
  Status publish(const fs::path &outFile, const std::string &bytes,
                 std::string hash);
  std::vector<std::string> dependencies(const fs::path &depfile) const;

  const Toolchains &toolchains_;
  BuildCache *cache_;
  const BuildOptions &options_;
  const HostReferenceSpec &spec_;
  HostReferenceResult result_;
};

Status HostReferenceJob::run(const fs::path &outFile) {
  KB_RETURN_IF_ERROR(checkSpec(spec_));
  KB_ASSIGN_OR_RETURN(ToolIdentity compiler, toolchains_.find("host-cxx"));
  KB_RETURN_IF_ERROR(
      checkShellSafe("the path of host-cxx `" + compiler.path.string() + "`",
                     compiler.path.string(), ShellExposure::Bare));
  KB_ASSIGN_OR_RETURN(std::string source, readFile(spec_.source));
  const std::vector<std::string> argv = compileArgv(compiler, spec_);
  const std::string shim = hostReferenceShim(spec_);
  std::string key;
  const fs::path sourceDir = spec_.source.parent_path();
  if (cache_) {
    key = cacheKey(compiler, argv, shim, source, spec_);
    if (std::optional<CacheEntry> hit = cache_->lookup(key, sourceDir);
        hit && hit->outputs.count("so")) {
      result_.cacheHit = true;
      result_.commands = hit->commands;
      result_.diagnostics = hit->diagnostics;
      auto hash = hit->outputHashes.find("so");
      return publish(outFile, hit->outputs["so"],
                     hash != hit->outputHashes.end() ? hash->second : "");
    }
  }
  auto jobStart = fs::file_time_type::clock::now();
  CacheEntry entry;
  KB_RETURN_IF_ERROR(compile(argv, shim, entry));
  KB_RETURN_IF_ERROR(publish(outFile, entry.outputs["so"], ""));
  if (cache_)
    if (Status stored = cache_->store(key, entry, jobStart, sourceDir);
        !stored.ok())
      result_.diagnostics.push_back(
          {"kernel-bench", "", 0, 0, Severity::Warning,
           "the host reference built but could not be cached: " +
               stored.message(),
           ""});
  return okStatus();
}

Status HostReferenceJob::compile(const std::vector<std::string> &argv,
                                 const std::string &shim, CacheEntry &entry) {
  KB_ASSIGN_OR_RETURN(ScratchDir scratch, ScratchDir::create());
  const fs::path dir = scratch.path();
  KB_RETURN_IF_ERROR(writeFileAtomic(
      dir / (std::string(kShimStem) + (isCxx(spec_.source) ? ".cpp" : ".c")),
      shim));
  ProcessOptions process;
  process.argv = argv;
  process.workingDirectory = dir;
  process.env = {{"LC_ALL", "C"}};
  process.timeout = options_.timeout;
  process.memoryLimitBytes = options_.memoryLimitBytes;
  KB_ASSIGN_OR_RETURN(ProcessResult ran, runProcess(process));
  result_.commands.push_back(
      {"host-cxx", argv, ran.seconds, ran.exitCode, ran.signal, ran.timedOut});
  std::string output = ran.stdoutText + ran.stderrText;
  result_.diagnostics = parseDiagnostics("host-cxx", output);
  if (!ran.succeeded()) {
    result_.failureLog = formatCommandLine(argv) + "\n" + output;
    std::string first;
    for (const Diagnostic &d : result_.diagnostics)
      if (first.empty() &&
          (d.severity == Severity::Error || d.severity == Severity::Fatal))
        first = ": " + formatDiagnostic(d, false);
    return invalidArgument(describeFailure(
        spec_, "the host compiler failed (" + ran.describe() + ")" + first +
                   "; the function must be callable as `" +
                   hostReferenceSignature(spec_) +
                   "` (the kernel's parameters, then the workload)"));
  }
  KB_ASSIGN_OR_RETURN(entry.outputs["so"],
                      readFile(dir / (std::string(kShimStem) + ".so")));
  entry.dependencies = dependencies(dir / (std::string(kShimStem) + ".d"));
  entry.diagnostics = result_.diagnostics;
  entry.commands = result_.commands;
  return okStatus();
}

/// The files the compile read (the source and its headers), from the
/// depfile; -MMD leaves out the system headers, which the compiler's
/// identity covers.
std::vector<std::string>
HostReferenceJob::dependencies(const fs::path &depfile) const {
  std::vector<std::string> deps;
  std::string source = spec_.source.lexically_normal().string();
  if (StatusOr<std::string> text = readFile(depfile); text.ok())
    if (auto rules = parseDepfile(*text, depfile.string()); rules.ok())
      for (const std::string &dep : allDependencies(*rules)) {
        fs::path path(dep);
        if (path.is_relative()) // the generated file, whose text is keyed
          continue;
        deps.push_back(path.lexically_normal().string());
      }
  if (std::find(deps.begin(), deps.end(), source) == deps.end())
    deps.push_back(source);
  return deps;
}

Status HostReferenceJob::publish(const fs::path &outFile,
                                 const std::string &bytes, std::string hash) {
  if (hash.empty())
    hash = sha256Hex(bytes);
  std::optional<std::string> existing =
      cache_ ? cache_->hashFile(outFile.string()) : std::nullopt;
  if (!existing || *existing != hash) {
    std::error_code ec;
    fs::create_directories(outFile.parent_path(), ec);
    KB_RETURN_IF_ERROR(writeFileAtomic(outFile, bytes));
  }
  result_.output = OutputFile{"so", outFile, hash, uint64_t(bytes.size())};
  return okStatus();
}

} // namespace

std::string hostReferenceSignature(const HostReferenceSpec &spec) {
  const KernelAbi &abi = spec.abi;
  std::string text = "void " + spec.function + "(";
  for (uint32_t slot : parameterSlots(abi)) {
    if (slot < abi.bindings.size()) {
      const Binding &b = abi.bindings[slot];
      text += std::string(b.access == Access::ReadOnly ? "const " : "") +
              elementCType(b.elementType) + " *" +
              parameterName(b.name, "binding", slot) + ", ";
    } else if (slot - abi.bindings.size() < abi.constants.size()) {
      size_t j = slot - abi.bindings.size();
      text += std::string(scalarCType(abi.constants[j].type)) + " " +
              parameterName(abi.constants[j].name, "constant", j) + ", ";
    }
  }
  return text + "const uint64_t workload[3])";
}

std::string hostReferenceShim(const HostReferenceSpec &spec) {
  const KernelAbi &abi = spec.abi;
  const std::vector<ParamSlot> layout = pushConstantLayout(abi);
  std::string text =
      "/* Generated by kernel-bench: calls the host reference of kernel `" +
      spec.kernel +
      "`. */\n#include <stdint.h>\n#include <string.h>\n"
      "#include \"" +
      spec.source.filename().string() + "\"\n" +
      "#ifdef __cplusplus\nextern \"C\"\n#endif\n"
      "__attribute__((visibility(\"default\"))) int " +
      kHostReferenceEntry +
      "(void *const *bindings, uint32_t bindingCount,\n"
      "    const unsigned char *constants, uint64_t constantBytes,\n"
      "    const uint64_t *workload) {\n"
      "  if (bindingCount != " +
      std::to_string(abi.bindings.size()) + "u || constantBytes < " +
      std::to_string(pushConstantSize(abi)) +
      "u)\n    return 1;\n"
      "  (void)bindings; (void)constants;\n";
  for (size_t j = 0; j < abi.constants.size(); ++j)
    text += "  " + std::string(scalarCType(abi.constants[j].type)) + " c" +
            std::to_string(j) + ";\n  memcpy(&c" + std::to_string(j) +
            ", constants + " + std::to_string(layout[j].offset) + ", sizeof c" +
            std::to_string(j) + ");\n";
  text += "  " + spec.function + "(";
  for (uint32_t slot : parameterSlots(abi)) {
    if (slot < abi.bindings.size())
      text += "(" + std::string(elementCType(abi.bindings[slot].elementType)) +
              " *)bindings[" + std::to_string(slot) + "], ";
    else
      text += "c" + std::to_string(slot - abi.bindings.size()) + ", ";
  }
  return text + "workload);\n  return 0;\n}\n";
}

HostReferenceResult buildHostReference(const Toolchains &toolchains,
                                       BuildCache *cache,
                                       const BuildOptions &options,
                                       const HostReferenceSpec &spec,
                                       const fs::path &outFile) {
  HostReferenceJob job(toolchains, cache, options, spec);
  job.result().status = job.run(outFile);
  return std::move(job.result());
}

} // namespace kb::toolchains
