//===- runtime/testing/sample_modules.cpp - The test program modules ------===//
#include "runtime/testing/sample_modules.h"

#include "runtime/testing/kernel_compiler.h"

#include <cstring>

namespace kb::testing {

using namespace kb::module;

namespace {

const char *kSaxpyGlslReference = R"(#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer X { float x[]; };
layout(set = 0, binding = 1) readonly buffer Y { float y[]; };
layout(set = 0, binding = 2) writeonly buffer T { float t[]; };
layout(push_constant) uniform C { float a; uint n; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < n) t[i] = a * x[i] + y[i];
}
)";

const char *kSaxpyGlslCandidate = R"(#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer X { float x[]; };
layout(set = 0, binding = 1) readonly buffer Y { float y[]; };
layout(set = 0, binding = 2) writeonly buffer T { float t[]; };
layout(push_constant) uniform C { float a; uint n; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= n) return;
  float r = fma(a, x[i], y[i]);
#ifdef KB_WRONG
  if (i == 37u) r += 1.0;
#endif
#ifdef KB_SQUASH_NAN
  // By the bits: a float test of NaN may be folded away.
  if ((floatBitsToUint(r) & 0x7fffffffu) > 0x7f800000u) r = 0.0;
#endif
  t[i] = r;
}
)";

const char *kWidenGlsl = R"(#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) readonly buffer T { float t[]; };
layout(set = 0, binding = 1) writeonly buffer O { double o[]; };
layout(push_constant) uniform C { double s; int64_t bias; uint n; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < n) o[i] = double(t[i]) * s + double(bias);
}
)";

const char *kSaxpyCudaReference = R"(
extern "C" __global__ void saxpy(const float *x, const float *y, float *t,
                                 float a, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) t[i] = a * x[i] + y[i];
}
)";

const char *kSaxpyCudaCandidate = R"(
extern "C" __global__ void __launch_bounds__(64)
saxpy_fma(const float *__restrict__ x, const float *__restrict__ y,
          float *__restrict__ t, float a, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float r = fmaf(a, x[i], y[i]);
#ifdef KB_WRONG
  if (i == 37u) r += 1.0f;
#endif
  t[i] = r;
}
)";

const char *kWidenCuda = R"(
extern "C" __global__ void widen(const float *t, double *o, double s,
                                 long long bias, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) o[i] = (double)t[i] * s + (double)bias;
}
)";

/// |source| with `#define |name| 1` when |on|.
std::string withDefine(const std::string &source, bool on, bool glsl,
                       const char *name = "KB_WRONG") {
  std::string s = source;
  if (!on)
    return s;
  std::string line = std::string("#define ") + name + " 1\n";
  if (glsl) { // after the #version line
    size_t eol = s.find('\n');
    return s.substr(0, eol + 1) + line + s.substr(eol + 1);
  }
  return line + s;
}

template <typename T>
void append(std::vector<uint8_t> &block, size_t offset, T v) {
  if (block.size() < offset + sizeof(T))
    block.resize(offset + sizeof(T), 0);
  std::memcpy(block.data() + offset, &v, sizeof(T));
}

} // namespace

