//===- toolchains/diagnostics.cpp - Parse and print tool diagnostics -----===//
//
// The formats, all on stderr:
//
//   nvcc front end     bad.cu(2): error: identifier "x" is undefined
//                      spill.cu(12): warning #20044-D: extern declaration ...
//                      At end of source: error: expected a ")"
//   host gcc -E        inc.cu:1:10: fatal error: missing.h: No such file ...
//   driver fatals      nvcc fatal   : Unsupported gpu architecture 'sm_99'
//   ptxas              ptxas bad.ptx, line 5; error   : Arguments mismatch ...
//                      ptxas fatal   : Ptx assembly aborted due to errors
//                      ptxas warning : Registers are spilled to local memory
//                      ...
//   glslc              add.comp:11: error: 'SCALE' : undeclared identifier
//                      glslc: error: 'k.glsl': .glsl file encountered but ...
//   spirv-val/-opt     error: line 51: Structure id 9 decorated as Block ...
//                        %PC = OpTypeStruct %uint %float   (context line)
//
//===----------------------------------------------------------------------===//

#include "toolchains/diagnostics.h"

#include <optional>
#include <regex>

namespace kb::toolchains {
namespace {

Severity severityFromWord(const std::string &word) {
  if (word == "fatal error" || word == "fatal" || word == "catastrophic error")
    return Severity::Fatal;
  if (word == "warning")
    return Severity::Warning;
  if (word == "remark")
    return Severity::Remark;
  if (word == "note" || word == "info")
    return Severity::Note;
  return Severity::Error; // "error", "internal error"
}

int toInt(const std::string &text) {
  try {
    return text.empty() ? 0 : std::stoi(text);
  } catch (...) {
    return 0; // Absurdly long digit runs: keep the message, drop the number.
  }
}

struct Patterns {
  // bad.cu(2): error: ... / spill.cu(12): warning #20044-D: ...
  std::regex nvccFrontEnd{
      R"(^(.+)\((\d+)\): (catastrophic error|internal error|error|warning|remark)(?: #([0-9]+(?:-D)?))?: (.*)$)"};
  // At end of source: error: expected a ")"
  std::regex endOfSource{
      R"(^At end of source: (error|warning|remark)(?: #([0-9]+(?:-D)?))?: (.*)$)"};
  // ptxas bad.ptx, line 5; error   : ...
  std::regex ptxasLocated{
      R"(^ptxas (.+), line (\d+); (error|warning|info|fatal)\s*: (.*)$)"};
  // nvcc fatal   : ... / ptxas warning : ...
  std::regex driverMessage{
      R"(^(nvcc|ptxas|nvlink|fatbinary|cicc|cudafe\+\+) (fatal|error|warning|info)\s*: (.*)$)"};
  // inc.cu:1:10: fatal error: ... / add.comp:11: error: ...
  std::regex fileLineCol{
      R"(^(.+?):(\d+):(?:(\d+):)? (fatal error|error|warning|note): (.*)$)"};
  // glslc: error: 'k.glsl': ...
  std::regex toolPrefixed{
      R"(^(glslc|spirv-val|spirv-opt|gcc|g\+\+|cc1plus|c\+\+): (fatal error|error|warning|note): (.*)$)"};
  // error: line 51: ...
  std::regex spirvTools{
      R"(^(error|warning|info|internal error|fatal): line (\d+): (.*)$)"};
};

const Patterns &patterns() {
  static const Patterns instance;
  return instance;
}

} // namespace

const char *toString(Severity severity) {
  switch (severity) {
  case Severity::Note:
    return "note";
  case Severity::Remark:
    return "remark";
  case Severity::Warning:
    return "warning";
  case Severity::Error:
    return "error";
  case Severity::Fatal:
    return "fatal error";
  }
  return "error";
}

namespace {

// One line of tool output as a diagnostic, or nullopt for the lines that are
// not one (source echo, carets, info). The patterns are tried in order and
// the first that matches decides, so keep the specific ones first.
// |opensSpirvContext| is set when the next indented line belongs to it.
std::optional<Diagnostic> parseDiagnosticLine(std::string_view tool,
                                              const std::string &line,
                                              bool &opensSpirvContext) {
  const Patterns &p = patterns();
  std::smatch m;
  Diagnostic d;
  d.tool = std::string(tool);
  if (std::regex_match(line, m, p.ptxasLocated)) {
    if (m[3] == "info")
      return std::nullopt; // Resource reports are parsed by
                           // parsePtxasResourceUsage.
    d.tool = "ptxas";
    d.file = m[1];
    if (d.file == "application ptx input")
      d.file.clear(); // The driver JIT's name for in-memory PTX.
    d.line = toInt(m[2]);
    d.severity = severityFromWord(m[3]);
    d.message = m[4];
  } else if (std::regex_match(line, m, p.driverMessage)) {
    if (m[2] == "info")
      return std::nullopt;
    d.tool = m[1];
    d.severity = severityFromWord(m[2]);
    d.message = m[3];
  } else if (std::regex_match(line, m, p.endOfSource)) {
    d.severity = severityFromWord(m[1]);
    d.code = m[2];
    d.message = "at end of source: " + std::string(m[3]);
  } else if (std::regex_match(line, m, p.nvccFrontEnd)) {
    d.file = m[1];
    d.line = toInt(m[2]);
    d.severity = severityFromWord(m[3]);
    d.code = m[4];
    d.message = m[5];
  } else if (std::regex_match(line, m, p.toolPrefixed)) {
    std::string prefix = m[1];
    d.tool = prefix == "glslc" || prefix == "spirv-val" || prefix == "spirv-opt"
                 ? prefix
                 : std::string("host-cxx");
    d.severity = severityFromWord(m[2]);
    d.message = m[3];
  } else if (std::regex_match(line, m, p.spirvTools)) {
    d.severity = severityFromWord(m[1]);
    d.message = m[3];
    if (int index = toInt(m[2]))
      d.message += " (SPIR-V instruction " + std::to_string(index) + ")";
    opensSpirvContext = true;
  } else if (std::regex_match(line, m, p.fileLineCol)) {
    // nvcc runs the host compiler's preprocessor; its messages (missing
    // includes, #error) are the host compiler's, not nvcc's.
    if (tool == "nvcc")
      d.tool = "host-cxx";
    d.file = m[1];
    d.line = toInt(m[2]);
    d.column = toInt(m[3]);
    d.severity = severityFromWord(m[4]);
    d.message = m[5];
  } else {
    return std::nullopt; // Source echo, carets, summaries, "compilation
                         // terminated."
  }
  return d;
}

} // namespace

std::vector<Diagnostic> parseDiagnostics(std::string_view tool,
                                         std::string_view text) {
  std::vector<Diagnostic> out;
  // spirv-val prints the offending instruction on the next, indented line;
  // it is the only useful context line, so it joins the message.
  bool spirvContextOpen = false;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos)
      end = text.size();
    std::string line(text.substr(pos, end - pos));
    pos = end + 1;
    if (!line.empty() && line.back() == '\r')
      line.pop_back();

