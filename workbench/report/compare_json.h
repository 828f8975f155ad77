//===- workbench/report/compare_json.h - `compare --json` -----------------===//
//
// The comparison as one JSON document, for programs that gate on it (a CI
// step with jq, a dashboard) instead of reading the Markdown: the options
// the verdicts were made with, one object per compared row (verdict, ratio
// and its CI, raw ratio and drift where anchored, samples on each side, why
// an INCONCLUSIVE row is inconclusive), the rows that could not be compared
// and why, the rows only one side has, and the totals. One field table per
// struct (support/json_fields.h) writes it and reads it back, so the
// reader below is the writer's exact inverse. Schema: docs/cli.md.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_REPORT_COMPARE_JSON_H_
#define KB_WORKBENCH_REPORT_COMPARE_JSON_H_

#include "common/status.h"
#include "workbench/report/compare.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kb::report {

/// The value of the document's "format" key.
inline constexpr const char *kCompareFormatName = "kernel-bench/compare";
/// Raised when a key changes meaning or goes away; new keys keep it.
inline constexpr int kCompareSchemaVersion = 1;

/// What the verdicts were made with (`compare`'s flags and fixed rules).
struct CompareSettings {
  double threshold = 0;             // δ, relative (0.02)
  std::string failOn = "slower";    // slower | inconclusive | never
  std::string anchor = "reference"; // reference | medians | none
  double noiseFactor = 0;           // k
  double anchoredNoiseFactor = 0;   // k for anchored rows
  double pairedNoiseFactor = 0;     // k for rows anchored pair by pair
  double confidence = 0;            // 0.95
  uint32_t resamples = 0;           // bootstrap resamples per row
  uint32_t minSamples = 0;          // fewer: INCONCLUSIVE
  bool allowDifferentDevices = false;
};

/// Counts over the document, so a consumer need not recount.
struct CompareTotals {
  size_t slower = 0, faster = 0, same = 0, inconclusive = 0, anchors = 0;
  size_t uncomparable = 0, onlyInBase = 0, onlyInNew = 0;
  /// What fails the gate at exit 1: a SLOWER row, or a row INCORRECT or
  /// ERROR in NEW.
  bool regression = false;
  std::optional<double> geomeanRatio; // over the judged rows
  std::optional<double> drift;        // geomean of the ANCHOR rows
};

struct CompareDocument {
  std::string format = kCompareFormatName;
  int schemaVersion = kCompareSchemaVersion;
  CompareSettings options;
  std::string baseDevice, newDevice;
  size_t baseReports = 1;
  /// Each row's `why` also says why an INCONCLUSIVE row whose sample counts
  /// sufficed is inconclusive (its interval straddles a band edge).
  std::vector<RowComparison> rows;
  std::vector<Uncomparable> uncomparable;
  std::vector<std::string> onlyInBase, onlyInNew;
  CompareTotals totals;
};

/// The document of |comparison| judged for `--fail-on |failOn|`.
CompareDocument makeCompareDocument(const Comparison &comparison,
                                    std::string failOn);

/// Indented JSON with a trailing newline; InvalidArgument naming the field
/// when a number is NaN or infinite (dumpStrictJson).
StatusOr<std::string> renderCompareJson(const CompareDocument &document);

/// Parses what renderCompareJson wrote; |source| names it in messages.
/// InvalidArgument for text that is not JSON, another "format", a newer
/// schema_version or a field of the wrong type.
StatusOr<CompareDocument> parseCompareJson(std::string_view text,
                                           std::string_view source);

} // namespace kb::report

#endif // KB_WORKBENCH_REPORT_COMPARE_JSON_H_
