//===- workbench/tune/tune_report.cpp - What `tune` writes and prints -----===//
#include "workbench/tune/tune_report.h"

#include "common/terminal_text.h"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace kb::workbench {

namespace {

using json = nlohmann::json;
using MStatus = TuneMeasurement::Status;

json valuesJson(const TuneValues &values) {
  json j = json::object();
  for (const auto &[name, value] : values)
    j[name] = value;
  return j;
}

json resultJson(const TuneResult &r) {
  const TuneMeasurement &m = r.measurement;
  json j = {{"configuration", configurationKey(r.values)},
            {"values", valuesJson(r.values)},
            {"status", toString(m.status)},
            {"level", m.level},
            {"samples", levelSamples(m.level)},
            {"cost_ns", m.costNs}};
  j["median_ns"] = m.status == MStatus::Ok ? json(m.medianNs) : json(nullptr);
  j["gb_per_s"] = m.gbPerSecond ? json(*m.gbPerSecond) : json(nullptr);
  j["noise"] = m.noise ? json(*m.noise) : json(nullptr);
  j["registers"] = m.registers ? json(*m.registers) : json(nullptr);
  j["spill_bytes"] = m.spillBytes ? json(*m.spillBytes) : json(nullptr);
  j["occupancy"] = m.occupancy ? json(*m.occupancy) : json(nullptr);
  // With problem-size axes, median_ns is the sum over the sizes.
  json sizes = json::array();
  for (const auto &[label, median] : m.sizes)
    sizes.push_back({{"problem", label}, {"median_ns", median}});
  j["sizes"] = sizes;
  j["message"] = m.message.empty() ? json(nullptr) : json(m.message);
  return j;
}

/// With problem-size axes, the fastest fully measured configuration at each
/// size (the ranking sums the sizes; this says where a size would differ).
struct BestAtSize {
  std::string problem;
  const TuneResult *result;
  double medianNs;
};
std::vector<BestAtSize> bestPerSize(const TuneSearchResult &result) {
  std::vector<BestAtSize> best;
  int top = -1;
  for (const TuneResult &r : result.results)
    if (r.measurement.status == MStatus::Ok && !r.measurement.sizes.empty())
      top = std::max(top, r.measurement.level);
  for (const TuneResult &r : result.results) {
    const TuneMeasurement &m = r.measurement;
    if (m.status != MStatus::Ok || m.level != top)
      continue;
    best.resize(std::max(best.size(), m.sizes.size()), {"", nullptr, 0});
    for (size_t i = 0; i < m.sizes.size(); ++i)
      if (!best[i].result || m.sizes[i].second < best[i].medianNs)
        best[i] = {m.sizes[i].first, &r, m.sizes[i].second};
  }
  return best;
}

} // namespace

std::string renderTuneJson(const TuneRunInfo &info,
                           const TuneSearchResult &result) {
  json configs = json::array();
  for (const TuneResult &r : result.results)
    configs.push_back(resultJson(r));
  json perSize = json::array();
  for (const BestAtSize &b : bestPerSize(result)) {
    json values = json::object();
    for (const auto &[name, value] : b.result->values)
      values[name] = value;
    perSize.push_back({{"problem", b.problem},
                       {"configuration", configurationKey(b.result->values)},
                       {"values", values},
                       {"median_ns", b.medianNs}});
  }
  json j = {{"schema_version", 1},
            {"kernel", info.kernel},
            {"manifest", info.manifest},
            {"device",
             {{"name", info.deviceName},
              {"identity", info.deviceIdentity},
              {"backend", info.backend}}},
            {"target", info.target},
            {"strategy", toString(info.strategy)},
            {"budget", info.budget ? json(info.budget) : json(nullptr)},
            {"budget_seconds",
             info.budgetSeconds ? json(info.budgetSeconds) : json(nullptr)},
            {"space_size", info.spaceSize},
            {"candidates", info.candidates},
            {"measured", info.measured},
            {"measurement_cost_ns", result.totalCostNs},
            {"seconds", info.seconds},
            {"best", result.best ? resultJson(result.results[*result.best])
                                 : json(nullptr)},
            {"best_per_size", perSize},
            {"configurations", configs}};
  return j.dump(2) + "\n";
}

StatusOr<std::vector<TuneResult>> parseTuneJson(const std::string &text) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object() || !j.contains("configurations") ||
      !j["configurations"].is_array())
    return invalidArgument("not a tune.json (no `configurations` array)");
  std::vector<TuneResult> out;
  for (const json &c : j["configurations"]) {
    TuneResult r;
    if (!c.contains("values") || !c["values"].is_object())
      return invalidArgument("tune.json: a configuration without `values`");
    for (const auto &[name, value] : c["values"].items())
      r.values[name] = value.get<int64_t>();
    std::string status = c.value("status", "");
    for (MStatus s : {MStatus::Ok, MStatus::CompileError, MStatus::Incorrect,
                      MStatus::Error})
      if (status == toString(s))
        r.measurement.status = s;
    r.measurement.level = c.value("level", 0);
    r.measurement.costNs = c.value("cost_ns", 0.0);
    if (c.contains("median_ns") && c["median_ns"].is_number())
      r.measurement.medianNs = c["median_ns"].get<double>();
    out.push_back(std::move(r));
  }
  return out;
}

