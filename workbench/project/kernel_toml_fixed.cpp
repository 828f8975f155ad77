//===- workbench/project/kernel_toml_fixed.cpp - Fixed inputs, outputs ----===//
#include "workbench/project/kernel_toml_fixed.h"

#include "common/file_util.h"
#include "common/npy.h"
#include "common/paths.h"
#include "common/sha256.h"

#include <algorithm>

namespace fs = std::filesystem;

namespace kb::workbench {

namespace {

/// Reads the .npy |value| names for binding |index| and checks it fits.
StatusOr<bench::FixedArray>
readArray(const TomlFile &file, const toml::node &value, const std::string &key,
          const KernelAbi &abi, size_t index, uint64_t count) {
  const auto *text = value.as_string();
  if (!text || text->get().empty())
    return file.expected(value, key, "a .npy file name (a string)");
  const Binding &b = abi.bindings[index];
  fs::path path = (file.dir() / text->get()).lexically_normal();
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    return file.error(value, "`" + key + "`: file `" + text->get() +
                                 "` not found (looked for " +
                                 displayPath(path) +
                                 "); write it with numpy.save");
  KB_ASSIGN_OR_RETURN(std::string bytes, kb::readFile(path));
  auto array =
      npy::parseFor(bytes, displayPath(path), b.elementType, count,
                    "binding " + std::to_string(index) + " `" + b.name + "`");
  if (!array.ok())
    return file.error(value, "`" + key + "`: " + array.status().message());
  bench::FixedArray out;
  out.name = b.name;
  out.binding = static_cast<uint32_t>(index);
  out.source = text->get();
  out.file = path;
  out.sha256 = sha256Hex(bytes);
  return out;
}

} // namespace

StatusOr<bench::FixedArray> readFixedInput(const TomlFile &file,
                                           const toml::node &value,
                                           const KernelAbi &abi, size_t index,
                                           uint64_t count) {
  return readArray(file, value, "init." + abi.bindings[index].name + ".file",
                   abi, index, count);
}

Status readExpectedOutputs(const TomlFile &file, const toml::table &outputs,
                           const KernelAbi &abi, const DeclaredBench &bench,
                           bench::KernelDeclared &declared) {
  std::vector<std::string> names;
  for (const Binding &b : abi.bindings)
    names.push_back(b.name);
  KB_RETURN_IF_ERROR(
      file.checkKeys(outputs, "[bench] reference.outputs", names));
  if (outputs.empty())
    return file.error(outputs, "`reference.outputs` names no output: give "
                               "each binding the kernel writes its expected "
                               ".npy, e.g. `{ y = \"y.npy\" }`");
  for (size_t i = 0; i < abi.bindings.size(); ++i) {
    const Binding &b = abi.bindings[i];
    const toml::node *node = b.name.empty() ? nullptr : outputs.get(b.name);
    if (!node)
      continue;
    if (b.access == Access::ReadOnly)
      return file.error(*node, "`reference.outputs." + b.name + "`: binding " +
                                   std::to_string(i) + " `" + b.name +
                                   "` is readonly: the kernel writes nothing "
                                   "there to compare; name a binding it "
                                   "writes");
    KB_ASSIGN_OR_RETURN(bench::FixedArray array,
                        readArray(file, *node, "reference.outputs." + b.name,
                                  abi, i, bench.elementCounts[i]));
    declared.expectedOutputs.push_back(std::move(array));
  }
  for (size_t i = 0; i < abi.bindings.size(); ++i) {
    const Binding &b = abi.bindings[i];
    bool fixed =
        std::any_of(declared.fixedInputs.begin(), declared.fixedInputs.end(),
                    [&](const bench::FixedArray &a) { return a.binding == i; });
    if (b.access != Access::WriteOnly && !fixed)
      return file.error(outputs,
                        "`reference.outputs`: binding " + std::to_string(i) +
                            " `" + b.name +
                            "` is read by the kernel but its input is drawn "
                            "here, so no file can hold the outputs it "
                            "gives; fix it with `init = { " +
                            b.name + " = { file = \"" + b.name + ".npy\" } }`");
  }
  return okStatus();
}

std::string storedFixedPath(const std::string &kernel, bool expected,
                            const bench::FixedArray &array) {
  return "standalone/" + kernel + "/data/" +
         (expected ? "expected/" : "init/") + array.name + ".npy";
}

} // namespace kb::workbench
