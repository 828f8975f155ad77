//===- workbench/bench/sanitizer.cpp - Checking-layer findings ------------===//
#include "workbench/bench/sanitizer.h"

#include "common/terminal_text.h"
#include "workbench/report/report_rows.h"

#include <algorithm>
#include <cstdio>
#include <regex>

namespace kb::workbench {

namespace {

// What makes two findings the same site: the message without what varies
// with the data and the thread schedule — the byte a wild index reached and
// the invocation the layer happened to catch first. A kernel that reads past
// its buffer does so from every input, at other bytes and from other
// invocations, and that is one finding.
std::string findingSite(const std::string &message) {
  static const std::regex volatileParts(
      R"((highest byte accessed was|Global invocation ID \(x, y, z\) =) (\([^)]*\)|[0-9]+))");
  // How many guard bytes changed depends on the data written (a byte that
  // happens to equal the canary is not seen).
  static const std::regex guardBytes(R"(: [0-9]+ of its ([0-9]+) guard bytes)");
  return std::regex_replace(std::regex_replace(message, volatileParts, "$1 _"),
                            guardBytes, ": _ of its $1 guard bytes");
}

bool hasCandidate(const module::Executable &exe) {
  return std::any_of(exe.variants.begin(), exe.variants.end(),
                     [](const module::Variant &v) {
                       return v.role == module::VariantRole::Candidate;
                     });
}

} // namespace

std::string briefValidationMessage(const std::string &message) {
  std::string text = message;
  // "Validation Error: [ VUID ] Object 0: handle = ...; | MessageID = 0x.. |
  // TEXT The Vulkan spec states: ...": keep the head and TEXT.
  if (size_t id = text.find("| MessageID = "); id != std::string::npos) {
    size_t body = text.find("| ", id + 2);
    size_t objects = text.find(" Object 0: ");
    std::string head = text.substr(
        0, objects != std::string::npos && objects < id ? objects : id);
    text = head + " " +
           (body == std::string::npos ? std::string() : text.substr(body + 2));
  }
  if (size_t spec = text.find(" The Vulkan spec states:");
      spec != std::string::npos)
    text.resize(spec);
  // GPU-assisted validation names objects by handle ("Command buffer
  // (0x5597fd8b1740).") and asks for debug info at the end: neither helps
  // (the handles change from run to run, so equal findings would differ).
  static const std::regex handles(
      R"( ?(Command buffer|Pipeline|Shader Module|Device|Queue|Descriptor set) \(0x[0-9a-fA-F]+\)\.)");
  text = std::regex_replace(text, handles, "");
  if (size_t noLine = text.find(" Unable to find SPIR-V OpLine");
      noLine != std::string::npos)
    text.resize(noLine);
  // Builds compile GLSL with -g, so the layer names the line; the file it
  // names is the staged copy the build compiled (`kernel.comp`), which is
  // the kernel's own source under another name.
  static const std::regex staged(
      R"(Shader validation error occurred in file kernel\.comp at line ([0-9]+)\.?)");
  text = std::regex_replace(
      text, staged,
      "Shader validation error at line $1 of the kernel's source. ");
  if (size_t noLine = text.find("Unable to find suitable #line directive");
      noLine != std::string::npos)
    text.resize(noLine);
  while (!text.empty() && text.back() == ' ')
    text.pop_back();
  return terminalText(text);
}

void Sanitizer::attribute(const std::string &where) {
  for (hal::ValidationMessage &m : log_->take()) {
    if (!m.info) {
      findings_.push_back({where, m.error, briefValidationMessage(m.text)});
    } else if (m.text.find("DEBUG-PRINTF") != std::string::npos) {
      PrintedLine line = parseDebugPrintf(m.text);
      line.where = where;
      printed_.push_back(std::move(line));
    } // other information (the loader's, the layer's) is not a finding
  }
}

void BenchFindings::afterRun(const std::string &variant,
                             const std::string &inputs,
                             const module::GuardCheck &guards) {
  std::vector<std::pair<bool, std::string>> messages;
  for (hal::ValidationMessage &m : log_->take())
    if (!m.info) // the loader's and the layer's information is no finding
      messages.push_back({m.error, briefValidationMessage(m.text)});
  for (const module::GuardDamage &d : guards.damage)
    messages.push_back({true, d.describe()});
  if (!guards.unguarded.empty())
    messages.push_back({false, guards.unguarded});
  for (auto &[error, message] : messages) {
    report::SanitizerFinding found{variant, inputs, error, message};
    // The same site from another input set is one finding, found there too;
    // the message kept is the first input's.
    std::string site = findingSite(found.message);
    auto same = std::find_if(findings_.begin(), findings_.end(),
                             [&](const report::SanitizerFinding &f) {
                               return f.variant == found.variant &&
                                      f.error == found.error &&
                                      findingSite(f.message) == site;
                             });
    if (same == findings_.end())
      findings_.push_back(std::move(found));
    else if (same->inputs.find(inputs) == std::string::npos)
      same->inputs += ", " + inputs;
  }
}

void BenchFindings::applyTo(report::Benchmark &b) {
  afterRun("-", "after the checks");
  findings_.insert(findings_.begin(), b.sanitizer.begin(), b.sanitizer.end());
  auto firstError =
      std::find_if(findings_.begin(), findings_.end(),
                   [](const report::SanitizerFinding &f) { return f.error; });
  if (firstError != findings_.end()) {
    size_t errors = std::count_if(
        findings_.begin(), findings_.end(),
        [](const report::SanitizerFinding &f) { return f.error; });
    // What the row said before (INCORRECT, an ERROR of the device) stays.
    // A row that is SANITIZER already (the worker's guard bands) is named
    // again from all of them.
    std::string was =
        b.status != report::BenchStatus::Ok &&
                b.status != report::BenchStatus::Sanitizer
            ? "; also " + report::statusWord(b.status) + ": " + b.reason
            : "";
    b.status = report::BenchStatus::Sanitizer;
    b.reason = std::to_string(errors) +
               " sanitizer error(s); first: " + firstError->variant +
               " (inputs " + firstError->inputs + "): " + firstError->message +
               was;
  }
  b.sanitizer = std::move(findings_);
  findings_.clear();
}

PrintedLine parseDebugPrintf(const std::string &message) {
  PrintedLine line;
  std::string text = message;
  if (size_t id = text.find("| MessageID = "); id != std::string::npos)
    if (size_t body = text.find("| ", id + 2); body != std::string::npos)
      text = text.substr(body + 2);
  const std::string idLabel = "Global invocation ID (x, y, z) = ";
  size_t after = 0;
  if (size_t at = text.find(idLabel); at != std::string::npos) {
    size_t open = at + idLabel.size();
    size_t close = text.find(')', open);
    if (close != std::string::npos) {
      std::string ids = text.substr(open, close + 1 - open);
      ids.erase(std::remove(ids.begin(), ids.end(), ' '), ids.end());
      for (size_t c = 1; c + 1 < ids.size(); ++c)
        if (ids[c] == ',')
          ids.insert(++c, " ");
      line.invocation = ids;
      after = close + 1;
    }
  }
  // Verbose: "... Global invocation ID (x, y, z) = (37, 0, 0 ) TEXT Unable
  // to find SPIR-V OpLine for source information. ..." (without debug info).
  text = text.substr(after);
  if (size_t at = text.find(" Unable to find SPIR-V OpLine");
      at != std::string::npos)
    text.resize(at);
  // With debug info (builds use glslc -g) the layer names the line of the
  // debugPrintfEXT call, in the staged copy's name (kernel.comp).
  static const std::regex where(
      R"( ?Debug shader printf message generated in file [^ ]+ at line ([0-9]+)\.?.*$)");
  std::smatch m;
  std::string sourceLine;
  if (std::regex_search(text, m, where)) {
    sourceLine = m[1].str();
    text.resize(m.position(0));
  }
  size_t first = text.find_first_not_of(" \n");
  size_t last = text.find_last_not_of(" \n");
  line.text = terminalText(first == std::string::npos
                               ? std::string()
                               : text.substr(first, last + 1 - first));
  if (!sourceLine.empty())
    line.text += " (line " + sourceLine + " of the kernel's source)";
  return line;
}

bool usesDebugPrintf(const module::Module &module) {
  for (const module::Executable &exe : module.executables)
    for (const module::Variant &v : exe.variants)
      if (v.format == hal::ExecutableFormat::Spirv &&
          v.data.find("NonSemantic.DebugPrintf") != std::string::npos)
        return true;
  return false;
}

void printPrintedLines(const std::vector<PrintedLine> &printed,
                       size_t maxShown) {
  for (size_t i = 0; i < printed.size() && i < maxShown; ++i)
    std::printf("printf: %s%s%s: %s\n", printed[i].where.c_str(),
                printed[i].invocation.empty() ? "" : ", invocation ",
                printed[i].invocation.c_str(), printed[i].text.c_str());
  if (printed.size() > maxShown)
    std::printf("printf: ... and %zu more line(s)\n",
                printed.size() - maxShown);
}

void Sanitizer::printPrinted(size_t maxShown) const {
  printPrintedLines(printed_, maxShown);
}

std::string describeRunDispatch(const std::string &run,
                                const module::Module &module,
                                const module::Function &function,
                                bool substituted, size_t op) {
  const module::Op &o = function.ops[op];
  const module::Executable &exe = module.executables[o.executable];
  return run + ", op " + std::to_string(op) + " (`" + exe.name + "` export " +
         std::to_string(o.exportIndex) + ", the " +
         (substituted && hasCandidate(exe) ? "handwritten" : "generated") +
         " kernel)";
}

module::RunHooks Sanitizer::hooks(const std::string &run,
                                  const module::Module &module,
                                  const module::Function &function,
                                  bool substituted) {
  module::RunHooks hooks;
  hooks.afterLoad = [this, run] {
    attribute(run + ", loading its executables");
  };
  auto where = [run, &module, &function, substituted](size_t op) {
    return describeRunDispatch(run, module, function, substituted, op);
  };
  hooks.afterDispatch = [this, where](size_t op) { attribute(where(op)); };
  hooks.guardBytes = kGuardBytes;
  hooks.guardDamaged = [this, where](size_t op,
                                     const module::GuardDamage &damage) {
    findings_.push_back({where(op), true, damage.describe()});
  };
  hooks.unguarded = [this, run](const std::string &why) {
    findings_.push_back({run, false, why});
  };
  return hooks;
}

size_t Sanitizer::errorCount() const {
  return std::count_if(findings_.begin(), findings_.end(),
                       [](const SanitizerFinding &f) { return f.error; });
}

bool Sanitizer::print(size_t maxShown) const {
  size_t errors = errorCount();
  size_t warnings = findings_.size() - errors;
  for (size_t i = 0; i < findings_.size() && i < maxShown; ++i)
    std::printf("sanitizer %s: %s: %s\n",
                findings_[i].error ? "error" : "warning",
                findings_[i].where.c_str(), findings_[i].message.c_str());
  if (findings_.size() > maxShown)
    std::printf("sanitizer: ... and %zu more finding(s)\n",
                findings_.size() - maxShown);
  std::string summary = "no findings";
  if (errors)
    summary = std::to_string(errors) + " error(s)" +
              (warnings ? ", " + std::to_string(warnings) + " warning(s)"
                        : std::string()) +
              ": the run fails";
  else if (warnings)
    summary = std::to_string(warnings) + " warning(s), no errors";
  std::printf("sanitizer: %s (%s)\n", summary.c_str(), checkedBy_.c_str());
  return errors == 0;
}

} // namespace kb::workbench
