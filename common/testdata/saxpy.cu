// PTX fixture source: an extern "C" kernel in the kernel ABI (bindings x, y;
// constants a, n), a C++ (mangled) kernel, an aggregate parameter and a kernel
// without parameters. Regenerate saxpy.ptx with regenerate.sh.
struct Pair {
  double scale;
  int offset;
};

extern "C" __global__ void __launch_bounds__(256)
    saxpy(const float *x, float *y, float a, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

__global__ void scale(float *y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] *= a;
}

extern "C" __global__ void pair(Pair p, long long *out) {
  out[0] = static_cast<long long>(p.scale) + p.offset;
}

extern "C" __global__ void noargs() {}
