//===- workbench/tune/tune_cache.cpp - The resumable results of `tune` ----===//
#include "workbench/tune/tune_cache.h"

#include "common/file_util.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <string_view>
#include <type_traits>

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

/// |j[key]| into |out| when present; false when present with another type
/// (a number where a string belongs, a fraction where an integer does).
template <typename T> bool readField(const json &j, const char *key, T &out) {
  auto it = j.find(key);
  if (it == j.end())
    return true;
  if constexpr (std::is_same_v<T, std::string>) {
    if (!it->is_string())
      return false;
  } else if constexpr (std::is_integral_v<T>) {
    if (!it->is_number_integer())
      return false;
  } else if (!it->is_number()) {
    return false;
  }
  out = it->get<T>();
  return true;
}

template <typename T>
bool readField(const json &j, const char *key, std::optional<T> &out) {
  if (!j.contains(key))
    return true;
  T value{};
  if (!readField(j, key, value))
    return false;
  out = value;
  return true;
}

bool sizesFromJson(const json &j, TuneMeasurement &m) {
  auto it = j.find("sizes");
  if (it == j.end())
    return true;
  if (!it->is_array())
    return false;
  for (const json &s : *it) {
    std::string problem;
    double median = 0;
    if (!s.is_object() || !readField(s, "problem", problem) ||
        !readField(s, "median_ns", median))
      return false;
    m.sizes.emplace_back(problem, median);
  }
  return true;
}

/// A cached measurement; false for anything this version did not write.
/// Every field's type is checked: the file is appended to by hand, by other
/// versions and by writes cut short, and one bad line must cost only itself.
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
  return known && readField(j, "level", m.level) &&
         readField(j, "cost_ns", m.costNs) &&
         readField(j, "median_ns", m.medianNs) &&
         readField(j, "gb_per_s", m.gbPerSecond) &&
         readField(j, "registers", m.registers) &&
         readField(j, "spill_bytes", m.spillBytes) &&
         readField(j, "occupancy", m.occupancy) && sizesFromJson(j, m) &&
         readField(j, "message", m.message) &&
         (m.status != MStatus::Ok || m.medianNs > 0);
}

enum class CacheLine { Entry, OtherDevice, Bad };

/// One line of the file: a measurement for |device| (into |key|, |m|), one
/// for another device, or a line to skip.
CacheLine readLine(std::string_view line, const std::string &device,
                   std::string &key, TuneMeasurement &m) {
  json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object())
    return CacheLine::Bad;
  auto d = j.find("device");
  auto c = j.find("config");
  auto r = j.find("result");
  if (d == j.end() || !d->is_string() || c == j.end() || !c->is_string() ||
      r == j.end() || !fromJson(*r, m))
    return CacheLine::Bad;
  if (d->get<std::string>() != device)
    return CacheLine::OtherDevice;
  key = c->get<std::string>();
  return CacheLine::Entry;
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
  StatusOr<std::string> text = readFile(file, kTuneCacheInput);
  if (!text.ok() && text.status().code() != StatusCode::NotFound)
    return text.status();
  std::string_view rest = text.ok() ? std::string_view(*text) : "";
  while (!rest.empty()) {
    size_t end = std::min(rest.find('\n'), rest.size());
    std::string_view line = rest.substr(0, end);
    rest.remove_prefix(std::min(end + 1, rest.size()));
    if (line.find_first_not_of(" \t\r") == std::string_view::npos)
      continue;
    std::string key;
    TuneMeasurement m;
    CacheLine kind = readLine(line, cache.device_, key, m);
    if (kind == CacheLine::Bad)
      ++cache.skippedLines_;
    else if (kind == CacheLine::Entry)
      cache.entries_[key][m.level] = m;
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
