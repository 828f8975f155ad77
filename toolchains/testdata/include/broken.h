// A header with an error on line 3.
__device__ inline float broken_scale() {
  return undefined_scale_factor;
}
