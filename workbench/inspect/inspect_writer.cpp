//===- workbench/inspect/inspect_writer.cpp - BUILD/inspect/<benchmark>/ --===//
#include "workbench/inspect/inspect_writer.h"

#include "common/file_util.h"
#include "workbench/inspect/inspect_why.h"

#include <cctype>
#include <filesystem>

namespace kb::workbench {
namespace {

namespace fs = std::filesystem;

const std::string *listing(const VariantInspection &v, const std::string &ext) {
  for (const auto &[kind, text] : v.listings)
    if (kind == ext)
      return &text;
  return nullptr;
}

/// `diff -u` of |ref| and |cand|, labelled with the variants' names.
StatusOr<std::string> unifiedDiff(const InspectTools &tools,
                                  const std::string &refLabel,
                                  const std::string &ref,
                                  const std::string &candLabel,
                                  const std::string &cand) {
  KB_ASSIGN_OR_RETURN(
      ToolOutput out,
      runInspectTool({tools.diff->string(), "-u", "--label", refLabel,
                      "--label", candLabel, "reference", "candidate"},
                     {{"reference", ref}, {"candidate", cand}}, {0, 1}));
  return out.stdoutText;
}

/// Writes |bytes| as |name| in |dir| and lists it in |b|.
Status emit(const fs::path &dir, const std::string &name,
            const std::string &bytes, BenchmarkInspection &b) {
  KB_RETURN_IF_ERROR(writeFileAtomic(dir / name, bytes));
  b.files.push_back(name);
  return okStatus();
}

/// One candidate's diffs against the reference, one per listing both have.
Status emitDiffs(const InspectTools &tools, const fs::path &dir,
                 const std::string &stem, const VariantInspection &cand,
                 const VariantInspection &ref, BenchmarkInspection &b) {
  for (const auto &[ext, text] : cand.listings) {
    const std::string *theirs = listing(ref, ext);
    if (!theirs)
      continue;
    if (!tools.diff) {
      b.notes.push_back("diffs: `diff` not found on PATH (Debian: apt-get "
                        "install diffutils)");
      return okStatus();
    }
    KB_ASSIGN_OR_RETURN(std::string diff,
                        unifiedDiff(tools, ref.label + "." + ext, *theirs,
                                    cand.label + "." + ext, text));
    std::string name = stem + fileNamePart(cand.label) + "." + ext + ".diff";
    KB_RETURN_IF_ERROR(emit(dir, name, diff, b));
  }
  return okStatus();
}

Status stageBenchmark(const InspectTools &tools, const fs::path &dir,
                      BenchmarkInspection &b) {
  for (const TargetInspection &t : b.targets) {
    std::string stem = fileNamePart(t.target) + ".";
    for (const VariantInspection &v : t.variants)
      for (const auto &[ext, text] : v.listings)
        KB_RETURN_IF_ERROR(
            emit(dir, stem + fileNamePart(v.label) + "." + ext, text, b));
    for (const VariantInspection &v : t.variants) {
      const VariantInspection *ref = referenceFor(t, v);
      if (v.role == "candidate" && ref)
        KB_RETURN_IF_ERROR(emitDiffs(tools, dir, stem, v, *ref, b));
    }
  }
  return okStatus();
}

/// Moves |staged| to |final|, replacing what an earlier inspect left.
Status swapIn(const fs::path &staged, const fs::path &final) {
  std::error_code ec;
  fs::remove_all(final, ec);
  if (ec)
    return internalError("cannot replace " + final.string() + ": " +
                         ec.message());
  fs::rename(staged, final, ec);
  if (ec)
    return internalError("cannot move " + staged.string() + " to " +
                         final.string() + ": " + ec.message());
  return okStatus();
}

} // namespace

std::string fileNamePart(const std::string &name) {
  std::string out;
  for (char c : name)
    out += std::isalnum(static_cast<unsigned char>(c)) || c == '.' ||
                   c == '_' || c == '-'
               ? c
               : '_';
  if (out.empty() || out == "." || out == "..")
    out = "_" + out;
  return out;
}

namespace {

/// Stages every benchmark under |root|, then swaps them all in.
Status stageAndSwap(const InspectTools &tools, const fs::path &root,
                    InspectReport &report) {
  std::vector<TempDir> staged;
  for (BenchmarkInspection &b : report.benchmarks) {
    KB_ASSIGN_OR_RETURN(TempDir dir, TempDir::create(root, ".staging-"));
    KB_RETURN_IF_ERROR(stageBenchmark(tools, dir.path(), b));
    b.outputDir = (root / fileNamePart(b.name)).string();
    staged.push_back(std::move(dir));
  }
  for (size_t i = 0; i < staged.size(); ++i)
    KB_RETURN_IF_ERROR(
        swapIn(staged[i].path(), report.benchmarks[i].outputDir));
  return okStatus();
}

} // namespace

Status writeInspection(const InspectTools &tools, InspectReport &report) {
  fs::path root = fs::path(report.buildDir) / "inspect";
  std::error_code ec;
  bool created = !fs::exists(root, ec);
  fs::create_directories(root, ec);
  if (ec)
    return internalError("cannot create " + root.string() + ": " +
                         ec.message());
  Status written = stageAndSwap(tools, root, report);
  if (!written.ok() && created)
    fs::remove_all(root, ec); // nothing of a first inspect is left behind
  return written;
}

} // namespace kb::workbench
