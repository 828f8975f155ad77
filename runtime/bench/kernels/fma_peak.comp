// The compute-peak probe (fma_peak.h) for Vulkan: the same eight chains of
// fused multiply-adds, sixteen per chain per iteration, as fma_peak.cu. The
// SPIR-V is checked in (fma_peak.spv.inc, made by regenerate.sh) because
// GPU hosts have no GLSL compiler.
#version 450
layout(local_size_x = 256) in;
layout(set = 0, binding = 0, std430) writeonly buffer Out { float result[]; };
layout(push_constant) uniform Constants { float a; float b; uint iterations; };

// Sixteen steps of the eight chains, written out: the SPIR-V holds all 128
// FMAs of an iteration, whether or not a driver unrolls loops.
#define KB_STEP8                                                              \
  x0 = fma(x0, a, b);                                                         \
  x1 = fma(x1, a, b);                                                         \
  x2 = fma(x2, a, b);                                                         \
  x3 = fma(x3, a, b);                                                         \
  x4 = fma(x4, a, b);                                                         \
  x5 = fma(x5, a, b);                                                         \
  x6 = fma(x6, a, b);                                                         \
  x7 = fma(x7, a, b);
#define KB_STEP16 KB_STEP8 KB_STEP8 KB_STEP8 KB_STEP8 KB_STEP8 KB_STEP8 KB_STEP8 KB_STEP8 \
  KB_STEP8 KB_STEP8 KB_STEP8 KB_STEP8 KB_STEP8 KB_STEP8 KB_STEP8 KB_STEP8

void main() {
  float x0 = 0.0, x1 = 0.125, x2 = 0.25, x3 = 0.375;
  float x4 = 0.5, x5 = 0.625, x6 = 0.75, x7 = 0.875;
  for (uint i = 0; i < iterations; ++i) {
    KB_STEP16
  }
  result[gl_GlobalInvocationID.x] =
      ((x0 + x1) + (x2 + x3)) + ((x4 + x5) + (x6 + x7));
}
