//===- workbench/cli/compare_command.cpp - `kernel-bench compare` ---------===//
//
// `kernel-bench compare BASE.json [BASE2.json...] NEW.json`: per-benchmark
// verdicts (report/compare.h; anchored on each benchmark's unchanged
// reference kernel unless --anchor none), a Markdown summary on stdout (with
// --json, the comparison as JSON instead: report/compare_json.h) and
// appended to $GITHUB_STEP_SUMMARY when set, one stderr line per regression,
// and the exit codes of docs/cli.md: 0 no regression (always with --fail-on
// never), 1 regression or a $GITHUB_STEP_SUMMARY that cannot be written, 3
// inconclusive (only with --fail-on inconclusive), 4 unreadable or incompatible
// reports.
//
//===----------------------------------------------------------------------===//
#include "workbench/cli/command.h"

#include "workbench/report/bench_json.h"
#include "workbench/report/compare.h"
#include "workbench/report/compare_json.h"

#include "common/file_util.h"
#include "common/terminal_text.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>
#include <memory>

namespace kb::workbench {

namespace {

struct CompareArgs {
  std::vector<std::string> reports; // bases..., new
  std::string threshold = "2%";
  std::string failOn = "slower";
  bool allowDifferentDevices = false;
  uint32_t resamples = 2000;
  std::string anchor = "reference";
  bool json = false; // stdout: the comparison as JSON, not Markdown
};

/// Appends the summary to $GITHUB_STEP_SUMMARY when set. A failed write (a
/// full disk, a path that cannot be opened) is an error naming the file: a
/// CI page that silently lacks the comparison reads as "nothing to see".
Status appendStepSummary(const std::string &markdown) {
  const char *path = std::getenv("GITHUB_STEP_SUMMARY");
  if (!path || !*path)
    return okStatus();
  return appendFile(path, markdown + "\n").withContext("$GITHUB_STEP_SUMMARY");
}

/// One stderr line per regression, so a CI log says what failed the gate
/// without reading the table.
void reportRegressions(const report::Comparison &c) {
  for (const report::RowComparison &r : c.rows)
    if (r.verdict == report::Verdict::Slower) {
      std::string anchored;
      if (r.drift) {
        char text[96];
        std::snprintf(text, sizeof text,
                      " after the drift correction (raw %.3gx, drift %.3gx)",
                      r.rawRatio, *r.drift);
        anchored = text;
      }
      std::fprintf(stderr,
                   "kernel-bench compare: regression: %s is SLOWER: %.3gx "
                   "the base median%s (95%% CI %.3gx .. %.3gx)\n",
                   terminalLine(r.id).c_str(), r.ratio, anchored.c_str(), r.low,
                   r.high);
    }
  for (const report::Uncomparable &u : c.uncomparable)
    if (u.newIsBroken)
      std::fprintf(stderr, "kernel-bench compare: regression: %s: %s\n",
                   terminalLine(u.id).c_str(), terminalLine(u.why).c_str());
}

/// The comparison on stdout: |markdown|, or with --json the JSON document.
/// A document that cannot be rendered (a NaN the verdicts should never
/// produce) is an error rather than a half-written stdout.
int printComparison(const report::Comparison &c, const std::string &markdown,
                    const CompareArgs &args) {
  if (!args.json) {
    std::fputs(markdown.c_str(), stdout);
    return kExitOk;
  }
  StatusOr<std::string> text =
      report::renderCompareJson(report::makeCompareDocument(c, args.failOn));
  if (!text.ok()) {
    std::fprintf(stderr, "kernel-bench compare: error: %s\n",
                 text.status().message().c_str());
    return kExitUserError;
  }
  std::fputs(text->c_str(), stdout);
  return kExitOk;
}

int runCompare(const CompareArgs &args) {
  report::CompareOptions options;
  std::string error = report::parseThreshold(args.threshold, options.threshold);
  if (!error.empty()) {
    std::fprintf(stderr, "kernel-bench compare: error: --threshold: %s\n",
                 error.c_str());
    return kExitUsage;
  }
  options.resamples = args.resamples;
  options.allowDifferentDevices = args.allowDifferentDevices;
  options.anchors = args.anchor != "none";
  options.pairedAnchors = args.anchor == "reference";
  std::vector<report::BenchReport> reports;
  for (const std::string &path : args.reports) {
    StatusOr<report::BenchReport> r = report::readBenchJson(path);
    if (!r.ok()) {
      std::fprintf(stderr, "kernel-bench compare: error: %s\n",
                   terminalText(r.status().message()).c_str());
      return kExitBadInput;
    }
    reports.push_back(std::move(*r));
  }
  report::BenchReport candidate = std::move(reports.back());
  reports.pop_back();
  StatusOr<report::Comparison> c =
      report::compareReports(reports, candidate, options);
  if (!c.ok()) {
    std::fprintf(stderr, "kernel-bench compare: error: %s\n",
                 terminalText(c.status().message()).c_str());
    return kExitBadInput;
  }
  std::string markdown = report::renderComparisonMarkdown(*c);
  if (int printed = printComparison(*c, markdown, args); printed != kExitOk)
    return printed;
  Status summary = appendStepSummary(markdown);
  if (!summary.ok())
    std::fprintf(stderr, "kernel-bench compare: error: %s\n",
                 summary.message().c_str());
  reportRegressions(*c);
  if (c->hasRegression() && args.failOn != "never")
    return kExitUserError;
  if (!summary.ok())
    return kExitUserError;
  if (args.failOn == "never")
    return kExitOk;
  if (c->rows.empty()) {
    std::fprintf(stderr,
                 "kernel-bench compare: nothing compared: %zu row(s) in "
                 "common, none with timings on both sides; exit %d so that a "
                 "gate on it fails\n",
                 c->uncomparable.size(), kExitNothingMeasured);
    return kExitNothingMeasured;
  }
  if (args.failOn == "inconclusive" && c->count(report::Verdict::Inconclusive))
    return kExitInconclusive;
  return kExitOk;
}

} // namespace

CommandRegistration addCompareCommand(CLI::App &root) {
  CLI::App *app = root.add_subcommand(
      "compare", "Compare bench.json reports: FASTER / SLOWER / SAME / "
                 "INCONCLUSIVE per benchmark, exit 1 on a regression");
  auto args = std::make_shared<CompareArgs>();
  app->add_option("reports", args->reports,
                  "BASE.json [MORE_BASE.json...] NEW.json: one or more base "
                  "reports (several = history: their run-to-run noise "
                  "widens each benchmark's threshold), then the new one")
      ->type_name("FILE")
      ->required()
      ->expected(2, -1);
  app->add_option("--threshold", args->threshold,
                  "Smallest change that counts, e.g. 2% or 0.02 (default 2%)");
  app->add_option("--fail-on", args->failOn,
                  "slower: exit 1 on a regression (default); inconclusive: "
                  "also exit 3 when a verdict is INCONCLUSIVE; never: "
                  "report only (exit 0 unless an input is unreadable)")
      ->check(CLI::IsMember({"slower", "inconclusive", "never"}));
  app->add_flag("--allow-different-devices", args->allowDifferentDevices,
                "Compare reports from different device models");
  app->add_option("--anchor", args->anchor,
                  "reference: judge a benchmark's rows on their change "
                  "relative to its reference kernel's when that is the same "
                  "object in both reports (it measures the drift between "
                  "the runs), round by round where the samples pair up "
                  "(default); medians: the same on medians only; none: raw "
                  "ratios")
      ->check(CLI::IsMember({"reference", "medians", "none"}));
  app->add_flag("--json", args->json,
                "Print the comparison as one JSON document (options, rows, "
                "uncomparable rows, totals) instead of the Markdown summary; "
                "$GITHUB_STEP_SUMMARY still gets the Markdown");
  app->add_option("--resamples", args->resamples,
                  "Bootstrap resamples per benchmark (default 2000)")
      ->check(CLI::Range(100u, 1000000u));
  return {app, [args]() { return runCompare(*args); }};
}

} // namespace kb::workbench
