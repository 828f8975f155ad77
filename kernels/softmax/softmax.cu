// Row softmax: output[r][j] = exp(input[r][j] - max_r) / sum_k exp(input[r][k]
// - max_r) for a row-major rows x cols matrix.
//
// ABI (kernel.toml): bindings input (f32, readonly), output (f32, writeonly);
// constants rows (u32), cols (u32). Workgroup 256x1x1, one workgroup per row:
// workgroup w handles rows w, w + G, w + 2G, ... for G workgroups, so any
// count is correct and `rows` workgroups is the natural dispatch. The row
// maximum and the sum are reduced in shared memory; subtracting the maximum
// keeps exp() from overflowing.
#include <math_constants.h>

constexpr unsigned kBlock = 256;

enum class Op { Max, Sum };

/// Reduces |value| over the workgroup; every thread gets the result.
template <Op op> __device__ float workgroupReduce(float *scratch, float value) {
  scratch[threadIdx.x] = value;
  __syncthreads();
  for (unsigned half = kBlock / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) {
      float other = scratch[threadIdx.x + half];
      scratch[threadIdx.x] = op == Op::Max ? fmaxf(scratch[threadIdx.x], other)
                                           : scratch[threadIdx.x] + other;
    }
    __syncthreads();
  }
  float result = scratch[0];
  __syncthreads(); // scratch is reused by the next reduction
  return result;
}

extern "C" __global__ void __launch_bounds__(kBlock)
    softmax(const float *__restrict__ input, float *__restrict__ output,
            unsigned rows, unsigned cols) {
  __shared__ float scratch[kBlock];
  for (unsigned row = blockIdx.x; row < rows; row += gridDim.x) {
    const float *in = input + static_cast<size_t>(row) * cols;
    float *out = output + static_cast<size_t>(row) * cols;
    float rowMax = -CUDART_INF_F;
    for (size_t j = threadIdx.x; j < cols; j += kBlock)
      rowMax = fmaxf(rowMax, in[j]);
    rowMax = workgroupReduce<Op::Max>(scratch, rowMax);
    float sum = 0.0f;
    for (size_t j = threadIdx.x; j < cols; j += kBlock)
      sum += expf(in[j] - rowMax);
    sum = workgroupReduce<Op::Sum>(scratch, sum);
    const float inverse = 1.0f / sum;
    for (size_t j = threadIdx.x; j < cols; j += kBlock)
      out[j] = expf(in[j] - rowMax) * inverse;
    if (gridDim.x >= rows - row)
      break; // before row += gridDim.x could wrap
  }
}
