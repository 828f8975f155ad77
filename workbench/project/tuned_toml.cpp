//===- workbench/project/tuned_toml.cpp - tuned.toml, what `tune` chose ---===//
#include "workbench/project/tuned_toml.h"

#include "workbench/project/toml_file.h"

#include "common/file_util.h"
#include "common/target.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace kb::workbench {

namespace {

/// TOML basic string contents.
std::string quoted(const std::string &text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
      continue;
    }
    out += c;
  }
  return out + "\"";
}

/// The entry's values, with the [tune] defaults for the names it leaves
/// out, must satisfy every constraint `tune` searches under; an entry that
/// leaves a name with no default unset cannot be checked.
StatusOr<TunedEntry> checkConstraints(const TomlFile &file,
                                      const toml::table &values,
                                      const TuneSpace &space,
                                      TunedEntry entry) {
  TuneValues all = entry.values;
  for (const TuneParameter &p : space.parameters)
    if (!all.count(p.name)) {
      if (!p.defaultValue)
        return entry;
      all[p.name] = *p.defaultValue;
    }
  KB_ASSIGN_OR_RETURN(const TuneConstraint *broken,
                      firstBrokenConstraint(space, all));
  if (broken)
    return invalidArgument(file.where(values.source()) + ": " +
                           configurationKey(all) + " breaks the constraint `" +
                           broken->text + "` (" + broken->where +
                           "), under which `tune` searches: fix the values, "
                           "or remove the entry");
  return entry;
}

StatusOr<TunedEntry> readEntry(const TomlFile &file, const toml::table &table,
                               const TuneSpace &space) {
  KB_RETURN_IF_ERROR(
      file.checkKeys(table, "[[best]]",
                     {"device", "backend", "target", "median_ns", "values"}));
  TunedEntry entry;
  entry.where = file.where(table.source());
  KB_ASSIGN_OR_RETURN(auto device, file.string(table, "device"));
  KB_ASSIGN_OR_RETURN(auto backend, file.string(table, "backend"));
  KB_ASSIGN_OR_RETURN(auto target, file.string(table, "target"));
  if (!backend)
    return invalidArgument(entry.where +
                           ": [[best]] has no `backend`: expected backend = "
                           "\"cuda\" or \"vulkan\" (which source it sets)");
  if (*backend != "cuda" && *backend != "vulkan")
    return file.expected(*table.get("backend"), "backend",
                         "\"cuda\" or \"vulkan\"");
  entry.device = device.value_or("");
  entry.backend = *backend;
  entry.target = target.value_or("");
  if (!entry.target.empty()) {
    StatusOr<Target> parsed = Target::parse(entry.target);
    if (!parsed.ok() || parsed->isCuda() != (entry.backend == "cuda"))
      return file.expected(
          *table.get("target"), "target",
          "a " + entry.backend + " target such as " +
              (entry.backend == "cuda" ? "\"cuda:sm_90\"" : "\"vulkan:1.2\"") +
              ", the backend's");
  }
  if (const toml::node *median = table.get("median_ns")) {
    entry.medianNs = median->value<double>();
    if (!entry.medianNs || !(*entry.medianNs > 0))
      return file.expected(*median, "median_ns",
                           "a positive number of nanoseconds");
  }
  if (!table.get("values"))
    return invalidArgument(entry.where +
                           ": [[best]] has no `values`: expected values = { "
                           "NAME = integer, ... } (the tuned names it sets)");
  KB_ASSIGN_OR_RETURN(const toml::table *values, file.table(table, "values"));
  for (auto &&[key, node] : *values) {
    std::string name(key.str());
    if (!space.find(name)) {
      std::string tuned;
      for (const TuneParameter &p : space.parameters)
        tuned += (tuned.empty() ? "" : ", ") + p.name;
      return file.error(node,
                        "`" + name +
                            "` is not tuned by the kernel's [tune] "
                            "(tuned: " +
                            tuned +
                            "); tuned.toml sets tuned names only: "
                            "remove it (or the entry; `kernel-bench tune` "
                            "writes it again)");
    }
    const auto *i = node.as_integer();
    if (!i)
      return file.expected(node, "values." + name, "an integer");
    const TuneParameter &p = *space.find(name);
    if (std::find(p.values.begin(), p.values.end(), i->get()) ==
        p.values.end()) {
      std::string values;
      for (int64_t v : p.values)
        values += (values.empty() ? "" : ", ") + std::to_string(v);
      // A value outside the space was never measured (and may not build):
      // the space changed since `tune` ran, or the file was edited.
      return file.error(node, "`" + name + " = " + std::to_string(i->get()) +
                                  "` is not one of the values [tune] gives `" +
                                  name + "` (" + values + "; " + p.where +
                                  "): add the value to [tune], or remove the "
                                  "entry (`kernel-bench tune` writes it "
                                  "again)");
    }
    entry.values[name] = i->get();
  }
  return checkConstraints(file, *values, space, entry);
}

} // namespace

StatusOr<std::vector<TunedEntry>>
readTunedToml(const std::filesystem::path &path, const TuneSpace &space) {
  TomlFile file(path);
  toml::table root;
  KB_RETURN_IF_ERROR(file.load(root));
  KB_RETURN_IF_ERROR(file.checkKeys(root, "tuned.toml", {"best"}));
  std::vector<TunedEntry> entries;
  const toml::node *best = root.get("best");
  if (!best)
    return entries;
  const toml::array *array = best->as_array();
  if (!array)
    return file.expected(*best, "best", "an array of tables ([[best]])");
  for (const toml::node &item : *array) {
    const toml::table *table = item.as_table();
    if (!table)
      return file.expected(item, "best", "a table ([[best]])");
    KB_ASSIGN_OR_RETURN(TunedEntry entry, readEntry(file, *table, space));
    for (const TunedEntry &earlier : entries)
      if (earlier.device == entry.device && earlier.backend == entry.backend)
        return invalidArgument(
            entry.where + ": a second entry for " + entry.backend +
            (entry.device.empty() ? " without a device"
                                  : " on `" + entry.device + "`") +
            " (the first: " + earlier.where + "); keep one");
    entries.push_back(std::move(entry));
  }
  return entries;
}

Status writeTunedToml(const std::filesystem::path &path,
                      const std::vector<TunedEntry> &entries) {
  std::ostringstream out;
  out << "# Written by `kernel-bench tune`: the best configuration per device "
         "model.\n"
         "# `kernel-bench build` builds each source (cuda: the .cu, vulkan: "
         "the GLSL\n"
         "# source) with the [tune] defaults, or an entry's without a device, "
         "and once\n"
         "# more per device model with that model's values; the runtime runs "
         "the one\n"
         "# for its device. Edit or delete freely (comments are not kept).\n";
  for (const TunedEntry &e : entries) {
    out << "\n[[best]]\n";
    if (!e.device.empty())
      out << "device = " << quoted(e.device) << "\n";
    out << "backend = " << quoted(e.backend) << "\n";
    if (!e.target.empty())
      out << "target = " << quoted(e.target) << "\n";
    if (e.medianNs) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.1f", *e.medianNs);
      out << "median_ns = " << buf << "\n";
    }
    out << "values = { ";
    bool first = true;
    for (const auto &[name, value] : e.values) {
      out << (first ? "" : ", ") << name << " = " << value;
      first = false;
    }
    out << " }\n";
  }
  return writeFileAtomic(path, out.str());
}

} // namespace kb::workbench
