//===- runtime/testing/sample_modules.h - The test program modules --------===//
//
// The program the end-to-end tests of `kernel-bench run` execute, built
// from GLSL (glslc) and, when nvcc/ptxas exist, CUDA (PTX for sm_75 as the
// reference, PTX + cubin for sm_90 as the candidate):
//
//   executable saxpy(x: f32 ro, y: f32 ro, t: f32 wo; a: f32, n: u32), wg 64
//     reference = a plain loop body; candidate = a handwritten fma version
//     (with |wrongCandidate| the candidate adds 1 at element 37; with
//     |nanSquashingCandidate| it writes 0 for NaN)
//   executable widen(t: f32 ro, out: f64 wo; s: f64, bias: i64, n: u32), wg 32
//     reference only (64-bit constants and f64 outputs)
//   function main: x uniform(-1,1) seed 1, y normal(0,1) seed 2, t and out
//     zero; saxpy; widen (a barrier is inferred between them); outputs t, out.
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_TESTING_SAMPLE_MODULES_H_
#define KB_RUNTIME_TESTING_SAMPLE_MODULES_H_

#include "common/status.h"
#include "runtime/module/module.h"

namespace kb::testing {

constexpr uint32_t kSampleElements = 1000;
constexpr uint32_t kWrongIndex = 37;

struct SampleOptions {
  bool wrongCandidate = false;
  /// The GLSL candidate writes 0 where the result is NaN (a kernel that
  /// does not propagate NaN).
  bool nanSquashingCandidate = false;
  bool spirv = true; // requires glslc
  bool cuda = false; // requires nvcc and ptxas
};

StatusOr<module::Module> makeSampleProgram(const SampleOptions &options);

} // namespace kb::testing

#endif // KB_RUNTIME_TESTING_SAMPLE_MODULES_H_
