//===- workbench/report/compare_json.cpp - `compare --json` ---------------===//
#include "workbench/report/compare_json.h"

#include "workbench/report/strict_json.h"
#include "workbench/support/json_fields.h"

#include <array>
#include <cstdio>

namespace kb::report {
namespace {
constexpr std::array<Verdict, 5> kVerdicts = {
    Verdict::Faster, Verdict::Slower, Verdict::Same, Verdict::Inconclusive,
    Verdict::Anchor};
} // namespace
} // namespace kb::report

namespace kb::workbench {

using report::CompareDocument;
using report::CompareSettings;
using report::CompareTotals;
using report::RowComparison;
using report::Uncomparable;

template <> struct JsonFields<RowComparison> {
  template <typename IO, typename S> static Status map(IO &io, S &r) {
    KB_RETURN_IF_ERROR(io.field("id", r.id));
    KB_RETURN_IF_ERROR(
        io.field("verdict", r.verdict, oneOf(report::kVerdicts)));
    KB_RETURN_IF_ERROR(io.field("ratio", r.ratio));
    KB_RETURN_IF_ERROR(io.field("ci_low", r.low));
    KB_RETURN_IF_ERROR(io.field("ci_high", r.high));
    KB_RETURN_IF_ERROR(io.field("raw_ratio", r.rawRatio));
    KB_RETURN_IF_ERROR(io.field("drift", r.drift));
    KB_RETURN_IF_ERROR(io.field("anchor", r.anchor, Presence::OmitWhenEmpty));
    // Added within schema 1: written only for a row anchored pair by pair.
    KB_RETURN_IF_ERROR(io.field("paired", r.paired, Presence::OmitWhenEmpty));
    KB_RETURN_IF_ERROR(io.field("band", r.threshold));
    KB_RETURN_IF_ERROR(io.field("band_from", r.bandFrom));
    KB_RETURN_IF_ERROR(io.field("noise", r.noise));
    KB_RETURN_IF_ERROR(io.field("run_to_run_noise", r.runToRunNoise));
    KB_RETURN_IF_ERROR(io.field("base_median_ns", r.baseMedianNs));
    KB_RETURN_IF_ERROR(io.field("new_median_ns", r.newMedianNs));
    KB_RETURN_IF_ERROR(io.field("base_samples", r.baseSamples));
    KB_RETURN_IF_ERROR(io.field("new_samples", r.newSamples));
    return io.field("reason", r.why, Presence::OmitWhenEmpty);
  }
};

template <> struct JsonFields<Uncomparable> {
  template <typename IO, typename S> static Status map(IO &io, S &u) {
    KB_RETURN_IF_ERROR(io.field("id", u.id));
    KB_RETURN_IF_ERROR(io.field("reason", u.why));
    return io.field("regression", u.newIsBroken);
  }
};

template <> struct JsonFields<CompareSettings> {
  template <typename IO, typename S> static Status map(IO &io, S &o) {
    KB_RETURN_IF_ERROR(io.field("threshold", o.threshold));
    KB_RETURN_IF_ERROR(io.field("fail_on", o.failOn));
    KB_RETURN_IF_ERROR(io.field("anchor", o.anchor));
    KB_RETURN_IF_ERROR(io.field("noise_factor", o.noiseFactor));
    KB_RETURN_IF_ERROR(
        io.field("anchored_noise_factor", o.anchoredNoiseFactor));
    // Added within schema 1.
    KB_RETURN_IF_ERROR(io.field("paired_noise_factor", o.pairedNoiseFactor,
                                Presence::MayBeAbsent));
    KB_RETURN_IF_ERROR(io.field("confidence", o.confidence));
    KB_RETURN_IF_ERROR(io.field("resamples", o.resamples));
    KB_RETURN_IF_ERROR(io.field("min_samples", o.minSamples));
    return io.field("allow_different_devices", o.allowDifferentDevices);
  }
};

template <> struct JsonFields<CompareTotals> {
  template <typename IO, typename S> static Status map(IO &io, S &t) {
    KB_RETURN_IF_ERROR(io.field("slower", t.slower));
    KB_RETURN_IF_ERROR(io.field("faster", t.faster));
    KB_RETURN_IF_ERROR(io.field("same", t.same));
    KB_RETURN_IF_ERROR(io.field("inconclusive", t.inconclusive));
    KB_RETURN_IF_ERROR(io.field("anchors", t.anchors));
    KB_RETURN_IF_ERROR(io.field("uncomparable", t.uncomparable));
    KB_RETURN_IF_ERROR(io.field("only_in_base", t.onlyInBase));
    KB_RETURN_IF_ERROR(io.field("only_in_new", t.onlyInNew));
    KB_RETURN_IF_ERROR(io.field("regression", t.regression));
    KB_RETURN_IF_ERROR(io.field("geomean_ratio", t.geomeanRatio));
    return io.field("drift", t.drift);
  }
};

template <> struct JsonFields<CompareDocument> {
  template <typename IO, typename S> static Status map(IO &io, S &d) {
    KB_RETURN_IF_ERROR(io.field("format", d.format));
    KB_RETURN_IF_ERROR(io.field("schema_version", d.schemaVersion));
    KB_RETURN_IF_ERROR(io.field("options", d.options));
    KB_RETURN_IF_ERROR(io.field("base_device", d.baseDevice));
    KB_RETURN_IF_ERROR(io.field("new_device", d.newDevice));
    KB_RETURN_IF_ERROR(io.field("base_reports", d.baseReports));
    KB_RETURN_IF_ERROR(io.field("rows", d.rows));
    KB_RETURN_IF_ERROR(io.field("uncomparable", d.uncomparable));
    KB_RETURN_IF_ERROR(io.field("only_in_base", d.onlyInBase));
    KB_RETURN_IF_ERROR(io.field("only_in_new", d.onlyInNew));
    return io.field("totals", d.totals);
  }
};

} // namespace kb::workbench

