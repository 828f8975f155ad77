//===- workbench/tune/tune_cache.cpp - The resumable results of `tune` ----===//
#include "workbench/tune/tune_cache.h"

#include "common/file_util.h"
#include "workbench/support/json_fields.h"

#include <algorithm>
#include <array>
#include <fstream>
#include <string_view>

namespace kb::workbench {

namespace {

using MStatus = TuneMeasurement::Status;

constexpr std::array<MStatus, 4> kStatuses = {
    MStatus::Ok, MStatus::CompileError, MStatus::Incorrect, MStatus::Error};

/// One problem size's median (TuneMeasurement::sizes).
struct ProblemMedian {
  std::string problem;
  double medianNs = 0;
};

struct SizesAsObjects {
  using Stored = std::vector<ProblemMedian>;
  Stored store(const std::vector<std::pair<std::string, double>> &sizes) const {
    Stored out;
    for (const auto &[problem, median] : sizes)
      out.push_back({problem, median});
    return out;
  }
  std::string load(const Stored &stored,
                   std::vector<std::pair<std::string, double>> &sizes) const {
    for (const ProblemMedian &p : stored)
      sizes.emplace_back(p.problem, p.medianNs);
    return "";
  }
};

/// One line of the file.
struct CacheEntry {
  std::string config;
  std::string device;
  TuneMeasurement result;
};

} // namespace

// The keys are in alphabetical order, as the file has always had them.
// Every key but "status" may be absent: a line holds what was measured.

template <> struct JsonFields<ProblemMedian> {
  template <typename IO, typename S> static Status map(IO &io, S &p) {
    KB_RETURN_IF_ERROR(
        io.field("median_ns", p.medianNs, Presence::MayBeAbsent));
    return io.field("problem", p.problem, Presence::MayBeAbsent);
  }
};

template <> struct JsonFields<TuneMeasurement> {
  template <typename IO, typename S> static Status map(IO &io, S &m) {
    constexpr Presence kAlways = Presence::MayBeAbsent;
    constexpr Presence kIfSet = Presence::OmitWhenEmpty;
    KB_RETURN_IF_ERROR(io.field("cost_ns", m.costNs, kAlways));
    KB_RETURN_IF_ERROR(io.field("gb_per_s", m.gbPerSecond, kIfSet));
    KB_RETURN_IF_ERROR(io.field("level", m.level, kAlways));
    // Only an ok measurement has a median.
    KB_RETURN_IF_ERROR(io.field("median_ns", m.medianNs, kIfSet));
    KB_RETURN_IF_ERROR(io.field("message", m.message, kIfSet));
    KB_RETURN_IF_ERROR(io.field("noise", m.noise, kIfSet));
    KB_RETURN_IF_ERROR(io.field("occupancy", m.occupancy, kIfSet));
    KB_RETURN_IF_ERROR(io.field("registers", m.registers, kIfSet));
    KB_RETURN_IF_ERROR(io.field("sizes", m.sizes, SizesAsObjects(), kIfSet));
    KB_RETURN_IF_ERROR(io.field("spill_bytes", m.spillBytes, kIfSet));
    KB_RETURN_IF_ERROR(io.field("status", m.status, oneOf(kStatuses)));
    return io.check([&]() -> std::string {
      if (m.status != MStatus::Ok || m.medianNs > 0)
        return "";
      return "median_ns: expected a positive time for an ok measurement";
    });
  }
};

template <> struct JsonFields<CacheEntry> {
  template <typename IO, typename S> static Status map(IO &io, S &e) {
    KB_RETURN_IF_ERROR(io.field("config", e.config));
    KB_RETURN_IF_ERROR(io.field("device", e.device));
    return io.field("result", e.result);
  }
};

namespace {

enum class CacheLine { Entry, OtherDevice, Bad };

/// One line of the file: a measurement for |device| (into |entry|), one
/// for another device, or a line to skip. Every field's type is checked:
/// the file is appended to by hand, by other versions and by writes cut
/// short, and one bad line must cost only itself.
CacheLine readLine(std::string_view line, const std::string &device,
                   const JsonOrigin &origin, CacheEntry &entry) {
  OrderedJson j = OrderedJson::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !fromJsonObject(j, origin, entry).ok())
    return CacheLine::Bad;
  return entry.device == device ? CacheLine::Entry : CacheLine::OtherDevice;
}

} // namespace

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
  JsonOrigin origin{file.string(), ""};
  while (!rest.empty()) {
    size_t end = std::min(rest.find('\n'), rest.size());
    std::string_view line = rest.substr(0, end);
    rest.remove_prefix(std::min(end + 1, rest.size()));
    if (line.find_first_not_of(" \t\r") == std::string_view::npos)
      continue;
    CacheEntry entry;
    CacheLine kind = readLine(line, cache.device_, origin, entry);
    if (kind == CacheLine::Bad)
      ++cache.skippedLines_;
    else if (kind == CacheLine::Entry)
      cache.entries_[entry.config][entry.result.level] = entry.result;
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
  out << toJsonObject(CacheEntry{key, device_, m}).dump() << "\n";
  out.flush();
  if (!out)
    return invalidArgument("cannot append to the tune cache " + file_.string());
  return okStatus();
}

} // namespace kb::workbench
