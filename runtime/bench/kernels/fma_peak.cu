// The compute-peak probe (fma_peak.h): every thread runs kChains
// independent chains of fused multiply-adds, kUnroll per chain per loop
// iteration, so the issue rate of FMAs is what limits it, not their
// latency (eight independent chains cover it on every NVIDIA GPU with
// enough warps) or memory (one store per thread). fma_peak.comp is the
// same kernel for Vulkan. The PTX is checked in (fma_peak.ptx, made by
// regenerate.sh) because GPU hosts have no nvcc. The chains converge to
// b / (1 - a) (1.0 with the probe's a = 0.999, b = 0.001): no overflow,
// no denormals.
#define KB_FMA_STEP(x) x = fmaf(x, a, b)
extern "C" __global__ void kb_fma_peak(float *__restrict__ out, float a,
                                       float b, unsigned int iterations) {
  unsigned int id = blockIdx.x * blockDim.x + threadIdx.x;
  float x0 = 0.0f, x1 = 0.125f, x2 = 0.25f, x3 = 0.375f;
  float x4 = 0.5f, x5 = 0.625f, x6 = 0.75f, x7 = 0.875f;
  for (unsigned int i = 0; i < iterations; ++i) {
#pragma unroll
    for (int u = 0; u < 16; ++u) {
      KB_FMA_STEP(x0);
      KB_FMA_STEP(x1);
      KB_FMA_STEP(x2);
      KB_FMA_STEP(x3);
      KB_FMA_STEP(x4);
      KB_FMA_STEP(x5);
      KB_FMA_STEP(x6);
      KB_FMA_STEP(x7);
    }
  }
  out[id] = ((x0 + x1) + (x2 + x3)) + ((x4 + x5) + (x6 + x7));
}