namespace kb::report {

namespace {

using json = nlohmann::ordered_json;

CompareSettings settingsOf(const CompareOptions &options, std::string failOn) {
  CompareSettings s;
  s.threshold = options.threshold;
  s.failOn = std::move(failOn);
  s.anchor = !options.anchors        ? "none"
             : options.pairedAnchors ? "reference"
                                     : "medians";
  s.noiseFactor = options.noiseFactor;
  s.anchoredNoiseFactor = options.anchoredNoiseFactor;
  s.pairedNoiseFactor = options.pairedNoiseFactor;
  s.confidence = options.confidence;
  s.resamples = options.resamples;
  s.minSamples = options.minSamples;
  s.allowDifferentDevices = options.allowDifferentDevices;
  return s;
}

CompareTotals totalsOf(const Comparison &c) {
  CompareTotals t;
  t.slower = c.count(Verdict::Slower);
  t.faster = c.count(Verdict::Faster);
  t.same = c.count(Verdict::Same);
  t.inconclusive = c.count(Verdict::Inconclusive);
  t.anchors = c.count(Verdict::Anchor);
  t.uncomparable = c.uncomparable.size();
  t.onlyInBase = c.onlyInBase.size();
  t.onlyInNew = c.onlyInNew.size();
  t.regression = c.hasRegression();
  t.geomeanRatio = c.geomeanRatio;
  t.drift = c.driftGeomean();
  return t;
}

/// Why a row with enough samples is INCONCLUSIVE: the Markdown says it in
/// prose above the table; a program reading the rows needs it per row.
std::string straddleWhy(const RowComparison &r) {
  char text[160];
  std::snprintf(text, sizeof text,
                "the CI %.4g .. %.4g straddles an edge of the band "
                "[%.4g, %.4g]; more samples narrow it",
                r.low, r.high, 1 - r.threshold, 1 + r.threshold);
  return text;
}

} // namespace

CompareDocument makeCompareDocument(const Comparison &comparison,
                                    std::string failOn) {
  CompareDocument d;
  d.options = settingsOf(comparison.options, std::move(failOn));
  d.baseDevice = comparison.baseDevice;
  d.newDevice = comparison.newDevice;
  d.baseReports = comparison.baseReports;
  d.rows = comparison.rows;
  for (RowComparison &r : d.rows)
    if (r.verdict == Verdict::Inconclusive && r.why.empty())
      r.why = straddleWhy(r);
  d.uncomparable = comparison.uncomparable;
  d.onlyInBase = comparison.onlyInBase;
  d.onlyInNew = comparison.onlyInNew;
  d.totals = totalsOf(comparison);
  return d;
}

StatusOr<std::string> renderCompareJson(const CompareDocument &document) {
  return dumpStrictJson(workbench::toJsonObject(document), 1, "compare --json");
}

StatusOr<CompareDocument> parseCompareJson(std::string_view text,
                                           std::string_view source) {
  std::string src(source);
  json j = json::parse(text.begin(), text.end(), nullptr,
                       /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object())
    return invalidArgument(src + ": not a JSON object");
  auto format = j.find("format");
  if (format == j.end() || *format != kCompareFormatName)
    return invalidArgument(src +
                           ": not a kernel-bench comparison: expected "
                           "\"format\": \"" +
                           std::string(kCompareFormatName) + "\"");
  auto version = j.find("schema_version");
  if (version == j.end() || !version->is_number_integer() ||
      version->get<int>() > kCompareSchemaVersion)
    return invalidArgument(src +
                           ": schema_version: expected an integer up "
                           "to " +
                           std::to_string(kCompareSchemaVersion));
  workbench::JsonOrigin origin{src, "the document is not complete; rerun "
                                    "kernel-bench compare --json"};
  CompareDocument document;
  KB_RETURN_IF_ERROR(workbench::fromJsonObject(j, origin, document));
  return document;
}

} // namespace kb::report
