//===- workbench/report/report_hostile_test.cpp - Writers vs hostile text -===//
//
// Every text field of a report that is not ours (benchmark, variant and
// device names, reasons, warnings) is filled with random strings drawn
// from the characters each format treats specially (formula starters,
// Markdown and HTML punctuation, control characters, U+FFFE, bidi
// overrides, invalid UTF-8), and every writer's output is checked in
// process, strictly:
//   report.csv   parses as RFC 4180 with the header's column count, and no
//                text cell starts with = + - @ TAB CR unless it is a number;
//   report.md,   no control character, no HTML (`<`, `>`, a bare `&`), no
//   compare's    unescaped code, link, math or strikethrough character, no
//   summary      heading but ours, every table row with the header's cells;
//   junit.xml    well-formed XML 1.0 with the same element structure as the
//                report with plain names;
//   report.html  the same tags, in the same order, as with plain names.
// Seeded and deterministic; a few thousand cases in about a second.
//
//===----------------------------------------------------------------------===//
#include "workbench/report/compare.h"
#include "workbench/report/report_writer.h"
#include "workbench/report/synthetic_report.h"

#include "common/terminal_text.h"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <set>
#include <random>
#include <string_view>

namespace kb::report {
namespace {

std::string hostile(std::mt19937 &rng) {
  std::string s;
  for (size_t n = rng() % 7; n > 0; --n)
    s += hostileTextPieces()[rng() % hostileTextPieces().size()];
  return s;
}

/// |report| with every foreign text field made by |make|; names keep a
/// unique suffix (compare pairs rows by name).
template <typename Make> BenchReport withTexts(BenchReport report, Make make) {
  report.device.name = make();
  report.environment.warnings = {make(), make()};
  report.settings.quickReason = make();
  for (size_t i = 0; i < report.benchmarks.size(); ++i) {
    Benchmark &b = report.benchmarks[i];
    b.name = make() + "#" + std::to_string(i);
    b.reason = b.reason.empty() ? "" : make() + "r";
    for (Variant &v : b.variants)
      if (v.name != "reference")
        v.name = make() + "v";
  }
  return report;
}

// ---- CSV --------------------------------------------------------------

std::vector<std::vector<std::string>> parseCsv(std::string_view text) {
  std::vector<std::vector<std::string>> rows(1, std::vector<std::string>(1));
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    std::string &cell = rows.back().back();
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"')
        cell += text[++i];
      else if (c == '"')
        quoted = false;
      else
        cell += c;
    } else if (c == '"' && cell.empty()) {
      quoted = true;
    } else if (c == ',') {
      rows.back().emplace_back();
    } else if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
      ++i;
      rows.emplace_back(1);
    } else {
      cell += c;
    }
  }
  EXPECT_FALSE(quoted) << "unterminated quoted field";
  rows.pop_back(); // after the last CRLF
  return rows;
}

bool isNumber(const std::string &cell) {
  char *end = nullptr;
  std::strtod(cell.c_str(), &end);
  return !cell.empty() && end == cell.c_str() + cell.size();
}

void checkCsv(const std::string &csv) {
  auto rows = parseCsv(csv);
  ASSERT_FALSE(rows.empty());
  for (const auto &row : rows) {
    EXPECT_EQ(row.size(), rows.front().size()) << csv;
    for (const std::string &cell : row)
      if (!cell.empty() &&
          std::string_view("=+-@\t\r").find(cell[0]) != std::string_view::npos)
        EXPECT_TRUE(isNumber(cell)) << "formula cell: " << cell;
  }
}

// ---- Markdown ---------------------------------------------------------

/// |c| at |i| is inside a word (an intraword `_` is literal Markdown).
bool intraword(std::string_view line, size_t i) {
  auto word = [&](size_t k) {
    return std::isalnum(static_cast<unsigned char>(line[k])) != 0;
  };
  return i > 0 && i + 1 < line.size() && word(i - 1) && word(i + 1);
}