std::string formatTuneNs(double ns) {
  char buf[32];
  if (ns >= 1e6)
    std::snprintf(buf, sizeof buf, "%.3f ms", ns / 1e6);
  else if (ns >= 1e3)
    std::snprintf(buf, sizeof buf, "%.2f us", ns / 1e3);
  else
    std::snprintf(buf, sizeof buf, "%.0f ns", ns);
  return buf;
}

std::string firstMessageLine(const std::string &text) {
  std::string line = text.substr(0, text.find('\n'));
  return line.size() > 160 ? line.substr(0, 157) + "..." : line;
}

std::string formatTuneNoise(const TuneMeasurement &m) {
  if (!m.noise)
    return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f%%", 100 * *m.noise);
  return buf;
}

RankedTuneResults rankTuneResults(const TuneSearchResult &result) {
  RankedTuneResults ranked;
  int top = -1;
  for (const TuneResult &r : result.results)
    if (r.measurement.status == MStatus::Ok)
      top = std::max(top, r.measurement.level);
  for (const TuneResult &r : result.results) {
    if (r.measurement.status != MStatus::Ok)
      ranked.failed.push_back(&r);
    else
      (r.measurement.level == top ? ranked.ok : ranked.brief).push_back(&r);
  }
  auto faster = [](const TuneResult *a, const TuneResult *b) {
    if (a->measurement.level != b->measurement.level)
      return a->measurement.level > b->measurement.level;
    return a->measurement.medianNs < b->measurement.medianNs;
  };
  std::stable_sort(ranked.ok.begin(), ranked.ok.end(), faster);
  std::stable_sort(ranked.brief.begin(), ranked.brief.end(), faster);
  return ranked;
}

namespace {
void printTuneRow(std::FILE *out, const std::string &rank,
                  const TuneResult &r) {
  const TuneMeasurement &m = r.measurement;
  char gb[32] = "-";
  if (m.gbPerSecond)
    std::snprintf(gb, sizeof gb, "%.2f", *m.gbPerSecond);
  char occ[16] = "-";
  if (m.occupancy)
    std::snprintf(occ, sizeof occ, "%.0f%%", 100 * *m.occupancy);
  std::fprintf(out, "%-4s %-40s %12s %7s %9s %5s %6s %7zu\n", rank.c_str(),
               configurationKey(r.values).c_str(),
               formatTuneNs(m.medianNs).c_str(), formatTuneNoise(m).c_str(), gb,
               m.registers ? std::to_string(*m.registers).c_str() : "-", occ,
               levelSamples(m.level));
}

/// The configurations measured only briefly, after the ranking and apart
/// from it: a median of a few samples beside one of many is no ranking.
void printBriefRows(std::FILE *out,
                    const std::vector<const TuneResult *> &brief, size_t top) {
  if (brief.empty())
    return;
  std::fprintf(out, "measured briefly (fewer samples: not ranked with the "
                    "above), by how far each got, then fastest first:\n");
  for (size_t i = 0; i < brief.size() && i < top; ++i)
    printTuneRow(out, "-", *brief[i]);
  if (brief.size() > top)
    std::fprintf(out, "... %zu more measured briefly (tune.json)\n",
                 brief.size() - top);
}
} // namespace

void printTuneTable(std::FILE *out, const TuneRunInfo &info,
                    const TuneSearchResult &result, size_t top) {
  auto [ok, brief, failed] = rankTuneResults(result);
  std::fprintf(out, "%-4s %-40s %12s %7s %9s %5s %6s %7s\n", "rank",
               "configuration", "median", "noise", "GB/s", "regs", "occ",
               "samples");
  for (size_t i = 0; i < ok.size() && i < top; ++i)
    printTuneRow(out, std::to_string(i + 1), *ok[i]);
  printBriefRows(out, brief, top);
  if (!ok.empty() && !ok.front()->measurement.sizes.empty()) {
    std::fprintf(out,
                 "median: the sum over the %zu problem sizes (each in "
                 "tune.json)\n",
                 ok.front()->measurement.sizes.size());
    for (const BestAtSize &b : bestPerSize(result))
      std::fprintf(out, "best at %s: %s (%s)\n",
                   terminalLine(b.problem).c_str(),
                   configurationKey(b.result->values).c_str(),
                   formatTuneNs(b.medianNs).c_str());
  }
  for (const TuneResult *r : failed)
    std::fprintf(
        out, "%s: %s: %s\n", configurationKey(r->values).c_str(),
        toString(r->measurement.status),
        terminalLine(firstMessageLine(r->measurement.message)).c_str());
  std::fprintf(out,
               "tuned %s on %s (%s): %zu configurations (%llu in the [tune] "
               "space, before the constraints and the launch-shape check), "
               "%zu measurements made (the others from the "
               "tune cache), %zu failed, %.1f s\n",
               terminalLine(info.kernel).c_str(),
               terminalLine(info.deviceName).c_str(), toString(info.strategy),
               result.results.size(),
               static_cast<unsigned long long>(info.spaceSize), info.measured,
               failed.size(), info.seconds);
}

Status mergeTunedToml(const std::filesystem::path &path, const TuneSpace &space,
                      const TunedEntry &entry) {
  std::vector<TunedEntry> entries;
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) {
    KB_ASSIGN_OR_RETURN(entries, readTunedToml(path, space));
  }
  auto same =
      std::find_if(entries.begin(), entries.end(), [&](const TunedEntry &e) {
        return e.device == entry.device && e.backend == entry.backend;
      });
  if (same != entries.end())
    *same = entry;
  else
    entries.push_back(entry);
  return writeTunedToml(path, entries);
}

} // namespace kb::workbench
