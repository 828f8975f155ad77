//===- workbench/report/mismatch_maps.h - Where a wrong output is wrong ---===//
//
// A wrong variant's mismatch maps (runtime/module/mismatch_map.h) as the
// reports show them: the terminal and report.md get one line per wrong
// output with the bounding box of the wrong elements and the wrong count per
// tile (the map folded to at most 8 x 8 tiles, the busiest first);
// report.html draws each map as an SVG heat map over the output's grid, one
// cell per block of elements, coloured by the largest error in it.
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_REPORT_MISMATCH_MAPS_H_
#define KB_WORKBENCH_REPORT_MISMATCH_MAPS_H_

#include "workbench/report/bench_results.h"

#include <string>
#include <vector>

namespace kb::report {

/// "256 wrong of 16384, rows 112-127, cols 112-127 of 128 x 128; per tile
/// of 16 x 16: (7, 7) 256": the bounding box of |map|'s wrong elements and
/// the busiest tiles.
std::string whereWrong(const module::MismatchMap &map);

/// "matmul_128x128x128: candidate: output c (inputs seed +0): 256 wrong of
/// 16384, rows 112-127, cols 112-127 of 128 x 128; per tile of 16 x 16:
/// (7, 7) 256", one per wrong output, at most |maxShown| in all.
std::vector<std::string> mismatchMapLines(const BenchReport &report,
                                          size_t maxShown);

/// report.html's section of heat maps (empty when nothing is wrong); at
/// most |maxShown| maps.
std::string mismatchMapSection(const BenchReport &report, size_t maxShown);

} // namespace kb::report

#endif // KB_WORKBENCH_REPORT_MISMATCH_MAPS_H_
