//===- workbench/tune/tune_html.h - tune.html ------------------------*- --===//
//
// The page `kernel-bench tune` writes beside tune.json: the run, the top
// configurations, for every tuned parameter a chart of the best time at
// each of its values (the minimum median over the other parameters), a
// heatmap of the first two parameters, and the configurations that failed
// with their reasons. Self-contained like report.html (html_page.h): inline
// CSS and SVG, no script, no network.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_TUNE_TUNE_HTML_H_
#define KB_WORKBENCH_TUNE_TUNE_HTML_H_

#include "workbench/tune/tune_report.h"

#include <string>

namespace kb::workbench {

/// tune.html of a search of |space|; |top| rows in the table.
std::string renderTuneHtml(const TuneRunInfo &info, const TuneSpace &space,
                           const TuneSearchResult &result, size_t top);

} // namespace kb::workbench

#endif // KB_WORKBENCH_TUNE_TUNE_HTML_H_
