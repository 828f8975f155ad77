//===- workbench/report/junit_format.cpp - junit.xml ----------------------===//
//
// JUnit XML as CI systems read it (Jenkins, GitLab, GitHub test reporters):
// one <testcase> per benchmark and variant, and one per row of the whole
// program (program_rows.h) under the class "kernel-bench.program NAME";
// INCORRECT and ERROR are
// <failure>s (type says which), skipped is <skipped> with its reason. The
// timings go into <system-out> as text; `time` is the GPU time measured.
//
//===----------------------------------------------------------------------===//
#include "workbench/report/program_rows.h"
#include "workbench/report/report_formats.h"
#include "workbench/report/report_rows.h"

#include "common/terminal_text.h"

#include <cstdio>
#include <sstream>

namespace kb::report {

namespace {

/// Whether XML 1.0 may hold |cp| at all (its `Char` production).
bool isXmlChar(uint32_t cp) {
  return cp == 0x9 || cp == 0xA || cp == 0xD || (cp >= 0x20 && cp <= 0xD7FF) ||
         (cp >= 0xE000 && cp <= 0xFFFD) || (cp >= 0x10000 && cp <= 0x10FFFF);
}

/// Escaped for both text and attributes. What XML 1.0 cannot hold (control
/// characters, U+FFFE/U+FFFF, bytes that are not UTF-8) becomes '?': one
/// such character in a reason must not make the whole file unreadable.
/// Tab, newline and CR are character references, which attributes keep
/// as they are (a parser would turn them into spaces).
std::string xml(const std::string &text) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    uint32_t cp = 0;
    size_t length = decodeUtf8(text, i, cp);
    if (length == 0 || !isXmlChar(cp)) {
      out += '?';
      i += length ? length : 1;
      continue;
    }
    switch (cp) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    case '\'':
      out += "&apos;";
      break;
    case '\t':
      out += "&#9;";
      break;
    case '\n':
      out += "&#10;";
      break;
    case '\r':
      out += "&#13;";
      break;
    default:
      out.append(text, i, length);
    }
    i += length;
  }
  return out;
}

std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.6f", s);
  return buf;
}

struct Case {
  std::string name, className, failureType, message, output;
  bool skipped = false;
  double seconds = 0;
};

Case variantCase(const Benchmark &b, const Variant &v) {
  Case c{v.name, "kernel-bench." + b.name, "", "", "", false, 0};
  for (const Timing &t : v.timings) {
    double total = 0;
    for (const Sample &s : t.samples)
      total += s.gpuNs * t.dispatchesPerSample;
    c.seconds += total * 1e-9;
    c.output += std::string(toString(t.mode)) + ": median " +
                formatMedianIqr(t.summary.median, t.summary.iqr) + ", " +
                std::to_string(t.samples.size()) + " samples";
    if (t.derived.gbPerSecond)
      c.output += ", " + formatNumber(t.derived.gbPerSecond, 1) + " GB/s";
    if (t.derived.speedupVsReference)
      c.output +=
          ", " + formatNumber(t.derived.speedupVsReference, 2) + "x vs ref";
    if (std::string why = stoppedShortWhy(t); !why.empty())
      c.output += " (" + why + ")";
    c.output += "\n";
  }
  if (v.correctness.status == CorrectnessStatus::Incorrect) {
    c.failureType = "INCORRECT";
    c.message =
        b.reason.empty() ? "outputs differ from the reference" : b.reason;
    for (const Mismatch &m : v.correctness.firstMismatches)
      c.output += m.output + "[" + std::to_string(m.index) + "]: expected " +
                  m.expected + ", got " + m.actual + "\n";
  } else if (b.status == BenchStatus::Error ||
             b.status == BenchStatus::Sanitizer) {
    c.failureType = statusWord(b.status);
    c.message = b.reason;
    for (const SanitizerFinding &f : b.sanitizer)
      if (f.variant == v.name)
        c.output += f.inputs + ": " + (f.error ? "error: " : "warning: ") +
                    f.message + "\n";
  } else if (b.status == BenchStatus::Skipped) {
    c.skipped = true;
    c.message = b.reason;
  }
  return c;
}

/// One test case per row of the whole program: a program that failed is a
/// failure (one case, as it has one row), skipped is skipped.
Case programCase(const ProgramRow &row) {
  Case c{row.timing ? row.variant : "(program)",
         "kernel-bench." + row.name,
         "",
         row.reason,
         "",
         false,
         0};
  if (row.status == BenchStatus::Skipped)
    c.skipped = true;
  else if (row.status != BenchStatus::Ok)
    c.failureType = statusWord(row.status);
  if (!row.timing)
    return c;
  const Timing &t = *row.timing;
  for (const Sample &s : t.samples)
    c.seconds += s.gpuNs * t.dispatchesPerSample * 1e-9;
  c.output = std::string(toString(t.mode)) + ": median " +
             formatMedianIqr(t.summary.median, t.summary.iqr) + ", " +
             std::to_string(t.samples.size()) + " samples";
  if (row.speedup)
    c.output += ", " + formatNumber(row.speedup, 2) + "x vs generated only";
  if (std::string why = stoppedShortWhy(t); !why.empty())
    c.output += " (" + why + ")";
  c.output += "\n";
  return c;
}

std::vector<Case> cases(const BenchReport &report) {
  std::vector<Case> out;
  for (const Benchmark &b : report.benchmarks) {
    if (b.variants.empty()) {
      Case c{
          "(benchmark)", "kernel-bench." + b.name, "", b.reason, "", false, 0};
      if (b.status == BenchStatus::Skipped)
        c.skipped = true;
      else
        c.failureType = statusWord(b.status);
      if (b.status == BenchStatus::Ok)
        c.failureType = "ERROR", c.message = "no variant was run";
      out.push_back(c);
    }
    for (const Variant &v : b.variants)
      out.push_back(variantCase(b, v));
  }
  for (const ProgramRow &row : programRows(report))
    out.push_back(programCase(row));
  return out;
}

} // namespace

std::string renderJUnit(const BenchReport &report) {
  std::vector<Case> all = cases(report);
  size_t failures = 0, skipped = 0;
  double total = 0;
  for (const Case &c : all) {
    failures += !c.failureType.empty();
    skipped += c.skipped;
    total += c.seconds;
  }
  std::ostringstream out;
  std::string counts = " tests=\"" + std::to_string(all.size()) +
                       "\" failures=\"" + std::to_string(failures) +
                       "\" errors=\"0\" skipped=\"" + std::to_string(skipped) +
                       "\" time=\"" + seconds(total) + "\"";
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << "<testsuites name=\"kernel-bench\"" << counts << ">\n";
  out << "  <testsuite name=\"kernel-bench bench on " << xml(report.device.name)
      << "\"" << counts << " timestamp=\""
      << xml(report.createdUtc.substr(0, 19)) << "\">\n";
  for (const Case &c : all) {
    out << "    <testcase classname=\"" << xml(c.className) << "\" name=\""
        << xml(c.name) << "\" time=\"" << seconds(c.seconds) << "\">\n";
    if (!c.failureType.empty())
      out << "      <failure type=\"" << c.failureType << "\" message=\""
          << xml(c.message) << "\">" << xml(c.failureType + ": " + c.message)
          << "</failure>\n";
    if (c.skipped)
      out << "      <skipped message=\"" << xml(c.message) << "\"/>\n";
    if (!c.output.empty())
      out << "      <system-out>" << xml(c.output) << "</system-out>\n";
    out << "    </testcase>\n";
  }
  out << "  </testsuite>\n</testsuites>\n";
  return out.str();
}

} // namespace kb::report
