//===- workbench/report/program_rows.cpp - The whole program's rows -------===//
#include "workbench/report/program_rows.h"

#include "workbench/report/report_rows.h"

namespace kb::report {

std::string ProgramRow::id() const {
  if (!timing)
    return name;
  return name + "/" + variant + "/" + toString(timing->mode);
}

std::string ProgramRow::statusWord() const {
  // report.md's words for what went well; the failures as every table
  // spells them.
  if (status == BenchStatus::Ok)
    return generatedOnly ? "(reference)" : "correct";
  if (status == BenchStatus::Skipped)
    return "skipped";
  return report::statusWord(status);
}

std::vector<ProgramRow> programRows(const BenchReport &report) {
  std::vector<ProgramRow> rows;
  if (!report.program)
    return rows;
  const ProgramResult &p = *report.program;
  ProgramRow base;
  base.name = "program " + p.entryFunction;
  base.status = p.status;
  base.reason = p.reason;
  // A failed program's timings (if any) are not results: one row that says
  // why, as the terminal table has.
  if (p.status != BenchStatus::Ok) {
    base.variant = "-";
    rows.push_back(base);
    return rows;
  }
  if (p.withSubstitutions) {
    ProgramRow row = base;
    row.variant = "with substitutions";
    row.timing = &*p.withSubstitutions;
    row.speedup = p.speedup;
    rows.push_back(row);
  }
  if (p.generatedOnly) {
    ProgramRow row = base;
    row.variant = "generated only";
    row.generatedOnly = true;
    row.timing = &*p.generatedOnly;
    rows.push_back(row);
  }
  return rows;
}

} // namespace kb::report
