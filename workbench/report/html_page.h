//===- workbench/report/html_page.h - What the HTML pages share -*- C++ -*-===//
//
// The pieces report.html (html_format.cpp) and tune.html (tune_html.cpp)
// share, so both pages escape, number and look the same: self-contained,
// inline CSS and SVG, no script, no fonts, no network.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_REPORT_HTML_PAGE_H_
#define KB_WORKBENCH_REPORT_HTML_PAGE_H_

#include "common/terminal_text.h"

#include <cstdio>
#include <string>

namespace kb::report {

/// |text| safe in element content and in a quoted attribute: the one HTML
/// escaper of both pages.
/// Bytes that are not UTF-8 become U+FFFD, as a browser would show them.
inline std::string htmlEscape(const std::string &text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    uint32_t cp = 0;
    size_t length = kb::decodeUtf8(text, i, cp);
    if (length != 1) {
      out += length ? text.substr(i, length) : "\xef\xbf\xbd";
      i += length ? length - 1 : 0;
      continue;
    }
    char c = text[i];
    if (c == '&')
      out += "&amp;";
    else if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '"')
      out += "&quot;";
    else if (c == '\'')
      out += "&#39;";
    else
      out += c;
  }
  return out;
}

/// An SVG coordinate: one decimal, locale-independent enough for SVG.
inline std::string svgNumber(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f", v);
  return buf;
}

/// The charts' colours: a candidate, and the reference it is measured
/// against.
inline constexpr const char *kCandidateColor = "#2563eb";
inline constexpr const char *kReferenceColor = "#9ca3af";

/// The pages' one style sheet.
inline constexpr const char *kHtmlStyle =
    R"(body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#111;background:#fff}
@media (max-width:600px){body{margin:0.8em}}
p,li,h1,h2,figcaption,summary{overflow-wrap:anywhere}
table{border-collapse:collapse;margin:1em 0;display:block;max-width:100%;overflow-x:auto}
td,th{border:1px solid #d1d5db;padding:2px 8px}
th{background:#f3f4f6}td.n{text-align:right;font-variant-numeric:tabular-nums}
td.ok{color:#166534}td.bad{color:#b91c1c;font-weight:bold}td.skip{color:#6b7280}
svg{font:11px sans-serif;display:block;margin:0.5em 0;max-width:100%;height:auto}
figure{margin:1em 0}
.legend span{display:inline-block;width:12px;height:12px;margin:0 4px 0 12px;vertical-align:middle}
pre{white-space:pre-wrap;margin:0.2em 0;font-size:12px}td.cfg{white-space:nowrap}
)";

/// From `<!DOCTYPE html>` to `<body>`: charset, no favicon request (the
/// page must not touch the network), |title| (escaped here), the style.
inline std::string htmlPageHead(const std::string &title) {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta "
         "charset=\"utf-8\">\n<meta name=\"viewport\" "
         "content=\"width=device-width,initial-scale=1\">\n<link "
         "rel=\"icon\" href=\"data:,\">\n<title>" +
         htmlEscape(title) + "</title>\n<style>" + kHtmlStyle +
         "</style>\n</head>\n<body>\n";
}

} // namespace kb::report

#endif // KB_WORKBENCH_REPORT_HTML_PAGE_H_
