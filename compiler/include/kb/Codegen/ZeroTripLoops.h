//===- kb/Codegen/ZeroTripLoops.h - loop results defined on every path ----===//
//
// MLIR 16's scf.for -> SPIR-V conversion keeps a loop's results in
// Function variables that only the loop body's scf.yield stores: a loop
// that runs zero times leaves them unwritten, so its results are undefined
// instead of its initial values (a Fibonacci or grid-stride accumulation
// whose trip count is 0 for some invocations returns garbage there; the
// PTX of the same body, through scf -> cf, is right). The SPIR-V codegen
// therefore first puts every loop with results that may not run under a
// guard whose else branch yields the initial values, and scf.if stores its
// results on both branches. scf.while needs nothing: its before region,
// which stores the results, always runs.
//
//===----------------------------------------------------------------------===//
#ifndef KB_CODEGEN_ZEROTRIPLOOPS_H_
#define KB_CODEGEN_ZEROTRIPLOOPS_H_

namespace mlir {
class Operation;
namespace kb {

/// Rewrites every `%r = scf.for %i = %lb to %ub ... iter_args(%a = %init)`
/// under |root| whose trip count is not known to be at least one into
/// `%r = scf.if (%lb < %ub) { scf.for ... } else { scf.yield %init }`
/// (the signed comparison the loop's own header makes).
void guardZeroTripLoops(Operation *root);

} // namespace kb
} // namespace mlir

#endif // KB_CODEGEN_ZEROTRIPLOOPS_H_
