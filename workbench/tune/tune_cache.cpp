//===- workbench/tune/tune_cache.cpp - The resumable results of `tune` ----===//
#include "workbench/tune/tune_cache.h"

#include <nlohmann/json.hpp>

#include <fstream>

namespace kb::workbench {

namespace {

using json = nlohmann::json;
using MStatus = TuneMeasurement::Status;

json toJson(const TuneMeasurement &m) {
  json j = {{"status", toString(m.status)},
            {"level", m.level},
            {"cost_ns", m.costNs}};
  if (m.status == MStatus::Ok)
    j["median_ns"] = m.medianNs;
  if (m.gbPerSecond)
    j["gb_per_s"] = *m.gbPerSecond;
  if (m.registers)
    j["registers"] = *m.registers;
  if (m.spillBytes)
    j["spill_bytes"] = *m.spillBytes;
  if (m.occupancy)
    j["occupancy"] = *m.occupancy;
  if (!m.sizes.empty()) {
    j["sizes"] = json::array();
    for (const auto &[label, median] : m.sizes)
      j["sizes"].push_back({{"problem", label}, {"median_ns", median}});
  }
  if (!m.message.empty())
    j["message"] = m.message;
  return j;
}

bool fromJson(const json &j, TuneMeasurement &m) {
  if (!j.is_object() || !j.contains("status") || !j["status"].is_string())
    return false;
  std::string status = j["status"];
  bool known = false;
  for (MStatus s :
       {MStatus::Ok, MStatus::CompileError, MStatus::Incorrect, MStatus::Error})
    if (status == toString(s)) {
      m.status = s;
      known = true;
    }
  if (!known)
    return false;
  m.level = j.value("level", 0);
  m.costNs = j.value("cost_ns", 0.0);
  m.medianNs = j.value("median_ns", 0.0);
  if (j.contains("gb_per_s"))
    m.gbPerSecond = j["gb_per_s"].get<double>();
  if (j.contains("registers"))
    m.registers = j["registers"].get<int64_t>();
  if (j.contains("spill_bytes"))
    m.spillBytes = j["spill_bytes"].get<int64_t>();
  if (j.contains("occupancy"))
    m.occupancy = j["occupancy"].get<double>();
  if (j.contains("sizes") && j["sizes"].is_array())
    for (const json &s : j["sizes"])
      m.sizes.emplace_back(s.value("problem", ""), s.value("median_ns", 0.0));
  m.message = j.value("message", "");
  return m.status != MStatus::Ok || m.medianNs > 0;
}

} // namespace

std::string measurementJson(const TuneMeasurement &m) {
  return toJson(m).dump();
}

StatusOr<TuneCache> TuneCache::open(const std::filesystem::path &file,
                                    std::string device) {
  TuneCache cache;
  cache.file_ = file;
  cache.device_ = std::move(device);
  std::error_code ec;
  std::filesystem::create_directories(file.parent_path(), ec);
  if (ec)
    return invalidArgument("cannot create the tune cache directory " +
                           file.parent_path().string() + ": " + ec.message());
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
    TuneMeasurement m;
    if (j.is_discarded() || !j.is_object() ||
        j.value("device", "") != cache.device_ || !j.contains("config") ||
        !j["config"].is_string() || !fromJson(j["result"], m))
      continue;
    cache.entries_[j["config"].get<std::string>()][m.level] = m;
  }
  return cache;
}

const TuneMeasurement *TuneCache::find(const std::string &key,
                                       int level) const {
  auto it = entries_.find(key);
  if (it == entries_.end())
    return nullptr;
  // A configuration that failed to build, was wrong or faulted is not
  // measured again at another level.
  for (const auto &[l, m] : it->second)
    if (m.status != TuneMeasurement::Status::Ok)
      return &m;
  // The same level first, so a repeated search (successive halving ranks
  // by each level's own measurements) takes the same path; else a longer
  // measurement.
  auto at = it->second.lower_bound(level);
  return at == it->second.end() ? nullptr : &at->second;
}

Status TuneCache::add(const std::string &key, const TuneMeasurement &m) {
  entries_[key][m.level] = m;
  std::ofstream out(file_, std::ios::app);
  json line = {{"device", device_}, {"config", key}, {"result", toJson(m)}};
  out << line.dump() << "\n";
  out.flush();
  if (!out)
    return invalidArgument("cannot append to the tune cache " + file_.string());
  return okStatus();
}

} // namespace kb::workbench
