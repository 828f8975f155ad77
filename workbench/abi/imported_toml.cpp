//===- workbench/abi/imported_toml.cpp - An imported kernel as TOML -------===//
//
// The kernel.toml `kernel-bench import` writes (kernel_import.h): every
// value the binary gave, a comment where it is a guess or has a source the
// user should know, and a "TODO: ..." string where only the user knows.
// Long tables (ggml's ~30 push constants) are written one key per line.
//
//===----------------------------------------------------------------------===//
#include "workbench/abi/kernel_import.h"

#include "common/paths.h"
#include "workbench/abi/toml_text.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace kb::workbench {

namespace fs = std::filesystem;

namespace {

std::string tomlKey(const std::string &name) {
  bool bare = !name.empty();
  for (char c : name)
    bare = bare && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
                    c == '-');
  return bare ? name : tomlString(name);
}

std::string todo(const std::string &what) {
  return tomlString(std::string(kImportPlaceholder) + " " + what);
}

std::string comment(const std::string &text) {
  return text.empty() ? std::string() : "  # " + text;
}

std::string relativeText(const fs::path &path, const fs::path &directory) {
  std::error_code ec;
  fs::path rel = fs::proximate(path, directory, ec);
  return (ec ? path : rel).generic_string();
}

std::string renderHeader(const ImportedKernel &k) {
  std::string text =
      "# Written by `kernel-bench import` from what the compiled kernel "
      "declares:\n";
  for (const std::string &note : k.notes)
    text += "#   " + note + "\n";
  text += "# A string that starts with \"" + std::string(kImportPlaceholder) +
          "\" is what no binary says: `kernel-bench build`\n"
          "# refuses this kernel until each is replaced "
          "(kernels/README.md, docs/kernel-abi.md).\n";
  return text;
}

std::string renderKernel(const ImportedKernel &k, const fs::path &directory) {
  std::vector<std::string> sources, targets;
  for (const fs::path &s : k.sources)
    sources.push_back(relativeText(s, directory));
  for (const Target &t : k.targets)
    targets.push_back(t.toString());
  std::string text = "[kernel]\nname = " + tomlString(k.name) +
                     "\nsources = " + tomlList(sources) + "\n";
  if (!k.entry.empty())
    text += "entry = " + tomlString(k.entry) + "\n";
  if (!k.includeDirs.empty()) {
    std::vector<std::string> dirs;
    for (const fs::path &d : k.includeDirs)
      dirs.push_back(relativeText(d, directory));
    text += "include_dirs = " + tomlList(dirs) + "\n";
  }
  if (!k.defines.empty()) {
    text += "defines = {";
    for (size_t i = 0; i < k.defines.size(); ++i)
      text += (i ? ", " : " ") + tomlKey(k.defines[i].first) + " = " +
              tomlString(k.defines[i].second);
    text += " }\n";
  }
  return text + "# read for " + tomlList(targets) +
         "; the project's targets apply unless `targets` is set\n";
}

std::string renderSlots(const char *key, const std::vector<ImportedSlot> &slots,
                        bool bindings) {
  std::string text = std::string(key) + " = [";
  for (const ImportedSlot &s : slots) {
    text += "\n  { name = " + tomlString(s.name) +
            ", type = " + (s.type.empty() ? todo(s.todo) : tomlString(s.type));
    if (bindings)
      text += ", access = " + tomlString(s.access);
    if (s.count > 1)
      text += ", count = " + std::to_string(s.count);
    text += " }," + comment(s.comment);
  }
  return text + (slots.empty() ? "]\n" : "\n]\n");
}

std::string renderAbi(const ImportedKernel &k) {
  std::string text = "\n[abi]\nworkgroup_size = ";
  if (k.workgroupSize) {
    const auto &wg = *k.workgroupSize;
    text += "[" + std::to_string(wg[0]) + ", " + std::to_string(wg[1]) + ", " +
            std::to_string(wg[2]) + "]" + comment(k.workgroupComment) + "\n";
  } else {
    text += todo("the block size you launch, [x, y, z]; the PTX has no "
                 "__launch_bounds__, so the build cannot check it") +
            "\n";
  }
  if (k.dynamicSharedMemory)
    text += "dynamic_shared_memory = " +
            todo("the bytes of extern __shared__ memory a launch gives, an "
                 "integer or an expression such as \"4*BLOCK\"") +
            "\n";
  return text + renderSlots("bindings", k.bindings, true) +
         renderSlots("constants", k.constants, false);
}

std::string renderSpecialization(const ImportedKernel &k) {
  if (k.specialization.empty())
    return "";
  std::string text = "\n# The specialization constants' defaults: the "
                     "build uses these values.\n[specialization]\n";
  for (const ImportedSpecConstant &s : k.specialization)
    text += tomlKey(s.name) + " = " + s.defaultValue +
            comment("SpecId " + std::to_string(s.specId) + ", " + s.type +
                    (s.comment.empty() ? "" : "; " + s.comment)) +
            "\n";
  return text;
}