/// The unescaped `|` of a table line, and a failure for any character that
/// could start markup we did not write.
size_t checkMarkdownLine(std::string_view line) {
  size_t pipes = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(line[i]);
    EXPECT_TRUE(c >= 0x20 && c != 0x7F) << "control character in: " << line;
    EXPECT_FALSE(c == 0xC2 && i + 1 < line.size() &&
                 (static_cast<unsigned char>(line[i + 1]) & 0xE0) == 0x80)
        << "C1 control in: " << line;
    if (c == '\\') {
      ++i;
      continue;
    }
    EXPECT_EQ(std::string_view("<>`[]~$").find(char(c)), std::string_view::npos)
        << "unescaped " << char(c) << " in: " << line;
    if (c == '&')
      EXPECT_TRUE(line.compare(i, 5, "&amp;") == 0 ||
                  line.compare(i, 4, "&lt;") == 0 ||
                  line.compare(i, 4, "&gt;") == 0)
          << "bare & in: " << line;
    if (c == '_')
      EXPECT_TRUE(intraword(line, i)) << "emphasis _ in: " << line;
    pipes += c == '|';
  }
  return pipes;
}

void checkMarkdown(const std::string &md) {
  size_t tablePipes = 0;
  size_t start = 0;
  while (start < md.size()) {
    size_t end = std::min(md.find('\n', start), md.size());
    std::string_view line(md.data() + start, end - start);
    start = end + 1;
    size_t pipes = checkMarkdownLine(line);
    if (!line.empty() && line[0] == '#')
      EXPECT_EQ(line.rfind("## kernel-bench", 0), 0u) << line;
    bool row = !line.empty() && line[0] == '|';
    if (row && tablePipes)
      EXPECT_EQ(pipes, tablePipes) << "a row with other cells: " << line;
    tablePipes = row ? (tablePipes ? tablePipes : pipes) : 0;
  }
}

// ---- XML and HTML -----------------------------------------------------

bool isXmlChar(uint32_t cp) {
  return cp == 0x9 || cp == 0xA || cp == 0xD || (cp >= 0x20 && cp <= 0xD7FF) ||
         (cp >= 0xE000 && cp <= 0xFFFD) || (cp >= 0x10000 && cp <= 0x10FFFF);
}

