// A kernel that does no work: the GPU script's launch-latency benchmark.
// The store never runs (n is never 0xffffffff there); it keeps the binding
// and the constant in the ABI without touching memory.
extern "C" __global__ void __launch_bounds__(32) empty(float *buf, unsigned n) {
  if (n == 0xffffffffu)
    buf[threadIdx.x] = 0.0f;
}
