//===- workbench/bench/dispatch_figures.h - [roofline] per dispatch -------===//
//
// A kernel that substitutes a program's dispatch declares its FLOPs over
// its own constants (`flops = "2*M*N*K"`): the program sets M, N and K, so
// the build records the expression (bench::KernelDeclared::flopsExpression)
// and the bench worker evaluates it here with the values the dispatch packs
// for the export's constants and the dispatch's workload (`workload_x` ...).
//
//===----------------------------------------------------------------------===//
#ifndef KB_WORKBENCH_BENCH_DISPATCH_FIGURES_H_
#define KB_WORKBENCH_BENCH_DISPATCH_FIGURES_H_

#include "runtime/bench/declared.h"
#include "runtime/module/module.h"

#include <map>
#include <string>
#include <vector>

namespace kb::workbench {

/// The names a per-dispatch expression may use: each constant of the
/// dispatched export (by its name in the candidate's ABI, else the
/// reference's) with the value |dispatch| packs for it, and the workload.
std::map<std::string, double> dispatchNames(const module::Module &module,
                                            const module::Op &dispatch);

/// |declared| with its expressions evaluated for |dispatch|; one that does
/// not evaluate leaves its figure unknown, with a warning.
bench::KernelDeclared withDispatchFigures(bench::KernelDeclared declared,
                                          const module::Module &module,
                                          const module::Op &dispatch,
                                          std::vector<std::string> &warnings);

} // namespace kb::workbench

#endif // KB_WORKBENCH_BENCH_DISPATCH_FIGURES_H_
