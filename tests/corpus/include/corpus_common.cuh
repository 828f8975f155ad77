// Helpers shared by the corpus's CUDA kernels, the way kernel libraries keep
// a small device-side header: a grid-stride range and a few math helpers.
#pragma once

#include <cstdint>

namespace corpus {

/// The first index of this thread and the stride of a grid-stride loop.
struct GridStride {
  unsigned start;
  unsigned stride;
};

__device__ __forceinline__ GridStride gridStride() {
  return {blockIdx.x * blockDim.x + threadIdx.x, gridDim.x * blockDim.x};
}

/// True when i + stride would pass n (or wrap): the loop stops before it.
__device__ __forceinline__ bool lastStep(unsigned i, unsigned stride,
                                         unsigned n) {
  return stride >= n - i;
}

template <typename T> __device__ __forceinline__ T relu(T v) {
  return v > T(0) ? v : T(0);
}

} // namespace corpus
