//===- runtime/testing/kernel_compiler.h - Compile test kernels -----------===//
//
// Test-time compilation of small kernels with the real tools (glslc, nvcc,
// ptxas), found and run as everywhere else (common/tool_search.h,
// common/process.h). A missing tool is Unavailable, so callers GTEST_SKIP
// with the reason.
//
//===----------------------------------------------------------------------===//
#ifndef KB_RUNTIME_TESTING_KERNEL_COMPILER_H_
#define KB_RUNTIME_TESTING_KERNEL_COMPILER_H_

#include "common/status.h"

#include <string>

namespace kb::testing {

/// GLSL compute shader -> SPIR-V bytes (glslc --target-env=|env|).
StatusOr<std::string> compileGlsl(const std::string &source,
                                  const std::string &env = "vulkan1.1");
/// CUDA C++ -> PTX text (nvcc -ptx -arch=|arch|).
StatusOr<std::string> compileCudaToPtx(const std::string &source,
                                       const std::string &arch);
/// PTX -> cubin bytes (ptxas -arch=|arch|).
StatusOr<std::string> assembleCubin(const std::string &ptx,
                                    const std::string &arch);

} // namespace kb::testing

#endif // KB_RUNTIME_TESTING_KERNEL_COMPILER_H_
