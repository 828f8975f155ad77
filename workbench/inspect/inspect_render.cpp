//===- workbench/inspect/inspect_render.cpp - `inspect` as text and JSON --===//
#include "workbench/inspect/inspect_render.h"

#include "common/terminal_text.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

namespace kb::workbench {
namespace {

using Counts = std::map<std::string, uint64_t>;
/// One row of a target's table: its name and each variant's value ("-"
/// where the variant has no such figure).
using Cell = std::function<std::string(const VariantInspection &)>;

std::string orDash(bool present, const std::string &value) {
  return present ? value : "-";
}

std::string count(const Counts &counts, const std::string &key) {
  auto it = counts.find(key);
  return it == counts.end() ? "-" : std::to_string(it->second);
}

/// A row per key any variant's |pick| has: global loads by width, etc.
void addKeyedRows(
    const std::vector<VariantInspection> &variants,
    const std::function<const Counts *(const VariantInspection &)> &pick,
    std::vector<std::pair<std::string, Cell>> &rows) {
  std::set<std::string> keys;
  for (const VariantInspection &v : variants)
    if (const Counts *c = pick(v))
      for (const auto &[key, n] : *c)
        keys.insert(key);
  for (const std::string &key : keys)
    rows.push_back({key, [pick, key](const VariantInspection &v) {
                      const Counts *c = pick(v);
                      return c ? count(*c, key) : std::string("-");
                    }});
}

std::vector<std::pair<std::string, Cell>>
cudaRows(const std::vector<VariantInspection> &variants) {
  std::vector<std::pair<std::string, Cell>> rows;
  auto ptx = [](auto f) {
    return [f](const VariantInspection &v) {
      return orDash(v.ptx.has_value(), v.ptx ? std::to_string(f(*v.ptx)) : "");
    };
  };
  auto res = [](auto f) {
    return [f](const VariantInspection &v) {
      return orDash(v.resources.has_value(),
                    v.resources ? f(*v.resources) : "");
    };
  };
  rows.push_back(
      {"PTX instructions", ptx([](auto &m) { return m.instructions; })});
  rows.push_back({"registers", res([](const ResourceUsage &r) {
                    return std::to_string(r.registers);
                  })});
  rows.push_back(
      {"spills (stored/loaded bytes)", res([](const ResourceUsage &r) {
         return std::to_string(r.spillStoreBytes) + "/" +
                std::to_string(r.spillLoadBytes);
       })});
  rows.push_back({"shared memory (bytes)", res([](const ResourceUsage &r) {
                    return std::to_string(r.sharedMemoryBytes);
                  })});
  rows.push_back({"theoretical occupancy", [](const VariantInspection &v) {
                    return orDash(v.occupancy.has_value(),
                                  v.occupancy
                                      ? std::to_string(static_cast<int>(
                                            std::lround(*v.occupancy * 100))) +
                                            "%"
                                      : "");
                  }});
  addKeyedRows(
      variants,
      [](const VariantInspection &v) {
        return v.ptx ? &v.ptx->globalLoads : nullptr;
      },
      rows);
  addKeyedRows(
      variants,
      [](const VariantInspection &v) {
        return v.ptx ? &v.ptx->globalStores : nullptr;
      },
      rows);
  rows.push_back(
      {"shared-memory ops", ptx([](auto &m) { return m.sharedOps; })});
  rows.push_back({"fma/mad (float)", ptx([](auto &m) { return m.fma; })});
  rows.push_back({"tensor-core ops", ptx([](auto &m) { return m.tensorOps; })});
  rows.push_back({"branches", ptx([](auto &m) { return m.branches; })});
  rows.push_back({"barriers", ptx([](auto &m) { return m.barriers; })});
  if (std::none_of(variants.begin(), variants.end(),
                   [](auto &v) { return v.sass.has_value(); }))
    return rows;
  rows.push_back({"SASS instructions", [](const VariantInspection &v) {
                    return orDash(v.sass.has_value(),
                                  v.sass ? std::to_string(v.sass->instructions)
                                         : "");
                  }});
  return rows;
}

/// The row name of a driver statistic: "driver: Register Count", with the
/// executable's name where the driver reports several.
std::string driverRowName(const hal::DriverExecutable &executable,
                          const hal::DriverStatistic &statistic, bool several) {
  return "driver: " + (several ? executable.name + " " : std::string()) +
         statistic.name;
}

/// One row per statistic any variant's driver reported, in the order they
/// came, each variant's value or "-".
void addDriverRows(const std::vector<VariantInspection> &variants,
                   std::vector<std::pair<std::string, Cell>> &rows) {
  std::vector<std::string> names;
  for (const VariantInspection &v : variants)
    for (const hal::DriverExecutable &e : v.driverStatistics)
      for (const hal::DriverStatistic &s : e.statistics) {
        std::string name = driverRowName(e, s, v.driverStatistics.size() > 1);
        if (std::find(names.begin(), names.end(), name) == names.end())
          names.push_back(name);
      }
  for (const std::string &name : names)
    rows.push_back(
        {name, [name](const VariantInspection &v) {
           for (const hal::DriverExecutable &e : v.driverStatistics)
             for (const hal::DriverStatistic &s : e.statistics)
               if (driverRowName(e, s, v.driverStatistics.size() > 1) == name)
                 return terminalLine(s.value);
           return std::string("-");
         }});
}

std::vector<std::pair<std::string, Cell>>
vulkanRows(const std::vector<VariantInspection> &variants) {
  std::vector<std::pair<std::string, Cell>> rows;
  auto spv = [](auto f) {
    return [f](const VariantInspection &v) {
      return orDash(v.spirv.has_value(),
                    v.spirv ? std::to_string(f(*v.spirv)) : "");
    };
  };
  rows.push_back(
      {"SPIR-V instructions", spv([](auto &m) { return m.instructions; })});
  addKeyedRows(
      variants,
      [](const VariantInspection &v) {
        return v.spirv ? &v.spirv->bufferLoads : nullptr;
      },
      rows);
  addKeyedRows(
      variants,
      [](const VariantInspection &v) {
        return v.spirv ? &v.spirv->bufferStores : nullptr;
      },
      rows);
  rows.push_back(
      {"workgroup-memory ops", spv([](auto &m) { return m.workgroupOps; })});
  rows.push_back({"Fma", spv([](auto &m) { return m.fma; })});
  rows.push_back(
      {"cooperative-matrix ops", spv([](auto &m) { return m.matrixOps; })});
  rows.push_back({"branches", spv([](auto &m) { return m.branches; })});
  rows.push_back({"barriers", spv([](auto &m) { return m.barriers; })});
  addDriverRows(variants, rows);
  return rows;
}

std::string pad(const std::string &s, size_t width) {
  return s + std::string(width > s.size() ? width - s.size() : 0, ' ');
}

/// The target's table: a heading row of labels, then one row per figure.
std::string renderTable(const TargetInspection &t) {
  bool vulkan = std::any_of(t.variants.begin(), t.variants.end(),
                            [](auto &v) { return v.format == "spirv"; });
  auto rows = vulkan ? vulkanRows(t.variants) : cudaRows(t.variants);
  size_t nameWidth = t.target.size();
  for (const auto &row : rows)
    nameWidth = std::max(nameWidth, row.first.size());
  size_t colWidth = 10;
  for (const VariantInspection &v : t.variants)
    colWidth = std::max(colWidth, terminalLine(v.label).size() + 2);
  std::string out = "  " + pad(t.target, nameWidth + 4);
  for (const VariantInspection &v : t.variants)
    out += pad(terminalLine(v.label), colWidth);
  out += "\n";
  for (const auto &[name, cell] : rows) {
    out += "    " + pad(name, nameWidth + 2);
    for (const VariantInspection &v : t.variants)
      out += pad(cell(v), colWidth);
    out += "\n";
  }
  for (const std::string &why : t.why)
    out += "    why: " + why + "\n";
  return out;
}

/// Each note once, with the variants it is about: "note: ... (sm_90
/// candidate, sm_90 reference)".
std::string renderNotes(const BenchmarkInspection &b) {
  std::vector<std::pair<std::string, std::string>> notes; // text, variants
  auto add = [&](const std::string &text, const std::string &who) {
    for (auto &[known, whom] : notes)
      if (known == text) {
        whom += who.empty() ? "" : ", " + who;
        return;
      }
    notes.push_back({text, who});
  };
  for (const std::string &note : b.notes)
    add(note, "");
  for (const TargetInspection &t : b.targets)
    for (const VariantInspection &v : t.variants)
      for (const std::string &note : v.notes)
        add(note, t.target + " " + v.label);
  std::string out;
  for (const auto &[text, who] : notes)
    out += "  note: " + terminalLine(text) +
           (who.empty() ? "" : " (" + terminalLine(who) + ")") + "\n";
  return out;
}

std::string renderBenchmark(const BenchmarkInspection &b) {
  std::string out = terminalLine(b.name) + " (executable " +
                    terminalLine(b.executable) + ", " +
                    terminalLine(b.modulePath) + ")\n";
  for (const TargetInspection &t : b.targets)
    out += renderTable(t);
  out += "  files: " + terminalLine(b.outputDir) + "/ (" +
         std::to_string(b.files.size()) + ")\n";
  return out + renderNotes(b);
}

} // namespace

std::string renderInspectText(const InspectReport &report) {
  std::string out;
  for (const BenchmarkInspection &b : report.benchmarks)
    out += (out.empty() ? "" : "\n") + renderBenchmark(b);
  if (!report.statisticsDevice.empty())
    out += "driver statistics from " + terminalLine(report.statisticsDevice) +
           "\n";
  return out;
}

} // namespace kb::workbench
