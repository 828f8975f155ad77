#version 450
// Sum reduction, first stage: partials[w] = sum of the elements workgroup w
// visits (see reduce_sum.cu for the contract: one partial per workgroup).
layout(local_size_x = 256) in;
layout(set = 0, binding = 0) readonly buffer Input { float input_[]; };
layout(set = 0, binding = 1) writeonly buffer Partials { float partials[]; };
layout(push_constant) uniform Constants { uint n; } pc;

const uint kBlock = 256u;
shared float sums[kBlock];

void main() {
  uint lid = gl_LocalInvocationID.x;
  uint stride = gl_NumWorkGroups.x * kBlock;
  float sum = 0.0;
  for (uint i = gl_WorkGroupID.x * kBlock + lid; i < pc.n; i += stride) {
    sum += input_[i];
    if (stride >= pc.n - i)
      break; // before i += stride could wrap
  }
  sums[lid] = sum;
  barrier();
  for (uint half_ = kBlock / 2u; half_ > 0u; half_ /= 2u) {
    if (lid < half_)
      sums[lid] += sums[lid + half_];
    barrier();
  }
  if (lid == 0u)
    partials[gl_WorkGroupID.x] = sums[0];
}
