//===- workbench/build/declared_figures.cpp - Declared figures in ---------===//
#include "workbench/build/declared_figures.h"

#include "workbench/build/build_resources.h"

#include "common/ustar.h"

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

json fixedJson(const std::vector<bench::FixedArray> &arrays) {
  json out = json::array();
  for (const bench::FixedArray &a : arrays)
    out.push_back({{"name", a.name},
                   {"binding", a.binding},
                   {"source", a.source},
                   {"file", a.stored},
                   {"sha256", a.sha256}});
  return out;
}

/// `fixed_inputs` / `expected_outputs` of |d| (absent before they existed),
/// their files under |buildDir|.
std::vector<bench::FixedArray> fixedOf(const nlohmann::json &d, const char *key,
                                       const std::filesystem::path &buildDir) {
  std::vector<bench::FixedArray> out;
  auto found = d.find(key);
  if (found == d.end())
    return out;
  for (const nlohmann::json &a : *found) {
    bench::FixedArray array;
    array.name = a.at("name").get<std::string>();
    array.binding = a.at("binding").get<uint32_t>();
    array.source = a.at("source").get<std::string>();
    array.stored = a.at("file").get<std::string>();
    array.file = buildDir / array.stored;
    array.sha256 = a.at("sha256").get<std::string>();
    out.push_back(std::move(array));
  }
  return out;
}

bench::KernelDeclared declaredOf(const nlohmann::json &d,
                                 const std::filesystem::path &buildDir) {
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
  out.fixedInputs = fixedOf(d, "fixed_inputs", buildDir);
  out.expectedOutputs = fixedOf(d, "expected_outputs", buildDir);
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
          {"special_values", special},
          {"fixed_inputs", fixedJson(declared.fixedInputs)},
          {"expected_outputs", fixedJson(declared.expectedOutputs)}};
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
        entry.declared = declaredOf(*found, buildJson.parent_path());
      for (const auto *arrays :
           {&entry.declared.fixedInputs, &entry.declared.expectedOutputs})
        for (const bench::FixedArray &a : *arrays)
          // A path of the build directory, as a bundle member is: a
          // build.json from elsewhere names nothing outside it.
          if (std::string why = ustar::checkMemberName(a.stored); !why.empty())
            return invalidArgument(where + "jobs[" + std::to_string(index) +
                                   "].declared: file `" + a.stored + "` " +
                                   why);
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