/// A [bench] constants value being assembled from flattened constant names
/// ("damping[2]", "step.deltaT"): a placeholder, a list or a table, in the
/// shape `kernel-bench build` reads them back (kernel_toml.cpp).
struct ValueTree {
  std::string leaf;
  std::vector<ValueTree> entries;
  std::vector<std::pair<std::string, ValueTree>> members;
};

// A push-constant block holds at most 1024 scalars (spirv_reader.cpp).
constexpr size_t kMaxImportedEntries = 1024;

ValueTree &memberOf(ValueTree &node, const std::string &key) {
  for (auto &[name, child] : node.members)
    if (name == key)
      return child;
  return node.members.emplace_back(key, ValueTree{}).second;
}

/// Walks |name| ("lights[1].pos", "step.deltaT") from |root|, making what
/// is missing, and returns the node it names.
ValueTree &walk(ValueTree &root, const std::string &name) {
  ValueTree *node = &root;
  size_t at = 0;
  while (at < name.size()) {
    size_t close = name[at] == '[' ? name.find(']', at) : std::string::npos;
    size_t index = 0;
    // A module names its members as it likes: text that is no small index
    // ("a[", "b[x]") stays part of a key, which the build then names.
    if (close != std::string::npos &&
        std::from_chars(name.data() + at + 1, name.data() + close, index).ptr ==
            name.data() + close &&
        index < kMaxImportedEntries) {
      if (node->entries.size() <= index)
        node->entries.resize(index + 1);
      node = &node->entries[index];
      at = close + 1;
      continue;
    }
    if (name[at] == '.')
      ++at;
    size_t end = std::min(name.find_first_of("[.", at + 1), name.size());
    node = &memberOf(*node, name.substr(at, end - at));
    at = end;
  }
  return *node;
}

std::string renderValue(const ValueTree &node) {
  if (!node.entries.empty()) {
    std::string text = "[";
    for (size_t i = 0; i < node.entries.size(); ++i)
      text += (i ? ", " : "") + renderValue(node.entries[i]);
    return text + "]";
  }
  if (!node.members.empty()) {
    std::string text = "{";
    for (size_t i = 0; i < node.members.size(); ++i)
      text += (i ? ", " : " ") + tomlKey(node.members[i].first) + " = " +
              renderValue(node.members[i].second);
    return text + " }";
  }
  return node.leaf;
}

/// One line per top-level constant: a scalar's placeholder, an array's list
/// of them, a struct's inline table.
std::string renderConstantValues(const std::vector<ImportedSlot> &constants) {
  ValueTree root;
  for (const ImportedSlot &c : constants) {
    ValueTree &node = c.name.empty() ? memberOf(root, "") : walk(root, c.name);
    auto placeholder = [&](const std::string &name) {
      return todo("the value of `" + name + "` the benchmark passes");
    };
    if (c.count <= 1) {
      node.leaf = placeholder(c.name);
      continue;
    }
    for (uint32_t k = 0; k < c.count; ++k)
      node.entries.push_back(
          {placeholder(c.name + "[" + std::to_string(k) + "]"), {}, {}});
  }
  std::string text;
  for (const auto &[key, value] : root.members)
    text += tomlKey(key) + " = " + renderValue(value) + "\n";
  return text;
}

std::string renderBench(const ImportedKernel &k) {
  std::string text =
      "\n# A standalone benchmark of the kernel. To replace an executable of "
      "the\n# project's program instead, delete [bench] and set [kernel] "
      "substitutes.\n[bench]\nworkload = " +
      todo("the problem size: 1 to 3 integers or [bench] constant names, "
           "e.g. [\"n\"]; the workgroup count is the workload divided by "
           "the workgroup size") +
      "\n# reference = \"naive.comp\"  # what the kernel is checked against: "
      "a naive twin\n# (.cu/.comp with the same interface), a C/C++ function "
      "run on the CPU (\"ref.cpp\"),\n# expected outputs in .npy files or an "
      "MLIR kb.executable (kernels/README.md)\n";
  if (!k.constants.empty())
    text += "\n[bench.constants]\n" + renderConstantValues(k.constants);
  if (!k.bindings.empty()) {
    text += "\n[bench.elements]\n";
    for (const ImportedSlot &b : k.bindings)
      text += tomlKey(b.name) + " = " +
              todo("the element count of `" + b.name +
                   "`: an integer, or an expression of integers and integer "
                   "[bench] constants such as \"n\" or \"M*K\"") +
              "\n";
  }
  return text;
}

} // namespace

std::string renderImportedToml(const ImportedKernel &kernel,
                               const fs::path &directory) {
  return renderHeader(kernel) + renderKernel(kernel, directory) +
         renderAbi(kernel) + renderSpecialization(kernel) + renderBench(kernel);
}

} // namespace kb::workbench
