//===- workbench/build/declared_figures.cpp - Declared figures in ---------===//
#include "workbench/build/declared_figures.h"

#include "workbench/build/build_resources.h"

namespace kb::workbench {

namespace {
// Written as build.json is (key order kept), read as any JSON.
using json = nlohmann::ordered_json;

template <typename T> json optional(const std::optional<T> &value) {
  return value ? json(*value) : json(nullptr);
}

json toleranceJson(const module::ToleranceOverride &t) {
  return {{"abs", optional(t.abs)},
          {"rel", optional(t.rel)},
          {"ulp", optional(t.ulp)},
          {"reduction_length", optional(t.reductionLength)}};
}

template <typename T>
void readOptional(const nlohmann::json &object, const char *key,
                  std::optional<T> &out) {
  const nlohmann::json &value = object.at(key);
  if (!value.is_null())
    out = value.get<T>();
}

module::ToleranceOverride toleranceOf(const nlohmann::json &t) {
  module::ToleranceOverride out;
  readOptional(t, "abs", out.abs);
  readOptional(t, "rel", out.rel);
  readOptional(t, "ulp", out.ulp);
  readOptional(t, "reduction_length", out.reductionLength);
  return out;
}

bench::KernelDeclared declaredOf(const nlohmann::json &d) {
  bench::KernelDeclared out;
  readOptional(d, "flops", out.flops);
  readOptional(d, "bytes_moved", out.bytesMoved);
  out.tolerance = toleranceOf(d.at("tolerance"));
  for (const nlohmann::json &o : d.at("output_tolerances"))
    out.outputTolerances.push_back({o.at("name").get<std::string>(),
                                    o.at("binding").get<uint32_t>(),
                                    toleranceOf(o.at("tolerance"))});
  for (const nlohmann::json &v : d.at("special_values")) {
    out.nanInputs |= v.get<std::string>() == "nan";
    out.infInputs |= v.get<std::string>() == "inf";
  }
  return out;
}
} // namespace

json declaredJson(const bench::KernelDeclared &declared) {
  if (declared.empty())
    return nullptr;
  json outputs = json::array();
  for (const bench::OutputTolerance &o : declared.outputTolerances)
    outputs.push_back({{"name", o.name},
                       {"binding", o.binding},
                       {"tolerance", toleranceJson(o.tolerance)}});
  json special = json::array();
  if (declared.nanInputs)
    special.push_back("nan");
  if (declared.infInputs)
    special.push_back("inf");
  return {{"flops", optional(declared.flops)},
          {"bytes_moved", optional(declared.bytesMoved)},
          {"tolerance", toleranceJson(declared.tolerance)},
          {"output_tolerances", outputs},
          {"special_values", special}};
}

StatusOr<DeclaredByObject>
readDeclaredFigures(const std::filesystem::path &buildJson) {
  KB_ASSIGN_OR_RETURN(nlohmann::json doc, readBuildJson(buildJson));
  std::string where = buildJson.string() + ": ";
  DeclaredByObject declared;
  size_t index = 0;
  try {
    for (const nlohmann::json &job : doc.at("jobs")) {
      JobDeclared entry{job.at("kernel").get<std::string>(), {}};
      auto found = job.find("declared");
      if (found != job.end() && !found->is_null())
        entry.declared = declaredOf(*found);
      for (const nlohmann::json &output : job.at("outputs"))
        declared[output.at("sha256").get<std::string>()].push_back(entry);
      ++index;
    }
  } catch (const nlohmann::json::exception &e) {
    return invalidArgument(where + "jobs[" + std::to_string(index) +
                           "].declared: " + e.what());
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