namespace {

// saxpy: t = a * x + y over n floats, 64 invocations a workgroup.
KernelAbi saxpyAbi() {
  KernelAbi saxpy;
  saxpy.entry = "main";
  saxpy.bindings = {{"x", ElementType::F32, Access::ReadOnly},
                    {"y", ElementType::F32, Access::ReadOnly},
                    {"t", ElementType::F32, Access::WriteOnly}};
  saxpy.constants = {{"a", ScalarType::F32}, {"n", ScalarType::U32}};
  saxpy.workgroupSize = {64, 1, 1};
  return saxpy;
}

// widen: out = double(t) * s + bias, to exercise 64-bit constants.
KernelAbi widenAbi() {
  KernelAbi widen;
  widen.entry = "main";
  widen.bindings = {{"t", ElementType::F32, Access::ReadOnly},
                    {"out", ElementType::F64, Access::WriteOnly}};
  widen.constants = {{"s", ScalarType::F64},
                     {"bias", ScalarType::I64},
                     {"n", ScalarType::U32}};
  widen.workgroupSize = {32, 1, 1};
  return widen;
}

// A variant whose ABI names its own entry point (GLSL's is always "main").
Variant makeVariant(hal::ExecutableFormat format, std::string target,
                    VariantRole role, std::string data, KernelAbi abi,
                    std::string entry) {
  abi.entry = std::move(entry);
  return Variant{format, std::move(target), role, std::move(data), {abi}};
}

// Vulkan variants: a reference and a candidate saxpy (the candidate wrong or
// NaN-squashing on request) and a reference widen.
Status addSpirvVariants(const SampleOptions &options, Executable &saxpyExe,
                        Executable &widenExe) {
  KB_ASSIGN_OR_RETURN(std::string ref, compileGlsl(kSaxpyGlslReference));
  KB_ASSIGN_OR_RETURN(
      std::string cand,
      compileGlsl(withDefine(
          withDefine(kSaxpyGlslCandidate, options.wrongCandidate, true),
          options.nanSquashingCandidate, true, "KB_SQUASH_NAN")));
  KB_ASSIGN_OR_RETURN(std::string wid, compileGlsl(kWidenGlsl));
  saxpyExe.variants.push_back(makeVariant(hal::ExecutableFormat::Spirv,
                                          "vulkan1.1", VariantRole::Reference,
                                          ref, saxpyAbi(), "main"));
  saxpyExe.variants.push_back(makeVariant(hal::ExecutableFormat::Spirv,
                                          "vulkan1.1", VariantRole::Candidate,
                                          cand, saxpyAbi(), "main"));
  widenExe.variants.push_back(makeVariant(hal::ExecutableFormat::Spirv,
                                          "vulkan1.1", VariantRole::Reference,
                                          wid, widenAbi(), "main"));
  return okStatus();
}

// CUDA variants: PTX for sm_75 (reference) and sm_90 (candidate, also as a
// cubin, so both loaders run).
Status addCudaVariants(const SampleOptions &options, Executable &saxpyExe,
                       Executable &widenExe) {
  KB_ASSIGN_OR_RETURN(std::string ref,
                      compileCudaToPtx(kSaxpyCudaReference, "sm_75"));
  KB_ASSIGN_OR_RETURN(
      std::string cand,
      compileCudaToPtx(
          withDefine(kSaxpyCudaCandidate, options.wrongCandidate, false),
          "sm_90"));
  KB_ASSIGN_OR_RETURN(std::string cubin, assembleCubin(cand, "sm_90"));
  KB_ASSIGN_OR_RETURN(std::string wid, compileCudaToPtx(kWidenCuda, "sm_75"));
  saxpyExe.variants.push_back(makeVariant(hal::ExecutableFormat::Ptx, "sm_75",
                                          VariantRole::Reference, ref,
                                          saxpyAbi(), "saxpy"));
  saxpyExe.variants.push_back(makeVariant(hal::ExecutableFormat::Ptx, "sm_90",
                                          VariantRole::Candidate, cand,
                                          saxpyAbi(), "saxpy_fma"));
  saxpyExe.variants.push_back(makeVariant(hal::ExecutableFormat::Cubin, "sm_90",
                                          VariantRole::Candidate, cubin,
                                          saxpyAbi(), "saxpy_fma"));
  widenExe.variants.push_back(makeVariant(hal::ExecutableFormat::Ptx, "sm_75",
                                          VariantRole::Reference, wid,
                                          widenAbi(), "widen"));
  return okStatus();
}

// main: allocate x, y, t and out, dispatch saxpy (x, y -> t) then widen
// (t -> out); t and out are the outputs compared.
Function sampleMainFunction() {
  Function fn;
  fn.name = "main";
  BufferDecl x{"x", ElementType::F32, kSampleElements, {}};
  x.init.distribution = Distribution::Uniform;
  x.init.seed = 1;
  x.init.low = -1;
  x.init.high = 1;
  BufferDecl y{"y", ElementType::F32, kSampleElements, {}};
  y.init.distribution = Distribution::Normal;
  y.init.seed = 2;
  BufferDecl t{"t", ElementType::F32, kSampleElements, {}};
  BufferDecl out{"out", ElementType::F64, kSampleElements, {}};
  fn.buffers = {x, y, t, out};
  for (uint32_t b = 0; b < 4; ++b) {
    Op alloc;
    alloc.kind = Op::Kind::Alloc;
    alloc.buffer = b;
    fn.ops.push_back(alloc);
  }
  Op d1;
  d1.kind = Op::Kind::Dispatch;
  d1.executable = 0;
  d1.bindings = {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}};
  append(d1.constants, 0, 2.5f);
  append(d1.constants, 4, kSampleElements);
  d1.workgroupCount = {(kSampleElements + 63) / 64, 1, 1};
  fn.ops.push_back(d1);
  Op d2;
  d2.kind = Op::Kind::Dispatch;
  d2.executable = 1;
  d2.bindings = {{2, 0, 0}, {3, 0, 0}};
  append(d2.constants, 0, 0.5);
  append(d2.constants, 8, int64_t(-3));
  append(d2.constants, 16, kSampleElements);
  d2.workgroupCount = {(kSampleElements + 31) / 32, 1, 1};
  fn.ops.push_back(d2);
  fn.outputs = {{2, std::nullopt, std::nullopt},
                {3, std::nullopt, std::nullopt}};
  return fn;
}

} // namespace

StatusOr<Module> makeSampleProgram(const SampleOptions &options) {
  Executable saxpyExe{"saxpy", {}};
  Executable widenExe{"widen", {}};
  if (options.spirv)
    KB_RETURN_IF_ERROR(addSpirvVariants(options, saxpyExe, widenExe));
  if (options.cuda)
    KB_RETURN_IF_ERROR(addCudaVariants(options, saxpyExe, widenExe));

  Module m;
  m.schemaVersion = kSchemaVersion;
  m.name = options.wrongCandidate ? "sample_wrong" : "sample";
  m.executables = {saxpyExe, widenExe};
  m.entryFunction = "main";
  m.functions = {sampleMainFunction()};
  Benchmark bench{"saxpy_main_1000", 0, 4};
  m.benchmarks = {bench};
  return m;
}

} // namespace kb::testing
