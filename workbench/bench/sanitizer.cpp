//===- workbench/bench/sanitizer.cpp - Checking-layer findings ------------===//
#include "workbench/bench/sanitizer.h"

#include "common/terminal_text.h"

#include <algorithm>
#include <cstdio>

namespace kb::workbench {

namespace {

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
  return terminalText(text);
}

void Sanitizer::attribute(const std::string &where) {
  for (hal::ValidationMessage &m : log_->take())
    findings_.push_back({where, m.error, briefValidationMessage(m.text)});
}

void Sanitizer::attributeRest(const std::string &where) { attribute(where); }

module::RunHooks Sanitizer::hooks(const std::string &run,
                                  const module::Module &module,
                                  const module::Function &function,
                                  bool substituted) {
  module::RunHooks hooks;
  hooks.afterLoad = [this, run] {
    attribute(run + ", loading its executables");
  };
  hooks.afterDispatch = [this, run, &module, &function,
                         substituted](size_t op) {
    const module::Op &o = function.ops[op];
    const module::Executable &exe = module.executables[o.executable];
    attribute(run + ", op " + std::to_string(op) + " (`" + exe.name +
              "` export " + std::to_string(o.exportIndex) + ", the " +
              (substituted && hasCandidate(exe) ? "handwritten" : "generated") +
              " kernel)");
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
  std::printf("sanitizer: %s (Khronos validation layer: GPU-assisted "
              "out-of-bounds checks and synchronization validation)\n",
              summary.c_str());
  return errors == 0;
}

} // namespace kb::workbench
