//===- workbench/inspect/inspect_why.cpp - Why a candidate differs --------===//
//
// PTX and SPIR-V figures are compared through one view (MixView), so each
// rule is written once for both languages.
//
//===----------------------------------------------------------------------===//
#include "workbench/inspect/inspect_why.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace kb::workbench {
namespace {

using Counts = std::map<std::string, uint64_t>;

/// The classes both mixes have, under each language's names.
struct MixView {
  const Counts *loads = nullptr;
  const Counts *stores = nullptr;
  uint32_t (*width)(std::string_view) = nullptr;
  uint64_t instructions = 0, sharedOps = 0, fma = 0, tensorOps = 0,
           barriers = 0;
  const char *sharedName = "";
  const char *tensorName = "";
};

std::optional<MixView> viewOf(const VariantInspection &v) {
  if (v.ptx)
    return MixView{&v.ptx->globalLoads, &v.ptx->globalStores,
                   ptxVectorWidth,      v.ptx->instructions,
                   v.ptx->sharedOps,    v.ptx->fma,
                   v.ptx->tensorOps,    v.ptx->barriers,
                   "shared-memory ops", "tensor-core ops (mma)"};
  if (v.spirv)
    return MixView{&v.spirv->bufferLoads,  &v.spirv->bufferStores,
                   spirvVectorWidth,       v.spirv->instructions,
                   v.spirv->workgroupOps,  v.spirv->fma,
                   v.spirv->matrixOps,     v.spirv->barriers,
                   "workgroup-memory ops", "cooperative-matrix ops"};
  return std::nullopt;
}

uint32_t widest(const Counts &accesses, const MixView &view) {
  uint32_t w = 0;
  for (const auto &[key, count] : accesses)
    w = std::max(w, view.width(key));
  return w;
}

/// "ld.global.f32 ×4, ld.global.v2.f32 ×1": the accesses of |accesses|
/// whose width passes |keep|, with their counts when |withCounts|.
template <typename Keep>
std::string listAccesses(const Counts &accesses, const MixView &view, Keep keep,
                         bool withCounts) {
  std::string out;
  for (const auto &[key, count] : accesses) {
    if (!keep(view.width(key)))
      continue;
    out += (out.empty() ? "" : ", ") + key;
    if (withCounts)
      out += " \u00D7" + std::to_string(count);
  }
  return out;
}

/// "scalar loads (ld.global.f32 ×4) where the reference uses
/// ld.global.v4.f32", when the widest accesses differ.
void compareWidths(const char *what, const Counts &cand, const Counts &ref,
                   const MixView &view, std::vector<std::string> &why) {
  uint32_t c = widest(cand, view), r = widest(ref, view);
  if (c == 0 || r == 0 || c == r)
    return;
  bool narrower = c < r;
  std::string mine = listAccesses(
      cand, view, [&](uint32_t w) { return narrower ? w < r : w > r; }, true);
  std::string theirs = listAccesses(
      ref, view, [&](uint32_t w) { return w == r; }, false);
  std::string adjective = !narrower ? "wider" : c == 1 ? "scalar" : "narrower";
  why.push_back(adjective + " " + what + " (" + mine +
                ") where the reference uses " + theirs);
}

/// "N <what> where the reference has M" when the counts differ.
void compareCount(uint64_t cand, uint64_t ref, const std::string &what,
                  std::vector<std::string> &why) {
  if (cand == ref)
    return;
  auto say = [](uint64_t n) {
    return n == 0 ? std::string("no") : std::to_string(n);
  };
  why.push_back(say(cand) + " " + what + " where the reference has " +
                say(ref));
}

std::string percent(double fraction) {
  return std::to_string(static_cast<int>(std::lround(fraction * 100))) + "%";
}

std::string resourcesText(const ResourceUsage &r) {
  return std::to_string(r.registers) + " registers, " +
         std::to_string(r.sharedMemoryBytes) + " bytes shared";
}

/// Spills, then occupancy (or, without an architecture table, registers).
void compareResources(const VariantInspection &cand,
                      const VariantInspection &ref,
                      std::vector<std::string> &why) {
  if (!cand.resources || !ref.resources)
    return;
  const ResourceUsage &c = *cand.resources, &r = *ref.resources;
  uint64_t cSpill = c.spillStoreBytes + c.spillLoadBytes,
           rSpill = r.spillStoreBytes + r.spillLoadBytes;
  if (cSpill != rSpill)
    why.push_back("spills " + std::to_string(c.spillStoreBytes) +
                  " bytes stored, " + std::to_string(c.spillLoadBytes) +
                  " loaded where the reference spills " +
                  std::to_string(r.spillStoreBytes) + " and " +
                  std::to_string(r.spillLoadBytes));
  if (cand.occupancy && ref.occupancy &&
      std::fabs(*cand.occupancy - *ref.occupancy) > 1e-9)
    why.push_back("theoretical occupancy " + percent(*cand.occupancy) + " (" +
                  resourcesText(c) + ") where the reference reaches " +
                  percent(*ref.occupancy) + " (" + resourcesText(r) + ")");
  else if (!cand.occupancy && c.registers != r.registers)
    compareCount(c.registers, r.registers, "registers", why);
}

} // namespace

