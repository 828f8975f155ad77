//===- workbench/report/markdown_table.cpp - Aligned Markdown tables ------===//
#include "workbench/report/markdown_table.h"

#include <algorithm>

namespace kb::report {

namespace {
size_t displayWidth(const std::string &s) {
  size_t width = 0;
  for (unsigned char c : s)
    width += (c & 0xC0) != 0x80; // count code points, not bytes
  return width;
}

std::string pad(const std::string &s, size_t width, bool right) {
  std::string fill(width - std::min(width, displayWidth(s)), ' ');
  return right ? fill + s : s + fill;
}
} // namespace

std::string markdownCell(const std::string &text) {
  std::string out;
  for (char c : text) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n')
      out += ' ';
    else
      out += c;
  }
  return out;
}

MarkdownTable::MarkdownTable(std::vector<std::string> header,
                             std::vector<bool> rightAligned)
    : header_(std::move(header)), right_(std::move(rightAligned)) {
  right_.resize(header_.size(), false);
}

void MarkdownTable::addRow(std::vector<std::string> cells) {
  cells.resize(header_.size());
  for (std::string &c : cells)
    c = markdownCell(c);
  rows_.push_back(std::move(cells));
}

std::string MarkdownTable::render() const {
  std::vector<size_t> width(header_.size(), 3);
  for (size_t i = 0; i < header_.size(); ++i) {
    width[i] = std::max(width[i], displayWidth(header_[i]));
    for (const auto &row : rows_)
      width[i] = std::max(width[i], displayWidth(row[i]));
  }
  auto line = [&](const std::vector<std::string> &cells) {
    std::string s = "|";
    for (size_t i = 0; i < cells.size(); ++i)
      s += " " + pad(cells[i], width[i], right_[i]) + " |";
    return s + "\n";
  };
  std::string out = line(header_);
  out += "|";
  for (size_t i = 0; i < header_.size(); ++i)
    out += right_[i] ? " " + std::string(width[i] - 1, '-') + ": |"
                     : " " + std::string(width[i], '-') + " |";
  out += "\n";
  for (const auto &row : rows_)
    out += line(row);
  return out;
}

} // namespace kb::report
