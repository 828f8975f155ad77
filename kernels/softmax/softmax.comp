#version 450
// Row softmax of a row-major rows x cols matrix, one workgroup per row (see
// softmax.cu for the contract). Indices are 32-bit: a Vulkan storage buffer
// range (maxStorageBufferRange) is below 4 GiB anyway.
layout(local_size_x = 256) in;
layout(set = 0, binding = 0) readonly buffer Input { float input_[]; };
layout(set = 0, binding = 1) writeonly buffer Output { float output_[]; };
layout(push_constant) uniform Constants {
  uint rows;
  uint cols;
} pc;

const uint kBlock = 256u;
shared float scratch[kBlock];

// Workgroup reductions; called in uniform control flow. Every invocation
// gets the result.
float reduceMax(float value) {
  uint lid = gl_LocalInvocationID.x;
  scratch[lid] = value;
  barrier();
  for (uint half_ = kBlock / 2u; half_ > 0u; half_ /= 2u) {
    if (lid < half_)
      scratch[lid] = max(scratch[lid], scratch[lid + half_]);
    barrier();
  }
  float result = scratch[0];
  barrier(); // scratch is reused by the next reduction
  return result;
}

float reduceSum(float value) {
  uint lid = gl_LocalInvocationID.x;
  scratch[lid] = value;
  barrier();
  for (uint half_ = kBlock / 2u; half_ > 0u; half_ /= 2u) {
    if (lid < half_)
      scratch[lid] += scratch[lid + half_];
    barrier();
  }
  float result = scratch[0];
  barrier();
  return result;
}

void main() {
  uint lid = gl_LocalInvocationID.x;
  for (uint row = gl_WorkGroupID.x; row < pc.rows; row += gl_NumWorkGroups.x) {
    uint base = row * pc.cols;
    float rowMax = uintBitsToFloat(0xff800000u); // -infinity
    for (uint j = lid; j < pc.cols; j += kBlock)
      rowMax = max(rowMax, input_[base + j]);
    rowMax = reduceMax(rowMax);
    float sum = 0.0;
    for (uint j = lid; j < pc.cols; j += kBlock)
      sum += exp(input_[base + j] - rowMax);
    sum = reduceSum(sum);
    float inverse = 1.0 / sum;
    for (uint j = lid; j < pc.cols; j += kBlock)
      output_[base + j] = exp(input_[base + j] - rowMax) * inverse;
    if (gl_NumWorkGroups.x >= pc.rows - row)
      break; // before row += gl_NumWorkGroups.x could wrap
  }
}
