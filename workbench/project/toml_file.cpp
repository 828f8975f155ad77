//===- workbench/project/toml_file.cpp - Located reading of one TOML file -===//
#include "workbench/project/toml_file.h"

#include "workbench/support/spelling.h"

#include "common/file_util.h"
#include "common/paths.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <sstream>

namespace fs = std::filesystem;

namespace kb::workbench {

namespace {

const char *typeName(const toml::node &node) {
  switch (node.type()) {
  case toml::node_type::table:
    return "a table";
  case toml::node_type::array:
    return "an array";
  case toml::node_type::string:
    return "a string";
  case toml::node_type::integer:
    return "an integer";
  case toml::node_type::floating_point:
    return "a float";
  case toml::node_type::boolean:
    return "a boolean";
  case toml::node_type::date:
    return "a date";
  case toml::node_type::time:
    return "a time";
  case toml::node_type::date_time:
    return "a date-time";
  case toml::node_type::none:
    break;
  }
  return "nothing";
}

/// Describes a found value for "expected X, found Y" messages: the type and,
/// for short scalars, the value itself.
std::string describe(const toml::node &node) {
  std::ostringstream out;
  out << typeName(node);
  if (const auto *s = node.as_string())
    out << " \"" << s->get() << "\"";
  else if (const auto *i = node.as_integer())
    out << " (" << i->get() << ")";
  else if (const auto *a = node.as_array())
    out << " of " << a->size() << " element" << (a->size() == 1 ? "" : "s");
  return out.str();
}

std::string joinQuoted(const std::vector<std::string> &words) {
  std::string out;
  for (const std::string &w : words) {
    if (!out.empty())
      out += ", ";
    out += "`" + w + "`";
  }
  return out;
}

/// Every string under |node| that starts with "TODO:", the placeholder
/// `kernel-bench import` writes where only the user knows the value, as
/// `where: key: text` lines.
using Placeholder = std::pair<toml::source_position, std::string>;

void findPlaceholders(const TomlFile &file, const toml::node &node,
                      const std::string &key, std::vector<Placeholder> &out) {
  if (const auto *s = node.as_string()) {
    if (s->get().rfind("TODO:", 0) == 0)
      out.emplace_back(node.source().begin, file.where(node.source()) + ": `" +
                                                key + "`: " + s->get());
  } else if (const auto *t = node.as_table()) {
    for (auto &&[k, v] : *t)
      findPlaceholders(file, v,
                       key.empty() ? std::string(k.str())
                                   : key + "." + std::string(k.str()),
                       out);
  } else if (const auto *a = node.as_array()) {
    for (size_t i = 0; i < a->size(); ++i)
      findPlaceholders(file, *a->get(i), key + "[" + std::to_string(i) + "]",
                       out);
  }
}

} // namespace

Status TomlFile::load(toml::table &out) {
  StatusOr<std::string> text = readFile(path_, kConfigInput);
  if (!text.ok())
    return text.status();
  try {
    out = toml::parse(*text, displayPath(path_));
  } catch (const toml::parse_error &e) {
    return invalidArgument(where(e.source()) +
                           ": malformed TOML: " + std::string(e.description()));
  }
  std::vector<Placeholder> placeholders;
  findPlaceholders(*this, out, "", placeholders);
  if (placeholders.empty())
    return okStatus();
  // Tables iterate by key; the user reads the file top to bottom.
  std::sort(placeholders.begin(), placeholders.end(),
            [](const Placeholder &a, const Placeholder &b) {
              return std::make_pair(a.first.line, a.first.column) <
                     std::make_pair(b.first.line, b.first.column);
            });
  std::string list;
  for (const Placeholder &p : placeholders)
    list += "\n  " + p.second;
  return invalidArgument(
      displayPath(path_) + ": " + std::to_string(placeholders.size()) +
      " value" + (placeholders.size() == 1 ? " is" : "s are") +
      " still a \"TODO:\" placeholder (as `kernel-bench import` writes "
      "them); replace each with what it asks for:" +
      list);
}

std::string TomlFile::where(const toml::source_region &region) const {
  std::string out = displayPath(path_);
  if (region.begin.line != 0)
    out += ":" + std::to_string(region.begin.line) + ":" +
           std::to_string(region.begin.column);
  return out;
}

Status TomlFile::error(const toml::node &node,
                       const std::string &message) const {
  return invalidArgument(where(node.source()) + ": " + message);
}

Status TomlFile::expected(const toml::node &node, const std::string &key,
                          const std::string &what) const {
  return error(node,
               "`" + key + "`: expected " + what + ", found " + describe(node));
}

Status TomlFile::checkKeys(const toml::table &table,
                           const std::string &tableName,
                           const std::vector<std::string> &valid) const {
  for (auto &&[key, node] : table) {
    std::string k(key.str());
    if (std::find(valid.begin(), valid.end(), k) != valid.end())
      continue;
    std::string message =
        where(key.source()) + ": unknown key `" + k + "` in " + tableName;
    if (auto near = nearestSpelling(k, valid))
      message += "; did you mean `" + *near + "`?";
    else
      message += "; valid keys: " + joinQuoted(valid);
    return invalidArgument(message);
  }
  return okStatus();
}

StatusOr<const toml::table *> TomlFile::table(const toml::table &parent,
                                              const std::string &key) const {
  const toml::node *node = parent.get(key);
  if (!node)
    return static_cast<const toml::table *>(nullptr);
  if (!node->is_table())
    return expected(*node, key, "a table");
  return node->as_table();
}

StatusOr<std::optional<std::string>>
TomlFile::string(const toml::table &table, const std::string &key) const {
  const toml::node *node = table.get(key);
  if (!node)
    return std::optional<std::string>();
  if (!node->is_string())
    return expected(*node, key, "a string");
  return std::optional<std::string>(node->as_string()->get());
}

StatusOr<std::optional<bool>> TomlFile::boolean(const toml::table &table,
                                                const std::string &key) const {
  const toml::node *node = table.get(key);
  if (!node)
    return std::optional<bool>();
  if (!node->is_boolean())
    return expected(*node, key, "true or false");
  return std::optional<bool>(node->as_boolean()->get());
}

StatusOr<std::optional<int64_t>>
TomlFile::integer(const toml::table &table, const std::string &key, int64_t min,
                  int64_t max, const std::string &what) const {
  const toml::node *node = table.get(key);
  if (!node)
    return std::optional<int64_t>();
  if (!node->is_integer() || node->as_integer()->get() < min ||
      node->as_integer()->get() > max)
    return expected(*node, key, what);
  return std::optional<int64_t>(node->as_integer()->get());
}

StatusOr<std::vector<std::pair<std::string, const toml::node *>>>
TomlFile::strings(const toml::table &table, const std::string &key) const {
  std::vector<std::pair<std::string, const toml::node *>> out;
  const toml::node *node = table.get(key);
  if (!node)
    return out;
  const toml::array *array = node->as_array();
  if (!array)
    return expected(*node, key, "an array of strings");
  for (size_t i = 0; i < array->size(); ++i) {
    const toml::node &element = *array->get(i);
    if (!element.is_string())
      return expected(element, key + "[" + std::to_string(i) + "]", "a string");
    out.emplace_back(element.as_string()->get(), &element);
  }
  return out;
}

StatusOr<std::optional<std::vector<Target>>>
TomlFile::targets(const toml::table &table) const {
  if (!table.get("targets"))
    return std::optional<std::vector<Target>>();
  KB_ASSIGN_OR_RETURN(auto texts, strings(table, "targets"));
  std::vector<Target> out;
  for (size_t i = 0; i < texts.size(); ++i) {
    StatusOr<Target> target = Target::parse(texts[i].first);
    if (!target.ok())
      return error(*texts[i].second, "`targets[" + std::to_string(i) +
                                         "]`: " + target.status().message());
    if (std::find(out.begin(), out.end(), *target) == out.end())
      out.push_back(*target);
  }
  return std::optional<std::vector<Target>>(std::move(out));
}

} // namespace kb::workbench
