//===- workbench/report/reference_anchor.cpp - Drift anchors for compare --===//
#include "workbench/report/reference_anchor.h"

#include <algorithm>

namespace kb::report {

namespace {

bool hasCandidate(const Benchmark &b) {
  for (const Variant &v : b.variants)
    if (v.role == VariantRole::Candidate)
      return true;
  return false;
}

const Timing *timingOf(const Variant &v, TimingMode mode) {
  for (const Timing &t : v.timings)
    if (t.mode == mode && !t.samples.empty())
      return &t;
  return nullptr;
}

/// Whether |base|'s reference ran the same code on the same problem as
/// |fresh|'s: the same object bytes, target, executable, export and
/// workload.
bool sameReference(const Benchmark &base, const Variant &baseRef,
                   const Benchmark &fresh, const Variant &freshRef) {
  return !freshRef.objectSha256.empty() &&
         baseRef.objectSha256 == freshRef.objectSha256 &&
         baseRef.name == freshRef.name && baseRef.target == freshRef.target &&
         base.executable == fresh.executable &&
         base.exportName == fresh.exportName && base.workload == fresh.workload;
}

using BenchmarkIndex = std::map<std::string, const Benchmark *>;

/// The anchor of |fresh|'s reference timing |t| against |bases|; none when
/// a base report's reference of that benchmark differs or is not timed,
/// or no base report has it.
std::optional<ReferenceAnchor>
anchorFor(const std::vector<BenchmarkIndex> &bases, const Benchmark &fresh,
          const Variant &ref, const Timing &t) {
  ReferenceAnchor a;
  a.id = fresh.name + "/" + ref.name + "/" + toString(t.mode);
  a.fresh = gpuTimes(t);
  a.freshTiming = &t;
  a.baseRunMedians.resize(bases.size());
  a.baseTimings.resize(bases.size());
  std::vector<double> raw;
  for (size_t i = 0; i < bases.size(); ++i) {
    auto it = bases[i].find(fresh.name);
    if (it == bases[i].end())
      continue;
    const Variant *baseRef = findReference(*it->second);
    const Timing *bt = baseRef ? timingOf(*baseRef, t.mode) : nullptr;
    if (!bt || !sameReference(*it->second, *baseRef, fresh, ref))
      return std::nullopt;
    std::vector<double> times = gpuTimes(*bt);
    std::sort(times.begin(), times.end());
    double median = quantileOfSorted(times, 0.5);
    a.baseRunMedians[i] = median;
    a.baseTimings[i] = bt;
    raw.insert(raw.end(), times.begin(), times.end());
    for (double x : times)
      a.base.push_back(x / median);
  }
  if (a.base.empty())
    return std::nullopt;
  std::sort(raw.begin(), raw.end());
  a.baseMedianNs = quantileOfSorted(raw, 0.5);
  std::sort(a.base.begin(), a.base.end());
  std::sort(a.fresh.begin(), a.fresh.end());
  return a;
}

} // namespace

std::string anchorKey(const Benchmark &benchmark, TimingMode mode) {
  return benchmark.name + "/" + toString(mode);
}

std::map<std::string, ReferenceAnchor>
findReferenceAnchors(const std::vector<BenchReport> &bases,
                     const BenchReport &candidate) {
  std::vector<BenchmarkIndex> index(bases.size());
  for (size_t i = 0; i < bases.size(); ++i)
    for (const Benchmark &b : bases[i].benchmarks)
      index[i].emplace(b.name, &b);
  std::map<std::string, ReferenceAnchor> anchors;
  for (const Benchmark &b : candidate.benchmarks) {
    const Variant *ref = findReference(b);
    if (!ref || !hasCandidate(b))
      continue;
    for (const Timing &t : ref->timings)
      if (!t.samples.empty())
        if (std::optional<ReferenceAnchor> a = anchorFor(index, b, *ref, t))
          anchors.emplace(anchorKey(b, t.mode), std::move(*a));
  }
  return anchors;
}

} // namespace kb::report
