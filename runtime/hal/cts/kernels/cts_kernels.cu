// CUDA twins of the GLSL conformance kernels (same ABI: bindings as
// pointers, then the constants), plus a kernel that faults on purpose.
struct Constants {
  int a;
  unsigned b;
  float c;
  long long d;
  unsigned long long e;
  double f;
};

extern "C" __global__ void double_plus_one(const unsigned *a, unsigned *b,
                                           unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    b[i] = a[i] * 2u + 1u;
}

extern "C" __global__ void constants(Constants *o, int a, unsigned b, float c,
                                     long long d, unsigned long long e,
                                     double f) {
  o->a = a;
  o->b = b;
  o->c = c;
  o->d = d;
  o->e = e;
  o->f = f;
}

// Writes through a pointer into unmapped memory: CUDA_ERROR_ILLEGAL_ADDRESS.
extern "C" __global__ void fault(unsigned *p) {
  unsigned *bad = reinterpret_cast<unsigned *>(p + (1ull << 40));
  *bad = 1;
}
