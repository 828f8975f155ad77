//===- workbench/report/markdown_table.cpp - Aligned Markdown tables ------===//
#include "workbench/report/markdown_table.h"

#include <algorithm>
#include <cctype>

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

namespace {
bool isWordByte(std::string_view text, size_t i) {
  if (i >= text.size())
    return false;
  // ASCII only: a non-ASCII neighbour may be Unicode whitespace (NBSP) or
  // punctuation, next to which `_` does start emphasis.
  return std::isalnum(static_cast<unsigned char>(text[i])) != 0;
}

/// A C1 control (U+0080..U+009F) or a line/paragraph separator at |i|.
size_t controlSequenceLength(std::string_view text, size_t i) {
  unsigned char c = static_cast<unsigned char>(text[i]);
  if (c < 0x20 || c == 0x7F)
    return 1;
  if (c == 0xC2 && i + 1 < text.size() &&
      (static_cast<unsigned char>(text[i + 1]) & 0xE0) == 0x80)
    return 2;
  if (text.compare(i, 3, "\u2028") == 0 || text.compare(i, 3, "\u2029") == 0)
    return 3;
  return 0;
}

/// |text| with line breaks and other control characters as spaces.
std::string withoutControls(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    size_t n = controlSequenceLength(text, i);
    out += n ? ' ' : text[i];
    i += n ? n - 1 : 0;
  }
  return out;
}
} // namespace

std::string markdownText(std::string_view raw) {
  // Controls first, so that `_` is judged by the neighbours a reader sees.
  const std::string text = withoutControls(raw);
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    switch (c) {
    case '&':
      out += "&amp;";
      continue;
    case '<':
      out += "&lt;";
      continue;
    case '>':
      out += "&gt;";
      continue;
    case '_':
      if (i > 0 && isWordByte(text, i - 1) && isWordByte(text, i + 1))
        break;
      out += '\\';
      break;
    case '\\':
    case '`':
    case '*':
    case '[':
    case ']':
    case '|':
    case '~':
    case '$':
      out += '\\';
      break;
    default:
      break;
    }
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
    c = markdownText(c);
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
