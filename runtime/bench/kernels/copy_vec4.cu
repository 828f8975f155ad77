// The copy of the copy-bandwidth probe (copy_bandwidth.h): a grid-stride
// copy of 16-byte elements, so that every load and store is one 128-bit
// access and the probe measures DRAM, not the instruction issue rate.
// copy_vec4.comp is the same kernel for Vulkan. The PTX is checked in
// (copy_vec4.ptx, made by regenerate.sh) because GPU hosts have no nvcc.
extern "C" __global__ void kb_copy_vec4(const float4 *__restrict__ source,
                                        float4 *__restrict__ target,
                                        unsigned int count) {
  unsigned int stride = gridDim.x * blockDim.x;
  for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += stride)
    target[i] = source[i];
}