    if (spirvContextOpen && line.size() > 2 && line.compare(0, 2, "  ") == 0) {
      out.back().message += "\n" + line;
      spirvContextOpen = false;
      continue;
    }
    spirvContextOpen = false;
    if (std::optional<Diagnostic> d =
            parseDiagnosticLine(tool, line, spirvContextOpen))
      out.push_back(std::move(*d));
  }
  return out;
}

std::string formatDiagnostic(const Diagnostic &diagnostic, bool color) {
  const char *bold = color ? "\x1b[1m" : "";
  const char *reset = color ? "\x1b[0m" : "";
  const char *severityColor = "";
  if (color) {
    switch (diagnostic.severity) {
    case Severity::Fatal:
    case Severity::Error:
      severityColor = "\x1b[1;31m";
      break;
    case Severity::Warning:
      severityColor = "\x1b[1;35m";
      break;
    case Severity::Remark:
      severityColor = "\x1b[1;34m";
      break;
    case Severity::Note:
      severityColor = "\x1b[1;36m";
      break;
    }
  }
  std::string location;
  if (diagnostic.file.empty()) {
    location = diagnostic.tool;
  } else {
    location = diagnostic.file;
    if (diagnostic.line > 0) {
      location += ":" + std::to_string(diagnostic.line);
      if (diagnostic.column > 0)
        location += ":" + std::to_string(diagnostic.column);
    }
  }
  std::string out = std::string(bold) + location + ":" + reset + " " +
                    severityColor + toString(diagnostic.severity) + ":" +
                    reset + " " + bold + diagnostic.message + reset;
  // The tool is already the location when there is no file.
  std::string tag = diagnostic.file.empty() ? "" : diagnostic.tool;
  if (!diagnostic.code.empty())
    tag += (tag.empty() ? "#" : " #") + diagnostic.code;
  if (!tag.empty())
    out += " [" + tag + "]";
  return out;
}

} // namespace kb::toolchains
