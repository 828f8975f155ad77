//===- workbench/report/markdown_table.h - Aligned Markdown tables --------===//
//
// A Markdown table whose raw text is aligned by display width (UTF-8 code
// points), used by report.md and compare's summary.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_REPORT_MARKDOWN_TABLE_H_
#define KB_WORKBENCH_REPORT_MARKDOWN_TABLE_H_

#include <string>
#include <vector>

namespace kb::report {

class MarkdownTable {
public:
  /// |rightAligned[i]|: column i holds numbers.
  MarkdownTable(std::vector<std::string> header,
                std::vector<bool> rightAligned);
  void addRow(std::vector<std::string> cells);
  std::string render() const;

private:
  std::vector<std::string> header_;
  std::vector<bool> right_;
  std::vector<std::vector<std::string>> rows_;
};

/// Escapes `|` (a cell separator) in |text|.
std::string markdownCell(const std::string &text);

} // namespace kb::report

#endif // KB_WORKBENCH_REPORT_MARKDOWN_TABLE_H_
