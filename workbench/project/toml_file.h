//===- workbench/project/toml_file.h - Located reading of one TOML file ---===//
//
// The reading half shared by the two schemas (kernel_toml.h and
// workbench_toml.h): typed getters for optional keys, unknown-key checks
// with a spelling suggestion, and errors that start with `file:line:col:`
// (so editors can jump to them) and say "`key`: expected X, found Y".
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_PROJECT_TOML_FILE_H_
#define KB_WORKBENCH_PROJECT_TOML_FILE_H_

#include "common/status.h"
#include "common/target.h"

#include "workbench/project/toml.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kb::workbench {

/// Reads one TOML file and produces located errors for it.
class TomlFile {
public:
  explicit TomlFile(std::filesystem::path path) : path_(std::move(path)) {}

  const std::filesystem::path &path() const { return path_; }
  /// The directory relative paths in the file are resolved against.
  std::filesystem::path dir() const { return path_.parent_path(); }

  /// Parses the file into |out|: NotFound when unreadable, InvalidArgument
  /// (located) when malformed.
  Status load(toml::table &out);

  /// `file:line:col` of |region| (`file` alone when it has no line).
  std::string where(const toml::source_region &region) const;

  /// |message| located at |node|.
  Status error(const toml::node &node, const std::string &message) const;

  /// "expected X, found Y" at |node| for key |key|.
  Status expected(const toml::node &node, const std::string &key,
                  const std::string &what) const;

  /// Every key of |table| must be in |valid|.
  Status checkKeys(const toml::table &table, const std::string &tableName,
                   const std::vector<std::string> &valid) const;

  /// The table at |key| of |parent|, or nullptr when absent.
  StatusOr<const toml::table *> table(const toml::table &parent,
                                      const std::string &key) const;

  StatusOr<std::optional<std::string>> string(const toml::table &table,
                                              const std::string &key) const;

  StatusOr<std::optional<bool>> boolean(const toml::table &table,
                                        const std::string &key) const;

  /// An integer in [min, max]; |what| describes the valid values.
  StatusOr<std::optional<int64_t>> integer(const toml::table &table,
                                           const std::string &key, int64_t min,
                                           int64_t max,
                                           const std::string &what) const;

  /// An array of strings; each element is returned with its node for
  /// located errors about individual elements.
  StatusOr<std::vector<std::pair<std::string, const toml::node *>>>
  strings(const toml::table &table, const std::string &key) const;

  /// `targets = [...]`, each parsed by Target::parse, duplicates dropped.
  StatusOr<std::optional<std::vector<Target>>>
  targets(const toml::table &table) const;

private:
  std::filesystem::path path_;
};

} // namespace kb::workbench

#endif // KB_WORKBENCH_PROJECT_TOML_FILE_H_