/// A reference at |i| (`&...;`) of the kinds XML knows (HTML: any named
/// one); its length or 0.
size_t referenceLength(std::string_view text, size_t i, bool xmlRules) {
  if (!xmlRules) {
    size_t end = i + 1;
    while (end < text.size() &&
           (std::isalnum(static_cast<unsigned char>(text[end])) ||
            text[end] == '#'))
      ++end;
    return end < text.size() && text[end] == ';' && end > i + 1 ? end - i + 1
                                                                : 0;
  }
  for (const char *e : {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;", "&#"}) {
    if (text.compare(i, std::strlen(e), e) != 0)
      continue;
    size_t end = text.find(';', i);
    return end == std::string_view::npos ? 0 : end - i + 1;
  }
  return 0;
}

/// The element structure of |doc| ("<a><b/></a>" -> "a b /b /a"), failing
/// on anything a strict XML parser refuses: invalid UTF-8 or characters,
/// a raw `<` or bare `&` in text or attribute values, mismatched tags.
std::string tagStructure(std::string_view doc, bool xmlRules) {
  std::string structure;
  std::vector<std::string> open;
  for (size_t i = 0; i < doc.size();) {
    uint32_t cp = 0;
    size_t n = decodeUtf8(doc, i, cp);
    EXPECT_TRUE(n > 0 && (!xmlRules || isXmlChar(cp)))
        << "not an XML character at byte " << i;
    if (n == 0)
      return structure;
    if (cp == '&') {
      EXPECT_GT(referenceLength(doc, i, xmlRules), 0u)
          << "bare & at byte " << i;
    } else if (cp == '<') {
      size_t close = i + 1;
      for (char quote = 0; close < doc.size(); ++close) {
        char c = doc[close];
        if (quote && c == quote)
          quote = 0;
        else if (!quote && (c == '"' || c == '\''))
          quote = c;
        else if (quote && c == '<')
          ADD_FAILURE() << "< in an attribute value at byte " << close;
        else if (!quote && c == '>')
          break;
      }
      std::string_view tag = doc.substr(i + 1, close - i - 1);
      if (tag.empty() || close >= doc.size()) {
        ADD_FAILURE() << "a < that starts no tag at byte " << i;
        return structure;
      }
      std::string name(tag.substr(0, tag.find_first_of(" \n\t/>")));
      if (tag[0] == '/') {
        name = std::string(tag.substr(1));
        EXPECT_TRUE(!open.empty() && open.back() == name)
            << "</" << name << "> closes " << (open.empty() ? "" : open.back());
        if (!open.empty())
          open.pop_back();
        structure += " /" + name;
      } else if (tag[0] != '?' && tag[0] != '!') {
        structure += " " + name;
        static const std::set<std::string> kVoid = {"meta", "link", "br",
                                                    "hr",   "img",  "input"};
        if (tag.back() != '/' && (xmlRules || !kVoid.count(name)))
          open.push_back(name);
      }
      n = close - i + 1;
    }
    i += n;
  }
  EXPECT_TRUE(open.empty()) << "unclosed <" << open.back() << ">";
  return structure;
}

// ---- the run ----------------------------------------------------------

std::string render(const BenchReport &report, ReportFormat format) {
  StatusOr<std::string> text = renderReport(report, format);
  EXPECT_TRUE(text.ok()) << text.status().message();
  return text.ok() ? *text : "";
}

TEST(ReportHostileTest, WritersNeutraliseArbitraryText) {
  std::mt19937 rng(20240601);
  const BenchReport base = makeMixedReport(12);
  int counter = 0;
  const BenchReport plain =
      withTexts(base, [&] { return "name" + std::to_string(counter++); });
  const std::string plainXml =
      tagStructure(render(plain, ReportFormat::JUnit), true);
  const std::string plainHtml =
      tagStructure(render(plain, ReportFormat::Html), false);
  for (int round = 0; round < 400 && !HasFailure(); ++round) {
    BenchReport report = withTexts(base, [&] { return hostile(rng); });
    checkCsv(render(report, ReportFormat::Csv));
    checkMarkdown(render(report, ReportFormat::Markdown));
    EXPECT_EQ(tagStructure(render(report, ReportFormat::JUnit), true),
              plainXml);
    EXPECT_EQ(tagStructure(render(report, ReportFormat::Html), false),
              plainHtml);
    StatusOr<Comparison> c = compareReports({report}, report, {});
    ASSERT_TRUE(c.ok()) << c.status().message();
    checkMarkdown(renderComparisonMarkdown(*c));
  }
}

/// The checks themselves catch what they are for: raw writers' output
/// fails them.
TEST(ReportHostileTest, TheChecksCatchRawText) {
  EXPECT_NONFATAL_FAILURE(checkMarkdown("## kernel-bench\n## x\n"),
                          "kernel-bench");
  EXPECT_NONFATAL_FAILURE(checkMarkdown("<img src=x"), "unescaped <");
  EXPECT_NONFATAL_FAILURE(checkMarkdown("| a | b |\n| x | y | z |\n"),
                          "a row with other cells");
  EXPECT_NONFATAL_FAILURE(checkCsv("a,b\r\n=1+1,x\r\n"), "formula cell");
  EXPECT_NONFATAL_FAILURE(tagStructure("<a>\xef\xbf\xbe</a>", true),
                          "not an XML character");
  EXPECT_NONFATAL_FAILURE(tagStructure("<a>&b</a>", true), "bare &");
}

} // namespace
} // namespace kb::report