// PTX with PTX, not with the cubin ptxas made of it.
const VariantInspection *referenceFor(const TargetInspection &target,
                                      const VariantInspection &candidate) {
  const VariantInspection *any = nullptr;
  for (const VariantInspection &v : target.variants) {
    if (v.role != "reference")
      continue;
    if (v.format == candidate.format)
      return &v;
    any = any ? any : &v;
  }
  return any;
}

/// The driver's statistics that differ by a quarter or more between the
/// two pipelines (by the driver's own names), at most three: "driver:
/// Register Count 64 where the reference has 32".
void compareDriverStatistics(const VariantInspection &cand,
                             const VariantInspection &ref,
                             std::vector<std::string> &why) {
  if (cand.driverStatistics.empty() || ref.driverStatistics.empty())
    return;
  const hal::DriverExecutable &c = cand.driverStatistics.front();
  const hal::DriverExecutable &r = ref.driverStatistics.front();
  int said = 0;
  for (const hal::DriverStatistic &cs : c.statistics)
    for (const hal::DriverStatistic &rs : r.statistics) {
      if (cs.name != rs.name || said == 3)
        continue;
      double high = std::max(cs.number, rs.number);
      double low = std::min(cs.number, rs.number);
      if (high <= 0 || low >= 0.75 * high)
        continue;
      why.push_back("driver: " + cs.name + " " + cs.value +
                    " where the reference has " + rs.value);
      ++said;
    }
}

std::vector<std::string> explainDifferences(const VariantInspection &cand,
                                            const VariantInspection &ref) {
  std::vector<std::string> why;
  std::optional<MixView> c = viewOf(cand), r = viewOf(ref);
  if (c && r) {
    compareWidths("loads", *c->loads, *r->loads, *c, why);
    compareWidths("stores", *c->stores, *r->stores, *c, why);
  }
  compareResources(cand, ref, why);
  compareDriverStatistics(cand, ref, why);
  if (c && r) {
    compareCount(c->tensorOps, r->tensorOps, c->tensorName, why);
    compareCount(c->barriers, r->barriers, "barriers", why);
    compareCount(c->sharedOps, r->sharedOps, c->sharedName, why);
    compareCount(c->fma, r->fma, "FMAs", why);
    compareCount(c->instructions, r->instructions, "instructions", why);
  }
  if (why.empty())
    why.push_back("no difference in the figures compared (access widths, "
                  "spills, occupancy, the driver's statistics, tensor ops, "
                  "barriers, shared memory, FMAs, instruction count)");
  return why;
}

} // namespace kb::workbench
