//===- kb/Testing/ModelGenerator.h - Seeded random front-end models -------===//
//
// The front end's side of the differential test: a model function of one
// op class the front end accepts — element-wise TOSA with broadcasting, a
// unary math op, tosa.matmul with a bias, a reduction, a transpose, a
// softmax, a convolution, a max pooling — with shapes drawn from the seed
// (odd, prime and 1-sized dimensions included, so that no tile or
// workgroup size divides them by luck). Lowered by the front end and split
// into dispatches (casesFromModel), each dispatch's reference runs the
// three ways the kernel bodies do (kb/Testing/KernelGenerator.h).
//
// Every input is drawn in [-2, 2) by the harness; no op divides, and the
// softmax's exp and reciprocal see bounded values, so every backend's
// result is finite and within the harness's tolerance of the others'.
//
// Reproducing a failure printed as `model seed=N (CLASS)`:
//   reference_differential --models --first N --seeds 1
//   reference_differential --dump-model N > model.mlir
// then `kb-compile model.mlir` stage by stage (docs/building.md).
//
// Determinism: std::mt19937_64, no std distributions.
//
//===----------------------------------------------------------------------===//
#ifndef KB_TESTING_MODELGENERATOR_H_
#define KB_TESTING_MODELGENERATOR_H_

#include <cstdint>
#include <string>

namespace kb::differential {

struct GeneratedModel {
  /// The op class ("matmul", "softmax", ...).
  std::string opClass;
  /// A module with one model function `@model_<seed>`.
  std::string mlir;
};

GeneratedModel generateModel(uint64_t seed);

} // namespace kb::differential

#endif // KB_TESTING_MODELGENERATOR_H_
