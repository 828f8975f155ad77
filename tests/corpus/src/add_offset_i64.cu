// 64-bit integers end to end: i64 buffers, an i64 and a u64 constant
// (naturally aligned kernel parameters). y[i] = x[i] + offset for i < n.
extern "C" __global__ void __launch_bounds__(128)
    add_offset_i64(const long long *__restrict__ x, long long *__restrict__ y,
                   long long offset, unsigned long long n) {
  const unsigned long long stride = 1ull * gridDim.x * blockDim.x;
  for (unsigned long long i = 1ull * blockIdx.x * blockDim.x + threadIdx.x;
       i < n; i += stride)
    y[i] = x[i] + offset;
}
