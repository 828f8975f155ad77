// bf16 elementwise scale as mixed-precision libraries write it: a template
// over the storage type with a conversion trait, explicitly instantiated
// for __nv_bfloat16 (no extern "C"; kernel.toml's entry is the plain name).
// Math in f32: out[i] = bf16(a * float(in[i])).
#include <cuda_bf16.h>

#include "corpus_common.cuh"

template <typename T> struct Convert;

template <> struct Convert<__nv_bfloat16> {
  static __device__ __forceinline__ float toFloat(__nv_bfloat16 v) {
    return __bfloat162float(v);
  }
  static __device__ __forceinline__ __nv_bfloat16 fromFloat(float v) {
    return __float2bfloat16(v);
  }
};

template <typename T>
__global__ void __launch_bounds__(256)
    scale_kernel(T *__restrict__ out, const T *__restrict__ in, float a,
                 int n) {
  const corpus::GridStride g = corpus::gridStride();
  const unsigned count = static_cast<unsigned>(n);
  for (unsigned i = g.start; i < count; i += g.stride) {
    out[i] = Convert<T>::fromFloat(a * Convert<T>::toFloat(in[i]));
    if (corpus::lastStep(i, g.stride, count))
      break;
  }
}

template __global__ void scale_kernel<__nv_bfloat16>(__nv_bfloat16 *,
                                                     const __nv_bfloat16 *,
                                                     float, int);
