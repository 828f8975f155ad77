// nvcc's own ptxas check rejects this (rc 255) but leaves the .ptx behind.
extern "C" __global__ void saxpy(const float *x, float *y, float a, unsigned n) {
  asm volatile("bogus.instr %0;" ::"r"(n));
}
