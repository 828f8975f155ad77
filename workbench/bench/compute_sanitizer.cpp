//===- workbench/bench/compute_sanitizer.cpp - CUDA's checking tool -------===//
#include "workbench/bench/compute_sanitizer.h"

#include "common/cuda_signature.h"
#include "common/file_util.h"
#include "common/tool_search.h"
#include "workbench/support/exit_codes.h"

#include <algorithm>

#include <cstdlib>
#include <sstream>

namespace kb::workbench {

namespace fs = std::filesystem;

const char *toolName(CudaCheck check) {
  switch (check) {
  case CudaCheck::Memcheck:
    return "memcheck";
  case CudaCheck::Racecheck:
    return "racecheck";
  case CudaCheck::Initcheck:
    return "initcheck";
  case CudaCheck::Synccheck:
    return "synccheck";
  }
  return "memcheck";
}

StatusOr<fs::path> findComputeSanitizer() {
  return searchTool("compute-sanitizer", {},
                    "compute-sanitizer comes with the full CUDA toolkit "
                    "(it is not in the driver): --sanitize on a CUDA device "
                    "needs it on the GPU host");
}

std::vector<std::string>
computeSanitizerArgv(const fs::path &tool, CudaCheck check,
                     const fs::path &logFile,
                     const std::vector<std::string> &command) {
  std::vector<std::string> argv = {
      tool.string(), "--tool", toolName(check), "--log-file", logFile.string(),
      // One record per faulting thread: an off-by-one over a million
      // threads would be a log of hundreds of MB. The summary still counts
      // every error; the findings say how many were not printed.
      "--print-limit", "1000",
      // Nothing of the tool's decides the command's exit status.
      "--error-exitcode", "0"};
  if (check == CudaCheck::Memcheck)
    argv.insert(argv.end(), {"--leak-check", "no"});
  if (check == CudaCheck::Racecheck)
    argv.insert(argv.end(), {"--racecheck-report", "analysis"});
  argv.insert(argv.end(), command.begin(), command.end());
  return argv;
}

namespace {

constexpr std::string_view kPrefix = "=========";

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

bool startsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

/// "saxpy(int, float *)+0x1f0" or "void tile<32>(float*)" -> the name
/// without its parameters, offset and return type.
std::string kernelName(std::string_view symbol) {
  if (size_t plus = symbol.rfind("+0x"); plus != std::string_view::npos)
    symbol = symbol.substr(0, plus);
  // The parameter list is the last top-level parenthesis group.
  if (!symbol.empty() && symbol.back() == ')') {
    int depth = 0;
    for (size_t i = symbol.size(); i-- > 0;) {
      depth += symbol[i] == ')' ? 1 : symbol[i] == '(' ? -1 : 0;
      if (depth == 0) {
        symbol = symbol.substr(0, i);
        break;
      }
    }
  }
  // A return type before the name ("void saxpy") is separated by a space
  // outside template brackets.
  int angle = 0;
  size_t start = 0;
  for (size_t i = 0; i < symbol.size(); ++i) {
    angle += symbol[i] == '<' ? 1 : symbol[i] == '>' ? -1 : 0;
    if (symbol[i] == ' ' && angle == 0)
      start = i + 1;
  }
  return std::string(trimmed(symbol.substr(start)));
}

/// |at| starts with "at ": "at saxpy(int)+0x1f0 in saxpy.cu:12" (CUDA 12.3
/// and later; " in file:line" only with line information) or "at 0x1a0 in
/// /src/k.cu:25:tile(float*)" (before).
void readLocation(std::string_view at, CudaFinding &f) {
  std::string_view rest = trimmed(at.substr(3));
  size_t in = rest.find(" in ");
  std::string_view symbol =
      in == std::string_view::npos ? rest : rest.substr(0, in);
  std::string_view where =
      in == std::string_view::npos ? "" : trimmed(rest.substr(in + 4));
  if (!startsWith(symbol, "0x")) {
    f.kernel = kernelName(symbol);
  } else if (size_t colon = where.find(':'); colon != std::string_view::npos) {
    // file:line:kernel(params)
    size_t second = where.find(':', colon + 1);
    if (second != std::string_view::npos) {
      f.kernel = kernelName(where.substr(second + 1));
      where = where.substr(0, second);
    }
  }
  if (where.find(':') != std::string_view::npos)
    f.line = fs::path(std::string(where)).filename().string();
}

/// Adds one indented line of the record being read.
void addDetail(std::string_view detail, CudaFinding &f) {
  if (startsWith(detail, "at ")) { // the record's own location
    if (f.kernel.empty())
      readLocation(detail, f);
    return;
  }
  if (startsWith(detail, "by thread ")) {
    f.thread = std::string(detail.substr(3));
    return;
  }
  // racecheck's other accesses: "and Read access at ...", "Write Thread
  // (23,0,0) at ..." (the hazard report).
  size_t at = detail.find(" at ");
  if (f.kernel.empty() && at != std::string_view::npos &&
      (startsWith(detail, "and ") ||
       detail.find("Thread (") != std::string_view::npos))
    readLocation(detail.substr(at + 1), f);
  f.message += "; " + std::string(detail);
}

/// A new record from its first line; racecheck's names its first access
/// there ("Error: Race reported between Write access at k()+0xf0 in ...").
CudaFinding startRecord(std::string_view content) {
  CudaFinding f;
  // An API error is the program's (our runtime checks every driver call
  // and reports it); a kernel fault also has a record of its own.
  f.error = !startsWith(content, "Warning") && !startsWith(content, "WARN") &&
            !startsWith(content, "Program hit ");
  f.message = std::string(content);
  if (size_t access = content.find(" access at ");
      access != std::string_view::npos)
    readLocation(content.substr(access + 8), f);
  return f;
}

/// The count in "ERROR SUMMARY: 3 errors" (memcheck, initcheck, synccheck;
/// only the first such line: a second counts the unprinted ones) or
/// "RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)".
bool readSummary(std::string_view line, CudaSanitizerLog &log) {
  if (startsWith(line, "ERROR SUMMARY:")) {
    if (log.errorSummary < 0)
      log.errorSummary =
          std::strtol(std::string(line.substr(14)).c_str(), nullptr, 10);
    return true;
  }
  if (startsWith(line, "RACECHECK SUMMARY:")) {
    size_t open = line.find('(');
    if (open != std::string_view::npos && log.errorSummary < 0)
      log.errorSummary =
          std::strtol(std::string(line.substr(open + 1)).c_str(), nullptr, 10);
    return true;
  }
  return startsWith(line, "COMPUTE-SANITIZER") ||
         startsWith(line, "LEAK SUMMARY:") ||
         startsWith(line, "Target application returned");
}

} // namespace

CudaSanitizerLog parseComputeSanitizerLog(std::string_view text) {
  CudaSanitizerLog log;
  bool inBacktrace = false;
  std::istringstream in{std::string(text)};
  for (std::string raw; std::getline(in, raw);) {
    std::string_view line = raw;
    if (!startsWith(line, kPrefix))
      continue; // the program's own output
    line.remove_prefix(kPrefix.size());
    std::string_view content = trimmed(line);
    bool detail = startsWith(line, "  "); // indented under its record
    if (content.empty() || readSummary(content, log)) {
      inBacktrace = false; // "=========" alone ends a record
      continue;
    }
    if (!detail) {
      inBacktrace = false;
      log.findings.push_back(startRecord(content));
      continue;
    }
    // Host and device frames say where the launch came from, not what the
    // kernel did: the record's own "at" line has that.
    if (startsWith(content, "Saved host backtrace") ||
        startsWith(content, "Host Frame") ||
        startsWith(content, "Device Frame"))
      inBacktrace = true;
    if (inBacktrace || log.findings.empty())
      continue;
    addDetail(content, log.findings.back());
  }
  return log;
}

namespace {

/// |entry| as the tool names it: demangled without return type and
/// parameters ("_Z5saxpyiPf" -> "saxpy"); an `extern "C"` name as it is.
std::string demangledName(const std::string &entry) {
  if (!isMangledName(entry))
    return entry;
  StatusOr<CudaSignature> signature = demangleCudaKernel(entry);
  return signature.ok() ? signature->instance : entry;
}

} // namespace

std::vector<CudaKernelOwner> findCudaKernels(const module::Module &module,
                                             const std::string &kernel) {
  std::vector<CudaKernelOwner> owners;
  for (const module::Executable &exe : module.executables)
    for (const module::Variant &v : exe.variants) {
      if (v.format != hal::ExecutableFormat::Ptx)
        continue;
      for (size_t i = 0; i < v.exports.size(); ++i)
        if (v.exports[i].entry == kernel ||
            demangledName(v.exports[i].entry) == kernel)
          owners.push_back({exe.name, i, v.role});
    }
  return owners;
}

namespace {
bool anyRole(const std::vector<CudaKernelOwner> &owners,
             module::VariantRole role) {
  return std::any_of(owners.begin(), owners.end(),
                     [role](const auto &o) { return o.role == role; });
}

bool hasCudaCandidate(const module::Module &module) {
  for (const module::Executable &exe : module.executables)
    for (const module::Variant &v : exe.variants)
      if (v.format == hal::ExecutableFormat::Ptx &&
          v.role == module::VariantRole::Candidate)
        return true;
  return false;
}
} // namespace

std::string cudaVariantName(const module::Module &module,
                            const std::string &kernel) {
  std::vector<CudaKernelOwner> owners = findCudaKernels(module, kernel);
  bool candidate = anyRole(owners, module::VariantRole::Candidate);
  bool reference = anyRole(owners, module::VariantRole::Reference);
  if (candidate && reference)
    return "candidate or reference";
  if (candidate)
    return "candidate";
  if (reference) // the row's name for it (benchmark.cpp)
    return hasCudaCandidate(module) ? "reference" : "generated";
  return "-";
}

std::string attributeCudaKernel(const module::Module &module,
                                const std::string &kernel) {
  std::vector<CudaKernelOwner> owners = findCudaKernels(module, kernel);
  if (owners.empty())
    return kernel.empty() ? std::string("no kernel named")
                          : "kernel `" + kernel + "`";
  bool candidate = anyRole(owners, module::VariantRole::Candidate);
  bool reference = anyRole(owners, module::VariantRole::Reference);
  return "`" + owners.front().executable + "` export " +
         std::to_string(owners.front().exportIndex) +
         (candidate && reference
              ? ", the handwritten or the reference kernel (both are named `" +
                    kernel + "`)"
          : candidate ? ", the handwritten kernel"
                      : ", the reference kernel");
}

namespace {

/// The runtime's own probes of the driver that fail by design (a
/// parameter index past the last, an attribute an older driver lacks): the
/// tool reports each as an API error; they say nothing of the kernel.
bool isRuntimeProbe(const CudaFinding &f) {
  return startsWith(f.message, "Program hit ") &&
         (f.message.find("cuFuncGetParamInfo") != std::string::npos ||
          f.message.find("cuDeviceGetAttribute") != std::string::npos);
}

/// Records of one site (kernel, line, what happened) as one, counting the
/// threads it was seen from; at most |maxSites|.
std::vector<CudaFinding> bySite(std::vector<CudaFinding> records,
                                size_t maxSites) {
  std::vector<CudaFinding> sites;
  std::vector<size_t> seen;
  size_t dropped = 0;
  for (CudaFinding &r : records) {
    std::string first = r.message.substr(0, r.message.find("; "));
    auto same = std::find_if(sites.begin(), sites.end(), [&](const auto &s) {
      return s.kernel == r.kernel && s.line == r.line && s.error == r.error &&
             s.message.compare(0, first.size(), first) == 0;
    });
    if (same != sites.end())
      ++seen[same - sites.begin()];
    else if (sites.size() < maxSites)
      sites.push_back(std::move(r)), seen.push_back(1);
    else
      ++dropped;
  }
  for (size_t i = 0; i < sites.size(); ++i)
    if (seen[i] > 1)
      sites[i].message +=
          "; the same from " + std::to_string(seen[i] - 1) + " more thread(s)";
  if (dropped)
    sites.push_back({true, "", "", "",
                     std::to_string(dropped) +
                         " more record(s) at other sites, not listed"});
  return sites;
}

/// The log's records by site, and a record of its own for a log that is
/// missing, unfinished or short of what its summary counts.
std::vector<CudaFinding> readCudaLog(CudaCheck check, const fs::path &log) {
  StatusOr<std::string> text = readFile(log);
  if (!text.ok())
    return {{true, "", "", "",
             "compute-sanitizer wrote no report (" + text.status().message() +
                 "): the pass did not run"}};
  CudaSanitizerLog parsed = parseComputeSanitizerLog(*text);
  // memcheck's summary counts every record, API errors too; racecheck's
  // counts its errors only.
  long counted = 0;
  for (const CudaFinding &f : parsed.findings)
    counted += check == CudaCheck::Racecheck ? f.error : 1;
  std::vector<CudaFinding> records;
  for (CudaFinding &f : parsed.findings)
    if (!isRuntimeProbe(f))
      records.push_back(std::move(f));
  records = bySite(std::move(records), /*maxSites=*/50);
  if (parsed.errorSummary < 0)
    records.push_back({true, "", "", "",
                       "the report has no summary: the tool or the program "
                       "under it did not finish (" +
                           log.filename().string() + ")"});
  else if (parsed.errorSummary > counted)
    records.push_back({true, "", "", "",
                       "the tool counted " +
                           std::to_string(parsed.errorSummary) +
                           " error(s) and printed " + std::to_string(counted) +
                           " (--print-limit); run compute-sanitizer --tool " +
                           toolName(check) + " on the worker to see the rest"});
  return records;
}

/// ", copy.cu:7, thread (0,0,0) in block (1,0,0)" as far as |f| says.
std::string lineAndThread(const CudaFinding &f) {
  return (f.line.empty() ? "" : ", " + f.line) +
         (f.thread.empty() ? "" : ", " + f.thread);
}

} // namespace

std::vector<SanitizerFinding> cudaFindings(CudaCheck check, const fs::path &log,
                                           const module::Module &module) {
  std::vector<SanitizerFinding> findings;
  for (const CudaFinding &f : readCudaLog(check, log)) {
    std::string where = toolName(check);
    if (!f.kernel.empty())
      where += ", " + attributeCudaKernel(module, f.kernel);
    findings.push_back({where + lineAndThread(f), f.error, f.message});
  }
  return findings;
}

std::vector<report::SanitizerFinding>
cudaBenchFindings(CudaCheck check, const fs::path &log,
                  const module::Module &module) {
  std::vector<report::SanitizerFinding> findings;
  for (const CudaFinding &f : readCudaLog(check, log)) {
    std::string variant = cudaVariantName(module, f.kernel);
    std::string where = toolName(check);
    if (variant == "-" && !f.kernel.empty())
      where += ", kernel `" + f.kernel + "`";
    findings.push_back({variant, "every input set", f.error,
                        where + lineAndThread(f) + ": " + f.message});
  }
  return findings;
}

StatusOr<int> sanitizeBenchmarkOnCuda(const std::string &modulePath,
                                      report::BenchReport &run,
                                      const SanitizerPass &runPass) {
  KB_ASSIGN_OR_RETURN(fs::path tool, findComputeSanitizer());
  KB_ASSIGN_OR_RETURN(module::Module module,
                      module::loadModuleFile(modulePath));
  KB_ASSIGN_OR_RETURN(TempDir logs, TempDir::create(fs::temp_directory_path(),
                                                    "kb-compute-sanitizer."));
  BenchFindings found;
  size_t rowsBefore = run.benchmarks.size();
  int code = 0;
  for (CudaCheck check : kCudaChecks) {
    fs::path log = logs.path() / (std::string(toolName(check)) + ".log");
    std::vector<std::string> wrapper =
        computeSanitizerArgv(tool, check, log, {});
    report::BenchReport scratch; // the same check again: its row once
    int passCode =
        runPass(wrapper, check == CudaCheck::Memcheck ? run : scratch);
    if (check == CudaCheck::Memcheck)
      code = passCode;
    for (report::SanitizerFinding &f : cudaBenchFindings(check, log, module))
      found.add(std::move(f));
    if (passCode == kExitUnavailable)
      break; // no CUDA device: the other tools would not run either
  }
  if (run.benchmarks.size() > rowsBefore)
    found.applyTo(run.benchmarks.back());
  return code;
}

} // namespace kb::workbench
