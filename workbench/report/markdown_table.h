//===- workbench/report/markdown_table.h - Aligned Markdown tables --------===//
//
// A Markdown table whose raw text is aligned by display width (UTF-8 code
// points), used by report.md and compare's summary; every cell is escaped
// (markdownText).
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_REPORT_MARKDOWN_TABLE_H_
#define KB_WORKBENCH_REPORT_MARKDOWN_TABLE_H_

#include <string>
#include <string_view>
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

/// The one Markdown escaper, for every text that is not ours (a name, a
/// reason, a warning, a device) in report.md and compare's summary: HTML's
/// `&`, `<`, `>` as entities (no tag, no autolink), the Markdown characters
/// that start code, emphasis, links, strikethrough, math or a table cell
/// (`\ ` * [ ] | ~ $`, and `_` unless between ASCII letters or digits)
/// backslash-escaped, and line breaks and other control characters as
/// spaces (nothing can end a row or start a heading). MarkdownTable applies
/// it to every cell.
std::string markdownText(std::string_view text);

} // namespace kb::report

#endif // KB_WORKBENCH_REPORT_MARKDOWN_TABLE_H_
