//===- workbench/build/declared_figures.cpp - Declared figures in ---------===//
#include "workbench/build/declared_figures.h"

#include "workbench/build/build_record.h"

#include "common/ustar.h"

namespace kb::workbench {

SpecialValueNames::Stored
SpecialValueNames::store(const bench::KernelDeclared &d) const {
  Stored names;
  if (d.nanInputs)
    names.push_back("nan");
  if (d.infInputs)
    names.push_back("inf");
  return names;
}

std::string SpecialValueNames::load(const Stored &names,
                                    bench::KernelDeclared &d) const {
  for (const std::string &name : names) {
    d.nanInputs |= name == "nan";
    d.infInputs |= name == "inf";
  }
  return "";
}

nlohmann::ordered_json declaredJson(const bench::KernelDeclared &declared) {
  if (declared.empty())
    return nullptr;
  return toJsonObject(declared);
}

namespace {
/// Why |declared| names a file outside the build directory; "" when it
/// names none.
std::string fileOutside(const bench::KernelDeclared &declared) {
  for (const auto *arrays : {&declared.fixedInputs, &declared.expectedOutputs})
    for (const bench::FixedArray &a : *arrays)
      // A path of the build directory, as a bundle member is: a build.json
      // from elsewhere names nothing outside it.
      if (std::string why = ustar::checkMemberName(a.stored); !why.empty())
        return "file `" + a.stored + "` " + why;
  if (declared.hostReference)
    if (std::string why =
            ustar::checkMemberName(declared.hostReference->stored);
        !why.empty())
      return "file `" + declared.hostReference->stored + "` " + why;
  return "";
}

/// |declared|'s fixed arrays and host reference, found under |buildDir|.
void locateDeclaredFiles(bench::KernelDeclared &declared,
                         const std::filesystem::path &buildDir) {
  for (auto *arrays : {&declared.fixedInputs, &declared.expectedOutputs})
    for (bench::FixedArray &a : *arrays)
      a.file = buildDir / a.stored;
  if (declared.hostReference)
    declared.hostReference->file = buildDir / declared.hostReference->stored;
}
} // namespace

StatusOr<DeclaredByObject>
readDeclaredFigures(const std::filesystem::path &buildJson) {
  KB_ASSIGN_OR_RETURN(BuildRecord record, readBuildRecord(buildJson));
  DeclaredByObject declared;
  for (size_t i = 0; i < record.jobs.size(); ++i) {
    BuildJobRecord &job = record.jobs[i];
    JobDeclared entry{job.kernel,
                      job.declared.value_or(bench::KernelDeclared{})};
    if (std::string why = fileOutside(entry.declared); !why.empty())
      return invalidArgument(buildJson.string() + ": jobs[" +
                             std::to_string(i) + "].declared: " + why);
    locateDeclaredFiles(entry.declared, buildJson.parent_path());
    for (const BuildOutputRecord &output : job.outputs)
      declared[output.sha256].push_back(entry);
  }
  return declared;
}

const bench::KernelDeclared *findDeclared(const DeclaredByObject &byObject,
                                          const std::string &sha256,
                                          const std::string &executable,
                                          std::string &ambiguity) {
  auto it = byObject.find(sha256);
  if (it == byObject.end())
    return nullptr;
  const std::vector<JobDeclared> &jobs = it->second;
  for (const JobDeclared &job : jobs)
    if (job.kernel == executable)
      return &job.declared;
  std::string kernels;
  for (const JobDeclared &job : jobs)
    if (kernels.find("`" + job.kernel + "`") == std::string::npos)
      kernels += (kernels.empty() ? "`" : ", `") + job.kernel + "`";
  if (kernels.find(',') == std::string::npos)
    return &jobs.front().declared;
  ambiguity = "the object of `" + executable + "` was built by kernels " +
              kernels +
              ": their declared FLOPs, bytes and tolerances are "
              "not applied (give each kernel its own source or defines)";
  return nullptr;
}

} // namespace kb::workbench
